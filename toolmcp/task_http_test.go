package toolmcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// runsUntilCancelled is a registry with one tool, wait, that runs only as
// a task, until cancelled, served as tasks by tasks.
func runsUntilCancelled(t *testing.T) (*tool.Registry[struct{}], *tool.Tasks[struct{}]) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "wait", Description: "Waits until cancelled.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
		func(ctx context.Context, _ struct{}) (string, error) { <-ctx.Done(); return "", context.Cause(ctx) }))
	tasks := tool.NewTasks(reg, &tool.TaskOptions{Answerer: Answerer, PollInterval: 20 * time.Millisecond})
	t.Cleanup(tasks.Close)
	return reg, tasks
}

// SEP-2663 has a client set Mcp-Name to params.taskId on tasks/get,
// tasks/update and tasks/cancel over HTTP, and the transport of
// 2026-07-28 has a server refuse a request whose standard header is
// missing, as one whose header disagrees with the body. A missing one was
// let through: a client behind a load balancer that routes tasks by it
// would have worked here and nowhere else. Through NewHTTPHandler, both
// are refused with 400 and -32020 before anything is done (a tasks/cancel
// cancels nothing); through the SDK's own handler, with -32020.
func TestTaskMcpName(t *testing.T) {
	reg, tasks := runsUntilCancelled(t)
	url, _ := serveHTTP(t, reg, &Options[struct{}]{Tasks: tasks}, nil)
	id := startRawTask(t, url, "wait")
	other := startRawTask(t, url, "wait")
	for _, method := range []string{methodTasksGet, methodTasksUpdate, methodTasksCancel} {
		params := func() map[string]any {
			p := map[string]any{"taskId": id}
			if method == methodTasksUpdate {
				p["inputResponses"] = map[string]any{}
			}
			return p
		}
		for _, tc := range []struct {
			name, header string
			want         int
			why          string
		}{
			{"missing", noName, http.StatusBadRequest, "missing required Mcp-Name header"},
			{"empty", "", http.StatusBadRequest, "missing required Mcp-Name header"},
			{"another task's", other, http.StatusBadRequest, "header mismatch"},
			{"the taskId in base64", "=?base64?" + b64(id) + "?=", http.StatusOK, ""},
			{"the taskId", id, http.StatusOK, ""},
		} {
			t.Run(method+" with "+tc.name+" Mcp-Name", func(t *testing.T) {
				status, reply := taskRPC(t, url, method, params(), tc.header)
				if status != tc.want {
					t.Errorf("HTTP %d, want %d (%+v)", status, tc.want, reply.Error)
				}
				if tc.why == "" {
					if reply.Error != nil {
						t.Errorf("error %+v, want a result", reply.Error)
					}
					return
				}
				if reply.Error == nil || reply.Error.Code != sdk.CodeHeaderMismatch || !strings.Contains(reply.Error.Message, tc.why) {
					t.Errorf("error %+v, want %d saying %q", reply.Error, sdk.CodeHeaderMismatch, tc.why)
				}
				if method == methodTasksCancel {
					if got := taskStatus(t, url, id); got != string(tool.TaskWorking) {
						t.Fatalf("a refused tasks/cancel left the task %s", got)
					}
				}
			})
		}
	}
	if got := taskStatus(t, url, other); got != string(tool.TaskWorking) {
		t.Errorf("the other task is %s, want working", got)
	}

	t.Run("through the SDK's own handler", func(t *testing.T) {
		reg, tasks := runsUntilCancelled(t)
		server := serve(t, reg, &Options[struct{}]{Tasks: tasks})
		hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{Stateless: true}))
		t.Cleanup(hs.Close)
		id := startRawTask(t, hs.URL, "wait")
		for _, header := range []string{noName, "not-" + id} {
			_, reply := taskRPC(t, hs.URL, methodTasksCancel, map[string]any{"taskId": id}, header)
			if reply.Error == nil || reply.Error.Code != sdk.CodeHeaderMismatch {
				t.Errorf("Mcp-Name %q: error %+v, want %d", header, reply.Error, sdk.CodeHeaderMismatch)
			}
		}
		if got := taskStatus(t, hs.URL, id); got != string(tool.TaskWorking) {
			t.Errorf("refused cancels left the task %s", got)
		}
		if status, reply := taskRPC(t, hs.URL, methodTasksCancel, map[string]any{"taskId": id}, id); status != http.StatusOK || reply.Error != nil {
			t.Errorf("a tasks/cancel with its Mcp-Name: HTTP %d, %+v", status, reply.Error)
		}
	})
}

