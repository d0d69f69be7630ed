package toolmcp

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// TestTypeScriptTasksClient has the tasks extension's TypeScript client
// (@modelcontextprotocol/ext-tasks 0.2.2, on the SDK v2 client) drive tasks
// served by NewHTTPHandler over HTTP at 2026-07-28, end to end
// (testdata/node/client_tasks.mjs checks the client's side): a task
// followed to its end, a task cancelled, an approval the task waits for
// (toolmcp.Approver, deferring to Answerer) answered through tasks/update:
// allowed by two answers that race and by a third once it ran, then
// denied. Here, the server's side: each tool ran as often as it should
// (the build once, the deploy once however many answers came), and the
// cancelled tool saw tasks/cancel's cause.
func TestTypeScriptTasksClient(t *testing.T) {
	nodeBin := node(t)
	var builds, deploys atomic.Int32
	cancelled := make(chan error, 1)
	reg := tool.NewRegistry[struct{}](nil)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: Approver(nil)}))
	reg.MustAdd(
		tool.New(tool.Definition{Name: "build", Description: "Builds a target.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
			func(ctx context.Context, in struct {
				Target string `json:"target"`
			}) (string, error) {
				builds.Add(1)
				tool.ReportProgress(ctx, tool.Progress{Message: "compiling " + in.Target})
				if err := pause(ctx, 300*time.Millisecond); err != nil {
					return "", err
				}
				return "built " + in.Target, nil
			}),
		tool.New(tool.Definition{Name: "forever", Description: "Runs until cancelled.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
			func(ctx context.Context, _ struct{}) (string, error) {
				<-ctx.Done()
				cancelled <- context.Cause(ctx)
				return "", context.Cause(ctx)
			}),
		tool.New(tool.Definition{Name: "deploy", Description: "Deploys to an environment.", Safety: tool.SafetyDestructive, Task: tool.TaskMay},
			func(_ context.Context, in struct {
				Env string `json:"env"`
			}) (string, error) {
				deploys.Add(1)
				return "deployed " + in.Env, nil
			}),
	)
	tasks := tool.NewTasks(reg, &tool.TaskOptions{Answerer: Answerer, PollInterval: 50 * time.Millisecond})
	t.Cleanup(tasks.Close)
	server := sdk.NewServer(&sdk.Implementation{Name: "tasks", Version: "v1"}, nil)
	AddTools(server, reg, &Options[struct{}]{Tasks: tasks})
	hs := httptest.NewServer(NewHTTPHandler(server, nil))
	t.Cleanup(hs.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, "client_tasks.mjs", hs.URL)
	cmd.Dir = nodeDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("client_tasks.mjs:\n%s", out.String())
	if err != nil {
		t.Fatalf("the TypeScript tasks client failed: %v", err)
	}

	if n := builds.Load(); n != 1 {
		t.Errorf("build ran %d times, want once", n)
	}
	if n := deploys.Load(); n != 1 {
		t.Errorf("deploy ran %d times, want once (allowed once, answered twice, then denied)", n)
	}
	select {
	case cause := <-cancelled:
		if !errors.Is(cause, tool.ErrTaskCancelled) {
			t.Errorf("forever's cause is %v, want tasks/cancel's (tool.ErrTaskCancelled)", cause)
		}
	default:
		t.Error("forever was not cancelled")
	}
}
