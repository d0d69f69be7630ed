package promises

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/internal/sandboxtest"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/workspace"
)

// sandboxKind is where a world's commands run: nowhere (a stand-in shell
// that records what it was handed), or codetools' run_shell under a real
// sandbox, in a workspace of its own, where the file system says what ran.
type sandboxKind struct {
	name string
	mode process.SandboxMode // SandboxNone: the stand-in
}

func sandboxes() []sandboxKind {
	return []sandboxKind{
		{name: "a stand-in shell", mode: process.SandboxNone},
		{name: "run_shell under bubblewrap", mode: process.SandboxBubblewrap},
		{name: "run_shell under Landlock", mode: process.SandboxLandlock},
	}
}

// real reports whether commands run for real, under a sandbox.
func (sb sandboxKind) real() bool { return sb.mode != process.SandboxNone }

// need skips (or, under sandboxtest.RequireEnv, fails) t when the
// sandbox cannot run here.
func (sb sandboxKind) need(t *testing.T) {
	if sb.real() {
		sandboxtest.Need(t, sb.mode)
	}
}

// runShell is codetools' run_shell in the workspace at dir, under sb's
// sandbox, offered as "shell" (the name every scenario calls) and as a
// tool that may run as a task (which run_shell, a call of at most ten
// minutes, does not say of itself), its approval hooks its own.
func (sb sandboxKind) runShell(t *testing.T, dir string) tool.AnyTool {
	t.Helper()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := codetools.New(ws, &codetools.Options{Sandbox: &codetools.SandboxOptions{Mode: sb.mode}})
	if mode, why := ts.Sandbox(); mode != sb.mode {
		t.Fatalf("run_shell's sandbox is %s, not %s: %s", mode, sb.mode, why)
	}
	for _, d := range ts.Tools() {
		if a, ok := d.(tool.AnyTool); ok && a.Definition().Name == "run_shell" {
			return &asShell{AnyTool: a}
		}
	}
	t.Fatal("codetools offers no run_shell")
	return nil
}

// asShell is run_shell as the scenarios call it.
type asShell struct{ tool.AnyTool }

func (s *asShell) Definition() tool.Definition {
	d := s.AnyTool.Definition()
	d.Name, d.Task = "shell", tool.TaskMay
	return d
}

func (s *asShell) Unwrap() any { return s.AnyTool }

// newWorkspace is the tree a world's commands run in: a source file that
// no scenario may delete.
func newWorkspace(t *testing.T) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// recorder notes each command that reaches run_shell, after approval and
// every other stage: what it is handed is what runs.
func (w *world) recorder() tool.Middleware[struct{}] {
	return func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
		return func(ctx context.Context, call *tool.Call[struct{}]) *tool.Result {
			var in shellArgs
			if json.Unmarshal(call.Args(), &in) == nil {
				w.mu.Lock()
				w.commands = append(w.commands, in.Command)
				w.mu.Unlock()
			}
			return next(ctx, call)
		}
	}
}

// checkFiles checks, for a world whose commands ran for real, that the
// file system agrees with what must have run: each file a scenario's
// touch names exists if and only if that touch had to run, and the
// source no delete was allowed to remove is there.
func checkFiles(t *testing.T, w *world, sc scenario, want want) {
	t.Helper()
	if w.dir == "" {
		return
	}
	commands := []string{sc.command, sc.answer.command}
	if sc.then != nil {
		commands = append(commands, sc.then.command)
	}
	for _, c := range commands {
		name, ok := strings.CutPrefix(c, "touch ")
		if !ok {
			continue
		}
		_, err := os.Stat(filepath.Join(w.dir, name))
		if exists, must := err == nil, slices.Contains(want.ran, c); exists != must {
			t.Errorf("%s: the file system says %q ran: %v, want %v", promiseAllowed, c, exists, must)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "src", "main.go")); err != nil {
		t.Errorf("%s: src/main.go is gone (%v), and no delete may run", promiseAllowed, err)
	}
}
