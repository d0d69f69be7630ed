package toolmcp

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// TestServerEverything puts the tools of the MCP reference server (npm
// @modelcontextprotocol/server-everything, over stdio) behind a Registry:
// they are listed, called through the registry's pipeline (its preflight
// against their schemas, its approval, its events), progress included.
func TestServerEverything(t *testing.T) {
	nodeBin := node(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.Command(nodeBin, nodeModule(t, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio")
	cs, err := NewClient(&sdk.Implementation{Name: "toolbelt-test", Version: "v0.0.1"}, nil).
		Connect(ctx, Guard(&sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// The SDK closes the server's stdin, then sends SIGTERM a second
		// later (this server does not exit on end of input), and waits.
		if err := cs.Close(); err != nil {
			t.Logf("closing: %v", err)
		}
		if cmd.ProcessState == nil {
			t.Errorf("server-everything was not waited for")
		}
	}()

	var mu sync.Mutex
	var progress []tool.Progress
	var approvals []string
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: tool.ObserverFunc(func(e tool.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case tool.EventProgress:
			progress = append(progress, e.Progress)
		case tool.EventApprovalRequested:
			approvals = append(approvals, e.Tool)
		}
	})})
	// Allow everything, but see that writes were asked about: the remote
	// tools go through the same approval step as local ones.
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(
		func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
		})}))
	added, err := AddRemoteTools(ctx, reg, cs, &RemoteOptions{Prefix: "everything_", TrustAnnotations: true})
	t.Logf("added %d tools: %v; left out: %v", len(added), added, err)
	// Its one tool that runs only as a task (execution.taskSupport
	// "required") is left out, by name, and nothing else is.
	if err == nil || !strings.Contains(err.Error(), `"simulate-research-query"`) || !strings.Contains(err.Error(), "only as a task") ||
		strings.Count(err.Error(), "left out") != 1 || strings.Contains(strings.Join(added, " "), "simulate-research-query") {
		t.Errorf("tools left out: %v", err)
	}
	for _, want := range []string{"everything_echo", "everything_get-sum", "everything_get-tiny-image", "everything_trigger-long-running-operation"} {
		if !strings.Contains(strings.Join(added, " "), want) {
			t.Errorf("%s was not added", want)
		}
	}

	run := func(name, args string) *tool.Result {
		return reg.Call(ctx, struct{}{}, tool.Request{ID: "c-" + name, Name: name, Args: json.RawMessage(args)})
	}
	if res := run("everything_echo", `{"message":"hello"}`); res.Status != tool.StatusOK || res.Text() != "Echo: hello" {
		t.Errorf("echo: %s %q", res.Status, res.Text())
	}
	if res := run("everything_get-sum", `{"a":2,"b":40}`); res.Status != tool.StatusOK || !strings.Contains(res.Text(), "42") {
		t.Errorf("get-sum: %s %q", res.Status, res.Text())
	}
	// The registry's preflight checks the remote schema before the server
	// sees anything.
	if res := run("everything_get-sum", `{"a":"2","b":40}`); res.Status != tool.StatusInvalid || !strings.Contains(res.Text(), "/a") {
		t.Errorf("get-sum with a string: %s %q", res.Status, res.Text())
	}
	if res := run("everything_get-tiny-image", `{}`); res.Status != tool.StatusOK || !hasContent(res, tool.ContentImage) {
		t.Errorf("get-tiny-image: %s %q", res.Status, res.Text())
	}
	res := run("everything_trigger-long-running-operation", `{"duration":0.6,"steps":3}`)
	if res.Status != tool.StatusOK {
		t.Errorf("long-running operation: %s %q", res.Status, res.Text())
	}
	mu.Lock()
	// Steps are 200 ms apart, so all but perhaps the last (read with the
	// result) reach the caller.
	if len(progress) < 2 || progress[0].Done != 1 || progress[0].Total != 3 {
		t.Errorf("progress: %+v", progress)
	}
	mu.Unlock()
	if res := run("everything_toggle-simulated-logging", `{}`); res.Status != tool.StatusOK {
		t.Errorf("toggle-simulated-logging: %s %q", res.Status, res.Text())
	}
	mu.Lock()
	if strings.Join(approvals, " ") != "everything_toggle-simulated-logging" {
		t.Errorf("asked about %v; want only the tool that is not read-only", approvals)
	}
	mu.Unlock()
}

func hasContent(res *tool.Result, typ string) bool {
	for _, c := range res.Content {
		if c.Type == typ {
			return true
		}
	}
	return false
}
