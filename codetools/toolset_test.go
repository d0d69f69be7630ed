package codetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

// TestConformance runs every tool through tooltest's rules, for real, on a
// temporary workspace.
func TestConformance(t *testing.T) {
	p := newProject(t, nil)
	tooltest.Conformance(t, tooltest.Suite{ValidArgs: map[string]string{
		"read_file":  `{"path":"main.go"}`,
		"list_dir":   `{"path":"."}`,
		"find":       `{"pattern":"*.go"}`,
		"grep":       `{"pattern":"hello","context":1}`,
		"edit_file":  `{"path":"README.md","old_string":"hello","new_string":"hi"}`,
		"write_file": `{"path":"conformance.txt","content":"x"}`,
		"run_shell":  `{"command":"echo hi","timeout_seconds":5}`,
	}}, p.ts.Tools()...)
}

// TestDefinitionsGolden: the definitions as a model sees them, with
// run_shell's description for the bubblewrap sandbox whatever this
// machine offers (a toolset told to use a sandbox it lacks describes it,
// and refuses every command).
func TestDefinitionsGolden(t *testing.T) {
	p := newProject(t, &codetools.Options{Sandbox: &codetools.SandboxOptions{Mode: process.SandboxBubblewrap}})
	tooltest.GoldenDefinitions(t, p.reg.Definitions(), "testdata/definitions.golden.json")
}

// TestSafetyClasses checks the classes approval policies read: reads are
// read-only and run without asking, writes are not.
func TestSafetyClasses(t *testing.T) {
	p := newProject(t, nil)
	want := map[string]tool.Safety{
		"read_file": tool.SafetyReadOnly, "list_dir": tool.SafetyReadOnly, "find": tool.SafetyReadOnly, "grep": tool.SafetyReadOnly,
		"edit_file": tool.SafetyMutating, "write_file": tool.SafetyMutating, "run_shell": tool.SafetyMutating,
	}
	for _, d := range p.ts.Tools() {
		def := d.Definition()
		if got := def.Safety; got != want[def.Name] {
			t.Errorf("%s: safety %s, want %s", def.Name, got, want[def.Name])
		}
	}
}

func TestForgetAndBoundedMemory(t *testing.T) {
	p := newProject(t, &codetools.Options{MaxRemembered: 2})
	for _, f := range []string{"main.go", "greet.go", "README.md"} {
		ok(t, p.call(t, "read_file", map[string]any{"path": f}))
	}
	// main.go was read first and is forgotten: two files are remembered.
	p.failed(t, p.call(t, "edit_file", map[string]any{"path": "main.go", "old_string": "world", "new_string": "you"}),
		"main.go has not been read in this conversation")
	ok(t, p.call(t, "edit_file", map[string]any{"path": "greet.go", "old_string": "Hello", "new_string": "Hi"}))
	p.ts.Forget()
	p.failed(t, p.call(t, "edit_file", map[string]any{"path": "README.md", "old_string": "hello", "new_string": "hi"}),
		"README.md has not been read")
}

// TestConversationsAreSeparate: two toolsets on one workspace, as two
// conversations of one host; what one read does not let the other edit.
func TestConversationsAreSeparate(t *testing.T) {
	p := newProject(t, nil)
	other := codetools.New(p.ts.Workspace(), nil)
	res := tooltest.Run(t, other.Tools()[0], `{"path":"greet.go"}`, nil)
	tooltest.WantOK(t, res)
	p.failed(t, p.call(t, "edit_file", map[string]any{"path": "greet.go", "old_string": "Hello", "new_string": "Hi"}),
		"has not been read in this conversation")
}

// TestSessionsAreSeparate: one toolset serving many sessions (an MCP
// server's), as one registry does; what one session's model read does not
// let another session's edit or overwrite, nor preview the edit as if it
// had been read.
func TestSessionsAreSeparate(t *testing.T) {
	p := newProject(t, nil)
	as := func(session, name string, args map[string]any) *tool.Result {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		return p.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c-" + session, Name: name, Args: b, Session: session})
	}
	ok(t, as("reader", "read_file", map[string]any{"path": "greet.go"}))
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"edit_file", map[string]any{"path": "greet.go", "old_string": "Hello", "new_string": "Hi"}},
		{"write_file", map[string]any{"path": "greet.go", "content": "package main\n", "overwrite": true}},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			p.failed(t, as("other", tt.tool, tt.args), "has not been read in this conversation")
		})
	}
	ok(t, as("reader", "edit_file", map[string]any{"path": "greet.go", "old_string": "Hello", "new_string": "Hi"}))
}

// BenchmarkConversationSetup is what a host pays per conversation: a
// Toolset over a shared workspace, and a registry with its tools.
func BenchmarkConversationSetup(b *testing.B) {
	p := newProject(b, nil)
	b.Run("toolset", func(b *testing.B) {
		for b.Loop() {
			if ts := codetools.New(p.ts.Workspace(), nil); len(ts.Tools()) != 7 {
				b.Fatal(fmt.Sprint(len(ts.Tools())))
			}
		}
	})
	b.Run("toolset+registry", func(b *testing.B) {
		for b.Loop() {
			reg := tool.NewRegistry[struct{}](nil)
			if err := reg.Add(codetools.New(p.ts.Workspace(), nil).Tools()...); err != nil {
				b.Fatal(err)
			}
		}
	})
}
