//go:build unix

package codetools_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestRunShell(t *testing.T) {
	p := newProject(t, nil)
	text := ok(t, p.call(t, "run_shell", `{"command":"echo out; echo err >&2; exit 3"}`))
	if !regexp.MustCompile(`^Exit code 3, after \d+ms\.\n--- stdout\nout\n--- stderr\nerr\n$`).MatchString(text) {
		t.Errorf("answer:\n%s", text)
	}
	text = ok(t, p.call(t, "run_shell", `{"command":"pwd; cat greet.go | grep -c func"}`))
	if !strings.Contains(text, p.dir+"\n1\n") {
		t.Errorf("the command did not run in the workspace root:\n%s", text)
	}
	text = ok(t, p.call(t, "run_shell", `{"command":"true"}`))
	if !strings.HasSuffix(text, "(no output)\n") {
		t.Errorf("no output: %s", text)
	}
	text = ok(t, p.call(t, "run_shell", `{"command":"kill -TERM $$"}`))
	if !strings.HasPrefix(text, "Killed by a signal (terminated)") {
		t.Errorf("signal: %s", text)
	}
	if res := p.call(t, "run_shell", `{"command":"   "}`); res.Status != tool.StatusInvalid {
		t.Errorf("a blank command: %s", res.Status)
	}
}

// TestRunShellTimeout: the command's own timeout stops it and what it
// started (TrackProcesses, through the project's environment, fails the
// test if a sleep survives).
func TestRunShellTimeout(t *testing.T) {
	p := newProject(t, nil)
	start := time.Now()
	res := p.call(t, "run_shell", `{"command":"echo started; sleep 30 & sleep 30","timeout_seconds":1}`)
	p.failed(t, res, "the command did not finish within its 1s timeout and was stopped, with everything it started", "started", "larger timeout_seconds")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if res := p.call(t, "run_shell", `{"command":"echo x","timeout_seconds":601}`); res.Status != tool.StatusInvalid {
		t.Errorf("a timeout over the cap: %s", res.Status)
	}
}

func TestRunShellCancel(t *testing.T) {
	p := newProject(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	res := p.reg.Call(ctx, struct{}{}, tool.Request{Name: "run_shell", Args: json.RawMessage(`{"command":"sleep 30"}`)})
	if res.Status != tool.StatusCanceled {
		t.Fatalf("%s: %s", res.Status, res.Text())
	}
}

// TestRunShellEnv: without Options.Env, commands get a small environment,
// not the host's secrets.
func TestRunShellEnv(t *testing.T) {
	t.Setenv("TOOLBELT_TEST_TOKEN", "HOST-SECRET")
	p := newProject(t, nil)
	ts := codetools.New(p.ts.Workspace(), nil)
	var shell tool.Definer
	for _, d := range ts.Tools() {
		if d.Definition().Name == "run_shell" {
			shell = d
		}
	}
	text := tooltest.Run(t, shell, `{"command":"env"}`, nil).Text()
	if strings.Contains(text, "HOST-SECRET") || !strings.Contains(text, "PATH=") || !strings.Contains(text, "TERM=dumb") {
		t.Fatalf("environment:\n%s", text)
	}
}

// TestRunShellLongOutput: the toolset keeps the head and tail of a
// flood; the registry cuts the answer to its cap and spills the rest,
// which read_output returns.
func TestRunShellLongOutput(t *testing.T) {
	p := newProject(t, &codetools.Options{MaxShellOutput: 200 << 10})
	res := p.call(t, "run_shell", `{"command":"seq 1 100000"}`)
	text := ok(t, res)
	if res.Truncated == 0 || len(text) > 40<<10 {
		t.Fatalf("the answer was not cut: %d bytes, %d truncated", len(text), res.Truncated)
	}
	m := regexp.MustCompile(`call read_output with \{"cursor":"([^"]+)"\}`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no read_output cursor in:\n%s", text[len(text)-500:])
	}
	more := ok(t, p.call(t, tool.ReadOutputTool, map[string]any{"cursor": m[1]}))
	if !regexp.MustCompile(`\n\d+\n\d+\n`).MatchString(more) {
		t.Fatalf("read_output: %s", more[:200])
	}
	// What the toolset itself dropped is marked, with the count.
	if !strings.Contains(text+more, "bytes") {
		t.Error("no marker of the dropped middle")
	}
}
