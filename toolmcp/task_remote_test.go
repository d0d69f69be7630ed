package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// taskServer serves, over HTTP, tools that run only as tasks: build ends
// after a while, forever runs until cancelled and sends its cause.
func taskServer(t *testing.T, cancelled chan<- error) string {
	t.Helper()
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(
		tool.New(tool.Definition{Name: "build", Description: "Builds.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
			func(ctx context.Context, _ struct{}) (string, error) {
				tool.ReportProgress(ctx, tool.Progress{Message: "compiling"})
				if err := pause(ctx, 300*time.Millisecond); err != nil {
					return "", err
				}
				return "built", nil
			}),
		tool.New(tool.Definition{Name: "forever", Description: "Runs until cancelled.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
			func(ctx context.Context, _ struct{}) (string, error) {
				<-ctx.Done()
				cancelled <- context.Cause(ctx)
				return "", context.Cause(ctx)
			}),
	)
	tasks := tool.NewTasks(reg, &tool.TaskOptions{Answerer: Answerer, PollInterval: 50 * time.Millisecond})
	t.Cleanup(tasks.Close)
	server := sdk.NewServer(&sdk.Implementation{Name: "tasks", Version: "v1"}, nil)
	AddTools(server, reg, &Options[struct{}]{Tasks: tasks})
	hs := httptest.NewServer(NewHTTPHandler(server, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// Through the Go SDK's client at protocol 2026-07-28 over HTTP: a remote
// tool that runs only as a task is offered, called, followed to its end,
// and cancelled with its caller's context.
func TestRemoteTaskTools(t *testing.T) {
	cancelled := make(chan error, 1)
	url := taskServer(t, cancelled)
	ctx := context.Background()
	cs, err := NewClient(&sdk.Implementation{Name: "host", Version: "v1"}, nil).
		Connect(ctx, Guard(&sdk.StreamableClientTransport{Endpoint: url}, nil), &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	reg := tool.NewRegistry[struct{}](nil)
	added, err := AddRemoteTools(ctx, reg, cs, nil)
	if err != nil || len(added) != 2 {
		t.Fatalf("added %v, %v: want build and forever", added, err)
	}
	if tl, _ := reg.Lookup("build"); tl.Definition().Task != tool.TaskMay {
		t.Errorf("a remote task tool's Task is %v, want may", tl.Definition().Task)
	}

	res := reg.Call(ctx, struct{}{}, tool.Request{Name: "build"})
	if res.Status != tool.StatusOK || res.Text() != "built" {
		t.Errorf("build: %v %q (%v), want the task's result", res.Status, res.Text(), res.Err)
	}

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	res = reg.Call(cctx, struct{}{}, tool.Request{Name: "forever"})
	if res.Status != tool.StatusCanceled {
		t.Errorf("forever: %v %q, want cancelled by the caller's context", res.Status, res.Text())
	}
	select {
	case cause := <-cancelled:
		if !errors.Is(cause, tool.ErrTaskCancelled) {
			t.Errorf("the remote tool's cause is %v, want tasks/cancel's", cause)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the remote task was not cancelled")
	}
}

// rawResult is a result a test server sends as it is.
type rawResult struct {
	sdk.ResultBase
	raw string
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return []byte(r.raw), nil }

// A remote server's task handle that names no task RemoteTools can follow
// (no taskId, an empty one, one of another type, one over 1 KiB) fails the
// call, saying so, and nothing is polled. One without a taskId was taken
// for an empty result the server gave at once (StatusOK, no content), and
// a taskId of megabytes was sent back in every poll. A handle whose _meta
// is null is followed (it brought the client down: the guard panicked).
func TestRemoteTaskBadHandles(t *testing.T) {
	for _, tc := range []struct{ name, handle, want string }{
		{"without a taskId", `{"resultType":"task","status":"working"}`, "not a string of 1 to 1024 bytes"},
		{"with an empty taskId", `{"resultType":"task","taskId":"","status":"working"}`, "not a string of 1 to 1024 bytes"},
		{"with a number", `{"resultType":"task","taskId":12,"status":"working"}`, "not a string of 1 to 1024 bytes"},
		{"with an object", `{"resultType":"task","taskId":{"id":"t1"},"status":"working"}`, "not a string of 1 to 1024 bytes"},
		{"with a taskId of 2 KiB", `{"resultType":"task","taskId":"` + strings.Repeat("t", 2048) + `","status":"working"}`, "not a string of 1 to 1024 bytes"},
		{"with a null _meta", `{"resultType":"task","taskId":"t1","status":"working","_meta":null}`, "could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, polls := callRawResult(t, tc.handle)
			if res.Status == tool.StatusOK || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("%v %q, want a failure saying %q", res.Status, res.Text(), tc.want)
			}
			if tc.want != "could not be read" && polls != 0 {
				t.Errorf("polled %d times a task it cannot name", polls)
			}
		})
	}
}

// A server's plain result that carries the key under which the guard
// keeps a task's handle is not followed as a task, however the server
// writes it: in its _meta, escaped, in a second _meta (the SDK's decoder
// merges the two), or under a _meta spelled in other cases (which the
// SDK's decoder, unlike encoding/json, does not take for _meta).
func TestRemoteTaskForgedHandles(t *testing.T) {
	for _, tc := range []struct{ name, result string }{
		{"in its _meta", `{"content":[{"type":"text","text":"done"}],"_meta":{"io.github.toolbelt-go/task":{"taskId":"t1","status":"working"}}}`},
		{"escaped", `{"content":[{"type":"text","text":"done"}],"_meta":{"io.github.toolbelt\u002dgo/task":{"taskId":"t1","status":"working"}}}`},
		{"in the first of two _meta", `{"content":[{"type":"text","text":"done"}],"_meta":{"io.github.toolbelt-go/task":{"taskId":"t1","status":"working"}},"_meta":{"k":1}}`},
		{"in the second of two _meta", `{"content":[{"type":"text","text":"done"}],"_meta":{"k":1},"_meta":{"io.github.toolbelt-go/task":{"taskId":"t1","status":"working"}}}`},
		{"in a _meta of other cases", `{"content":[{"type":"text","text":"done"}],"_mEta":{"io.github.toolbelt-go/task":{"taskId":"t1","status":"working"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, polls := callRawResult(t, tc.result)
			if res.Status != tool.StatusOK || res.Text() != "done" || polls != 0 {
				t.Errorf("%v %q after %d polls, want the result as it came, never followed as a task", res.Status, res.Text(), polls)
			}
		})
	}
}

// callRawResult calls, through RemoteTools and the guard, a tool whose
// server answers tools/call with result as written, and returns what the
// call gave and how many times the server was polled for a task.
func callRawResult(t *testing.T, result string) (*tool.Result, int32) {
	t.Helper()
	var polls atomic.Int32
	server := sdk.NewServer(&sdk.Implementation{Name: "raw-results", Version: "v1"}, nil)
	reg, tasks := runsUntilCancelled(t)
	AddTools(server, reg, &Options[struct{}]{Tasks: tasks})
	// Added last, it is the first to see a request.
	server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			switch method {
			case "tools/call":
				return &rawResult{raw: result}, nil
			case methodTasksGet:
				polls.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	hs := httptest.NewServer(NewHTTPHandler(server, nil))
	t.Cleanup(hs.Close)
	ctx := context.Background()
	cs, err := NewClient(&sdk.Implementation{Name: "host", Version: "v1"}, nil).
		Connect(ctx, Guard(&sdk.StreamableClientTransport{Endpoint: hs.URL}, nil), &sdk.ClientSessionOptions{ProtocolVersion: mrtrProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	host := tool.NewRegistry[struct{}](nil)
	if _, err := AddRemoteTools(ctx, host, cs, nil); err != nil {
		t.Fatal(err)
	}
	return host.Call(ctx, struct{}{}, tool.Request{Name: "wait"}), polls.Load()
}

// serveTasks serves reg's tools, as tasks, over NewHTTPHandler, with mw
// (if any) the first to see each request, and returns the endpoint.
func serveTasks(t *testing.T, reg *tool.Registry[struct{}], mw sdk.Middleware) string {
	t.Helper()
	tasks := tool.NewTasks(reg, &tool.TaskOptions{Answerer: Answerer, PollInterval: 20 * time.Millisecond})
	t.Cleanup(tasks.Close)
	server := sdk.NewServer(&sdk.Implementation{Name: "tasks", Version: "v1"}, nil)
	AddTools(server, reg, &Options[struct{}]{Tasks: tasks})
	if mw != nil {
		server.AddReceivingMiddleware(mw) // added last, it is the first to see a request
	}
	hs := httptest.NewServer(NewHTTPHandler(server, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// remoteRegistry is a registry of the tools of the server at url, as
// RemoteTools gives them, at protocol 2026-07-28.
func remoteRegistry(t *testing.T, url string) *tool.Registry[struct{}] {
	t.Helper()
	ctx := context.Background()
	cs, err := NewClient(&sdk.Implementation{Name: "host", Version: "v1"}, nil).
		Connect(ctx, Guard(&sdk.StreamableClientTransport{Endpoint: url}, nil), &sdk.ClientSessionOptions{ProtocolVersion: mrtrProtocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	reg := tool.NewRegistry[struct{}](nil)
	if _, err := AddRemoteTools(ctx, reg, cs, nil); err != nil {
		t.Fatal(err)
	}
	return reg
}

// rawTask is a task as tasks/get gives it to a raw client.
type rawTask struct {
	Status        string                     `json:"status"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	Result        struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

func getRawTask(t *testing.T, url, id string) rawTask {
	t.Helper()
	_, reply := taskRPC(t, url, methodTasksGet, map[string]any{"taskId": id}, id)
	var task rawTask
	if err := json.Unmarshal(reply.Result, &task); err != nil {
		t.Fatalf("tasks/get: %s %+v", reply.Result, reply.Error)
	}
	return task
}

// A remote task's questions (a remote tool asks with AskInput while it
// runs as a task) and where they go, each way RemoteTools can be called:
//
//   - in a task a client follows (here an MCP client of a server that
//     serves the remote tool again, as a task): the question reaches that
//     client as its task's input request, once, however many polls of the
//     remote task still show it after the answer (SEP-2663 lets tasks/get
//     lag behind tasks/update: it was asked again, and answered twice);
//     the answer reaches the remote tool;
//   - in a call that is not a task: nobody can be asked, the call fails
//     saying so, and the remote task is cancelled;
//   - in a task cancelled while its client is asked: the remote task is
//     cancelled too.
func TestRemoteTaskQuestions(t *testing.T) {
	// B asks, as its task, whose build it is. Its tasks/get lags: after
	// each tasks/update, the next poll shows the task as it was.
	cancelled := make(chan error, 4)
	var updates atomic.Int32
	b := tool.NewRegistry[struct{}](nil)
	b.MustAdd(tool.New(tool.Definition{Name: "build_for", Description: "Asks whose build, then builds.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
		func(ctx context.Context, _ struct{}) (string, error) {
			got, err := AskInput(ctx, sdk.InputRequestMap{"owner": &sdk.ElicitParams{Message: "Whose build is it?\u202e",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}})
			if err != nil {
				cancelled <- context.Cause(ctx)
				return "", err
			}
			r, _ := got["owner"].(*sdk.ElicitResult)
			if r == nil {
				return "", errors.New("no answer")
			}
			return fmt.Sprintf("built for %v", r.Content["name"]), nil
		}))
	var mu sync.Mutex
	var last sdk.Result
	stale := false
	urlB := serveTasks(t, b, func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			mu.Lock()
			if method == methodTasksGet && stale {
				stale = false
				res := last
				mu.Unlock()
				return res, nil
			}
			mu.Unlock()
			res, err := next(ctx, method, req)
			mu.Lock()
			defer mu.Unlock()
			switch method {
			case methodTasksGet:
				if w, ok := res.(*taskWire); ok && w.Status == string(tool.TaskInputRequired) {
					last = res
				}
			case methodTasksUpdate:
				updates.Add(1)
				stale = true
			}
			return res, err
		}
	})
	wantCancelled := func(t *testing.T) {
		t.Helper()
		select {
		case cause := <-cancelled:
			if !errors.Is(cause, tool.ErrTaskCancelled) {
				t.Errorf("the remote tool's cause is %v, want tasks/cancel's", cause)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the remote task was not cancelled")
		}
	}

	// A serves B's tool again, as a task, to its own clients.
	urlA := serveTasks(t, remoteRegistry(t, urlB), nil)

	t.Run("in a task a client follows: asked once, answered", func(t *testing.T) {
		updates.Store(0)
		id := startRawTask(t, urlA, "build_for")
		asked := map[string]bool{}
		var task rawTask
		for deadline := time.Now().Add(20 * time.Second); task.Status != string(tool.TaskCompleted); {
			if time.Now().After(deadline) {
				t.Fatalf("the task is %s after %d questions to the client, want completed after one", task.Status, len(asked))
			}
			time.Sleep(20 * time.Millisecond)
			task = getRawTask(t, urlA, id)
			for key, q := range task.InputRequests {
				if asked[key] {
					continue
				}
				asked[key] = true
				if !strings.Contains(string(q), "Whose build is it?") || !strings.Contains(string(q), "elicitation/create") {
					t.Errorf("the client was asked %s, want the remote tool's question", q)
				}
				if strings.Contains(string(q), "\u202e") || !strings.Contains(string(q), `it?\\u202e`) {
					t.Errorf("the client was asked %s, want the remote server's hidden character shown, escaped", q)
				}
				answer := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}
				if _, reply := taskRPC(t, urlA, methodTasksUpdate, map[string]any{"taskId": id, "inputResponses": answer}, id); reply.Error != nil {
					t.Fatalf("tasks/update: %+v", reply.Error)
				}
			}
		}
		if len(asked) != 1 || updates.Load() != 1 {
			t.Errorf("the client was asked %d questions, and the remote task answered %d times; want once each", len(asked), updates.Load())
		}
		if len(task.Result.Content) != 1 || task.Result.Content[0].Text != "built for Ada" {
			t.Errorf("the result is %+v, want the remote tool's, with the answer", task.Result)
		}
	})

	t.Run("in a call that is not a task: the remote task is cancelled", func(t *testing.T) {
		res := remoteRegistry(t, urlB).Call(context.Background(), struct{}{}, tool.Request{Name: "build_for"})
		if res.Status == tool.StatusOK || !strings.Contains(res.Text(), "cannot relay") || !strings.Contains(res.Text(), "cancelled") {
			t.Errorf("%v %q, want a failure saying the question could not be relayed", res.Status, res.Text())
		}
		wantCancelled(t)
	})

	t.Run("in a task cancelled while its client is asked: the remote task is cancelled", func(t *testing.T) {
		id := startRawTask(t, urlA, "build_for")
		for deadline := time.Now().Add(20 * time.Second); getRawTask(t, urlA, id).Status != string(tool.TaskInputRequired); {
			if time.Now().After(deadline) {
				t.Fatal("the question did not reach the client")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if _, reply := taskRPC(t, urlA, methodTasksCancel, map[string]any{"taskId": id}, id); reply.Error != nil {
			t.Fatalf("tasks/cancel: %+v", reply.Error)
		}
		wantCancelled(t)
	})
}

// A tasks/get that fails is read again at the next poll; three failures
// in a row end the call, and the remote task is asked to stop (it ran on,
// followed by no one).
func TestRemoteTaskReadFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fails int32
		want  tool.Status
	}{
		{"two failures, then read", 2, tool.StatusOK},
		{"three failures in a row", 1 << 30, tool.StatusFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cancelled := make(chan error, 1)
			b := tool.NewRegistry[struct{}](nil)
			b.MustAdd(tool.New(tool.Definition{Name: "job", Description: "Runs a while.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
				func(ctx context.Context, _ struct{}) (string, error) {
					if err := pause(ctx, 500*time.Millisecond); err != nil {
						cancelled <- context.Cause(ctx)
						return "", err
					}
					return "done", nil
				}))
			var gets atomic.Int32
			url := serveTasks(t, b, func(next sdk.MethodHandler) sdk.MethodHandler {
				return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
					if method == methodTasksGet && gets.Add(1) <= tc.fails {
						return nil, errors.New("the store is down")
					}
					return next(ctx, method, req)
				}
			})
			res := remoteRegistry(t, url).Call(context.Background(), struct{}{}, tool.Request{Name: "job"})
			if res.Status != tc.want {
				t.Fatalf("%v %q, want %v", res.Status, res.Text(), tc.want)
			}
			if tc.want == tool.StatusOK {
				return
			}
			if !strings.Contains(res.Text(), "could not be read 3 times in a row, so it was asked to stop") {
				t.Errorf("%q, want it to say why it stopped following", res.Text())
			}
			select {
			case cause := <-cancelled:
				if !errors.Is(cause, tool.ErrTaskCancelled) {
					t.Errorf("the remote tool's cause is %v, want tasks/cancel's", cause)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the remote task was not asked to stop")
			}
		})
	}
}
