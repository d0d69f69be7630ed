package toolmcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
)

// A completed task inlines its tool's CallToolResult, which at 2026-07-28
// carries resultType "complete" as every result does. It had none (the SDK
// writes it only on the results it sends itself), and ext-tasks' client
// refused the task's result as malformed.
func TestTaskResultType(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "quick", Description: "Ends at once.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
		func(context.Context, struct{}) (string, error) { return "done", nil }))
	tasks := tool.NewTasks(reg, &tool.TaskOptions{PollInterval: 20 * time.Millisecond})
	t.Cleanup(tasks.Close)
	url, _ := serveHTTP(t, reg, &Options[struct{}]{Tasks: tasks}, nil)
	id := startRawTask(t, url, "quick")
	var task struct {
		Status string `json:"status"`
		Result map[string]json.RawMessage
	}
	for deadline := time.Now().Add(10 * time.Second); task.Status != string(tool.TaskCompleted); {
		if time.Now().After(deadline) {
			t.Fatalf("the task is %s, want completed", task.Status)
		}
		time.Sleep(20 * time.Millisecond)
		_, reply := taskRPC(t, url, methodTasksGet, map[string]any{"taskId": id}, id)
		if err := json.Unmarshal(reply.Result, &task); err != nil {
			t.Fatalf("tasks/get: %s %+v", reply.Result, reply.Error)
		}
	}
	if got := string(task.Result["resultType"]); got != `"complete"` {
		t.Errorf("the inlined result's resultType is %s, want \"complete\"", got)
	}
	if got := string(task.Result["content"]); got != `[{"type":"text","text":"done"}]` {
		t.Errorf("the inlined result's content is %s", got)
	}
}

// rpcReply is a JSON-RPC response as a raw client reads it.
type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// noName, as taskRPC's name, sends no Mcp-Name header.
const noName = "\x00"

// taskRPC posts one request of 2026-07-28 to url, as a client that
// declares the tasks extension, with the standard headers and Mcp-Name
// set to name (none for noName), and returns the HTTP status and the
// response (read from JSON or from the SSE stream).
func taskRPC(t *testing.T, url, method string, params map[string]any, name string) (int, rpcReply) {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    mrtrProtocol,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{TasksExtension: map[string]any{}}},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	header := map[string]string{"Mcp-Protocol-Version": mrtrProtocol, "Mcp-Method": method}
	if name != noName {
		header["Mcp-Name"] = name
	}
	resp, text := post(t, url, string(body), header)
	var reply rpcReply
	data := text
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = ""
		for _, line := range strings.Split(text, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.Contains(d, `"id":1`) {
				data = d
			}
		}
	}
	if err := json.Unmarshal([]byte(data), &reply); err != nil {
		t.Fatalf("%s: HTTP %d, no JSON-RPC response: %q", method, resp.StatusCode, text)
	}
	return resp.StatusCode, reply
}

// startRawTask starts tool as a task through url and returns its taskId.
func startRawTask(t *testing.T, url, tool string) string {
	t.Helper()
	status, reply := taskRPC(t, url, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}}, tool)
	var created struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	_ = json.Unmarshal(reply.Result, &created)
	if status != http.StatusOK || created.ResultType != "task" || created.TaskID == "" {
		t.Fatalf("tools/call %s: HTTP %d %s %+v, want a task handle", tool, status, reply.Result, reply.Error)
	}
	return created.TaskID
}

// taskStatus reads the task's status through tasks/get.
func taskStatus(t *testing.T, url, id string) string {
	t.Helper()
	_, reply := taskRPC(t, url, methodTasksGet, map[string]any{"taskId": id}, id)
	var task struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(reply.Result, &task)
	return task.Status
}
