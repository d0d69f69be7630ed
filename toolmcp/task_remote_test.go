package toolmcp

import (
	"context"
	"errors"
	"net/http/httptest"
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
