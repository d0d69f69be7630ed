package codetools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/workspace"
)

func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.go"), []byte("package hello\n// Greeting is what it says.\nconst Greeting = \"hello\"\n"), 0o644)

	ws, err := workspace.Open(dir, nil)
	if err != nil {
		panic(err)
	}
	defer ws.Close()
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(codetools.New(ws, nil).Tools()...)

	call := func(name, args string) {
		res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: name, Args: []byte(args)})
		fmt.Printf("%s -> %s\n%s\n", name, res.Status, res.Text())
	}
	call("read_file", `{"path":"hello.go"}`)
	call("edit_file", `{"path":"hello.go","old_string":"\"hello\"","new_string":"\"hi\""}`)
	call("read_file", `{"path":"../../etc/passwd"}`)
	// Output:
	// read_file -> ok
	// hello.go (3 lines)
	//    1	package hello
	//    2	// Greeting is what it says.
	//    3	const Greeting = "hello"
	//
	// edit_file -> ok
	// Edited hello.go: replaced 1 occurrence at line 3.
	// @@ line 1
	//   package hello
	//   // Greeting is what it says.
	// - const Greeting = "hello"
	// + const Greeting = "hi"
	//
	// read_file -> failed
	// Error: path escapes the workspace: "../../etc/passwd"
	// Hint: paths are relative to the workspace root ("." is the root itself); absolute paths must lie inside it
}

func ExampleClassifyCommand() {
	for _, c := range []string{"git status", "go test ./...", "curl https://example.com", "rm -rf build", "ls > files.txt", "cat $(ls)"} {
		fmt.Printf("%-26s %v\n", c, codetools.ClassifyCommand(c))
	}
	// Output:
	// git status                 read-only
	// go test ./...              mutating
	// curl https://example.com   network
	// rm -rf build               destructive
	// ls > files.txt             destructive
	// cat $(ls)                  mutating
}

// The toolset's run_shell offered to the model as shell: its classifier,
// its sandbox and its questions come with it.
func Example_rename() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		panic(err)
	}
	defer ws.Close()
	reg := tool.NewRegistry[struct{}](nil)
	for _, t := range codetools.New(ws, nil).Tools() {
		if t.Definition().Name == "run_shell" {
			t = tool.Rename(t.(tool.AnyTool), "shell")
		}
		reg.MustAdd(t)
	}
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AskForWritesPolicy(),
		Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			return tool.Decision{Kind: tool.DecisionDeny}, nil // a dry run asks no one
		})}))
	for _, command := range []string{"git status", "rm -rf build"} {
		res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "shell", Args: []byte(`{"command":"` + command + `"}`), DryRun: true})
		fmt.Printf("%s: %s, %s\n", command, res.DryRun.Safety, res.DryRun.Verdict)
	}
	// Output:
	// git status: read-only, allow
	// rm -rf build: destructive, ask
}
