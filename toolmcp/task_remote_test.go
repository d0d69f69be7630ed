package toolmcp

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
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
			var polls atomic.Int32
			server := sdk.NewServer(&sdk.Implementation{Name: "bad-handles", Version: "v1"}, nil)
			reg, tasks := runsUntilCancelled(t)
			AddTools(server, reg, &Options[struct{}]{Tasks: tasks})
			// Added last, it is the first to see a request.
			server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
				return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
					switch method {
					case "tools/call":
						return &rawResult{raw: tc.handle}, nil
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
			res := host.Call(ctx, struct{}{}, tool.Request{Name: "wait"})
			if res.Status == tool.StatusOK || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("%v %q, want a failure saying %q", res.Status, res.Text(), tc.want)
			}
			if n := polls.Load(); tc.want != "could not be read" && n != 0 {
				t.Errorf("polled %d times a task it cannot name", n)
			}
		})
	}
}
