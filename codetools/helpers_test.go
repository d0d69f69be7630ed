package codetools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
	"github.com/toolbelt-go/tool/workspace"
)

// project is a small repository in a temporary directory, with the toolset
// registered in a registry the way a host would.
type project struct {
	dir  string // the workspace root
	tmp  string // its parent, which holds a sibling with a secret
	ts   *codetools.Toolset
	reg  *tool.Registry[struct{}]
	sent string // the arguments of the last call
}

var projectFiles = map[string]string{
	"go.mod":               "module example.com/demo\n\ngo 1.25\n",
	"main.go":              "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greet(\"world\"))\n}\n",
	"greet.go":             "package main\n\n// greet says hello.\nfunc greet(name string) string {\n\treturn \"Hello, \" + name\n}\n",
	"greet_test.go":        "package main\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tif greet(\"x\") != \"Hello, x\" {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n",
	"README.md":            "# demo\n\nSays hello.\n",
	".env":                 "API_TOKEN=ENV-SECRET\n",
	".gitignore":           "build/\n*.log\n",
	"build/out.txt":        "hello from build\n",
	"debug.log":            "hello from the log\n",
	"docs/guide.md":        "# Guide\n\nhello docs\n",
	"docs/.gitignore":      "draft.md\n",
	"docs/draft.md":        "hello draft\n",
	"vendor/lib/lib.go":    "package lib // hello vendor\n",
	"../outside/passwd":    "root:x:0:0:OUTSIDE-SECRET\n",
	"../app2/secret.txt":   "OUTSIDE-SECRET\n",
	"internal/a/a.go":      "package a\n\nfunc A() {} // hello a\n",
	"internal/a/a_test.go": "package a\n",
}

func newProject(t testing.TB, opts *codetools.Options) *project {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &project{tmp: tmp, dir: filepath.Join(tmp, "app")}
	for name, content := range projectFiles {
		p.write(t, name, content)
	}
	ws, err := workspace.Open(p.dir, &workspace.Options{ReadOnly: []string{"vendor/"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if opts == nil {
		opts = &codetools.Options{}
	}
	if opts.Env == nil {
		opts.Env = tooltest.TrackProcesses(t, append(process.MinimalEnv(), "TERM=dumb", "NO_COLOR=1")) // what the toolset gives by default
	}
	p.ts = codetools.New(ws, opts)
	p.reg = tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	if err := p.reg.Add(p.ts.Tools()...); err != nil {
		t.Fatal(err)
	}
	return p
}

// write creates a file under the workspace root (or beside it, with ../).
func (p *project) write(t testing.TB, name, content string) {
	t.Helper()
	path := filepath.Join(p.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (p *project) read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// call runs one call through the registry, as the model would make it.
func (p *project) call(t testing.TB, name string, args any) *tool.Result {
	t.Helper()
	b, ok := args.(string)
	if !ok {
		j, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		b = string(j)
	}
	p.sent = b
	return p.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call", Name: name, Args: json.RawMessage(b), Session: "s1"})
}

// failed checks that a call failed with a message for the model that
// holds every part, and no host path but one the call itself sent.
func (p *project) failed(t testing.TB, res *tool.Result, parts ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an error, got %s:\n%s", res.Status, res.Text())
	}
	text := res.Text()
	for _, part := range parts {
		if !strings.Contains(text, part) {
			t.Errorf("the model text does not contain %q:\n%s", part, text)
		}
	}
	if strings.Contains(text, p.tmp) && !strings.Contains(p.sent, p.tmp) {
		t.Errorf("the model text names a host path:\n%s", text)
	}
	if strings.Contains(text, "SECRET") {
		t.Errorf("the model text holds a secret:\n%s", text)
	}
}

func ok(t testing.TB, res *tool.Result) string {
	t.Helper()
	if res.IsError || res.Status != tool.StatusOK {
		t.Fatalf("want success, got %s:\n%s", res.Status, res.Text())
	}
	return res.Text()
}