// b64 is s in standard base64, as a header value of SEP-2243 carries it.
func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// The SDK's client sets Mcp-Name on tools/call, prompts/get and
// resources/read only; through Guard, a tasks/* request of 2026-07-28
// carries its taskId in it too (in base64 when it is not printable ASCII),
// or a server that checks it (toolmcp's) refuses RemoteTools' polls.
func TestWithTaskName(t *testing.T) {
	for _, tc := range []struct {
		name, method, body, header, want string
	}{
		{"tasks/get", methodTasksGet, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"abc"}}`, "", "abc"},
		{"tasks/cancel", methodTasksCancel, `{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"abc"}}`, "", "abc"},
		{"tasks/update", methodTasksUpdate, `{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"abc","inputResponses":{}}}`, "", "abc"},
		{"an id not printable ASCII", methodTasksGet, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"tâche 1"}}`, "", "=?base64?" + b64("tâche 1") + "?="},
		{"one already named", methodTasksGet, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"abc"}}`, "set", "set"},
		{"another method", "tools/list", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"taskId":"abc"}}`, "", ""},
		{"no taskId", methodTasksGet, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{}}`, "", ""},
		{"not JSON", methodTasksGet, `{"jsonrpc"`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", bytes.NewReader([]byte(tc.body)))
			req.Header.Set("Mcp-Method", tc.method)
			if tc.header != "" {
				req.Header.Set("Mcp-Name", tc.header)
			}
			got := withTaskName(req)
			if h := got.Header.Get("Mcp-Name"); h != tc.want {
				t.Errorf("Mcp-Name %q, want %q", h, tc.want)
			}
			if got != req && req.Header.Get("Mcp-Name") != tc.header {
				t.Error("the caller's request was changed")
			}
			if b, _ := io.ReadAll(got.Body); string(b) != tc.body {
				t.Errorf("body %q, want it unread", b)
			}
		})
	}
}

// listen opens a subscriptions/listen of 2026-07-28 asking for the status
// of the task id, as a client that declares caps, and returns what the
// stream brought: each message's method (the acknowledgement, the
// result's "result") and params or error.
func listen(t *testing.T, url, id string, caps map[string]any) (int, []map[string]json.RawMessage) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": methodListen, "params": map[string]any{
		"notifications": map[string]any{"taskIds": []string{id}},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    mrtrProtocol,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "0"},
			"io.modelcontextprotocol/clientCapabilities": caps,
		},
	}})
	resp, text := post(t, url, string(body), map[string]string{"Mcp-Protocol-Version": mrtrProtocol, "Mcp-Method": methodListen})
	var msgs []map[string]json.RawMessage
	for _, line := range strings.Split(text, "\n") {
		data, ok := strings.CutPrefix(line, "data:")
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			data, ok = line, line != ""
		}
		var m map[string]json.RawMessage
		if ok && json.Unmarshal([]byte(data), &m) == nil {
			msgs = append(msgs, m)
		}
	}
	return resp.StatusCode, msgs
}

// SEP-2663: a client that asks for task status notifications on
// subscriptions/listen without declaring the extension gets -32021,
// naming it; it was acknowledged as any other listen. One that declared
// it is acknowledged without taskIds: toolmcp agrees to send none (the SDK
// cannot send notifications/tasks; docs/mcp.md says why).
func TestTaskListen(t *testing.T) {
	reg, tasks := runsUntilCancelled(t)
	url, _ := serveHTTP(t, reg, &Options[struct{}]{Tasks: tasks}, nil)
	id := startRawTask(t, url, "wait")

	_, msgs := listen(t, url, id, map[string]any{})
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]["error"]), `"code":-32021`) || !strings.Contains(string(msgs[0]["error"]), TasksExtension) {
		t.Errorf("without the extension: %s, want one -32021 naming %s", msgs, TasksExtension)
	}

	_, msgs = listen(t, url, id, map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}})
	var acked bool
	for _, m := range msgs {
		if m["error"] != nil {
			t.Errorf("with the extension: %s", m["error"])
		}
		if string(m["method"]) == `"notifications/subscriptions/acknowledged"` {
			acked = true
			if strings.Contains(string(m["params"]), "taskIds") {
				t.Errorf("acknowledged %s, which agrees to task notifications toolmcp cannot send", m["params"])
			}
		}
	}
	if !acked {
		t.Errorf("with the extension: %s, want an acknowledgement", msgs)
	}
}
