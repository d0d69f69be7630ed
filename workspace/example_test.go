package workspace_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/workspace"
)

func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=secret\n"), 0o644)

	ws, err := workspace.Open(dir, &workspace.Options{ReadOnly: []string{"vendor/"}})
	if err != nil {
		panic(err)
	}
	defer ws.Close()

	data, err := ws.ReadFile("./main.go")
	fmt.Printf("%q %v\n", data, err)
	for _, name := range []string{"../../etc/passwd", ".env", "vendor/x.go"} {
		err := ws.WriteFile(name, []byte("x"))
		var te *tool.Error
		errors.As(err, &te) // every refusal is a *tool.Error for the model
		fmt.Println(te.Message)
		fmt.Println("  hint:", te.Hint)
		fmt.Println("  host:", errors.Is(err, workspace.ErrOutside), errors.Is(err, workspace.ErrDenied), errors.Is(err, workspace.ErrReadOnly))
	}
	// Output:
	// "package main\n" <nil>
	// path escapes the workspace: "../../etc/passwd"
	//   hint: paths are relative to the workspace root ("." is the root itself); absolute paths must lie inside it
	//   host: true false false
	// path is protected: ".env" is on the workspace's deny list, so tools can neither read nor write it
	//   hint: do not try to reach it another way; if you need what it holds, ask the user
	//   host: false true false
	// path is read-only: the workspace lets tools read "vendor/x.go" but not change it
	//   hint: leave it as it is, or ask the user to change it
	//   host: false false true
}

func ExamplePatterns() {
	p, _ := workspace.ParsePatterns("*.log\n!keep.log\nbuild/\n/docs/*.md")
	for _, c := range []struct {
		name  string
		isDir bool
	}{{"debug.log", false}, {"sub/keep.log", false}, {"build", true}, {"build", false}, {"docs/a.md", false}, {"x/docs/a.md", false}} {
		m, _ := p.Match(c.name, c.isDir)
		fmt.Println(c.name, c.isDir, m)
	}
	// Output:
	// debug.log false true
	// sub/keep.log false false
	// build true true
	// build false false
	// docs/a.md false true
	// x/docs/a.md false false
}
