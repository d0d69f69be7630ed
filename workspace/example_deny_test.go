package workspace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/toolbelt-go/tool/workspace"
)

// The deny list extended with a name of the host's, and a name carved out
// of it, in .gitignore syntax.
func ExampleOpen() {
	repo, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(repo)
	for _, name := range []string{"app.sqlite", "prod.tfvars", "example.tfvars"} {
		os.WriteFile(filepath.Join(repo, name), []byte("x = 1\n"), 0o644)
	}

	deny := append(slices.Clone(workspace.DefaultDeny), "*.sqlite", "!example.tfvars")
	ws, err := workspace.Open(repo, &workspace.Options{Deny: deny})
	if err != nil {
		panic(err)
	}
	defer ws.Close()

	for _, name := range []string{"app.sqlite", "prod.tfvars", "example.tfvars"} {
		if _, err := ws.ReadFile(name); err != nil {
			fmt.Println(name, "refused")
		} else {
			fmt.Println(name, "read")
		}
	}
	// Output:
	// app.sqlite refused
	// prod.tfvars refused
	// example.tfvars read
}
