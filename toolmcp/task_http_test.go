package toolmcp

import (
	"bytes"
	"context"
	"encoding/base64"
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
