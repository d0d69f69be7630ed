package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
)

// Markers planted in files the workspace must never let a caller read.
const (
	outsideMarker = "OUTSIDE-MARKER"
	envMarker     = "ENV-MARKER"
)

// tree is a workspace planted with the traps of RELIABILITY.md's "File
// paths": links out of the root, to a sibling with the same prefix, to
// denied files, absolute links, loops, special files.
type tree struct {
	tmp     string // holds app (the root), app2, outside, scratch
	root    string // tmp/app
	scratch string // a write root
	ws      *Workspace
}

func plant(t testing.TB, opts *Options) *tree {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{tmp: tmp, root: filepath.Join(tmp, "app"), scratch: filepath.Join(tmp, "scratch")}
	files := map[string]string{
		"app/main.go":          "package main\n",
		"app/sub/deep.txt":     "deep\n",
		"app/sub/ro/fixed.txt": "fixed\n",
		"app/.env":             envMarker + "\n",
		"app/.git/config":      envMarker + "\n",
		"app/key.pem":          envMarker + "\n",
		"app2/secret.txt":      outsideMarker + "\n",
		"outside/secret.txt":   outsideMarker + "\n",
		"scratch/note.txt":     "scratch\n",
	}
	for name, content := range files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"link-in":       "sub",
		"link-file-in":  "main.go",
		"link-out":      "../outside",
		"link-file-out": "../outside/secret.txt",
		"link-sibling":  "../app2/secret.txt",
		"abs-link":      filepath.Join(tmp, "app", "main.go"), // inside, but absolute
		"abs-out":       filepath.Join(tmp, "outside", "secret.txt"),
		"link-env":      ".env",
		"link-git":      ".git",
		"link-sub-env":  "sub/../.env",
		"dotdot":        "..",
		"dot":           ".",
		"loop1":         "loop2",
		"loop2":         "loop1",
		"sub/up":        "..",
		"sub/ro-link":   "ro",
	}
	for name, dest := range links {
		if err := os.Symlink(dest, filepath.Join(tr.root, filepath.FromSlash(name))); err != nil {
			if runtime.GOOS == "windows" {
				t.Skipf("cannot create symbolic links here: %v", err)
			}
			t.Fatal(err)
		}
	}
	plantSpecial(t, tr.root)
	if opts == nil {
		opts = &Options{ReadOnly: []string{"sub/ro/"}, WriteRoots: []string{tr.scratch}}
	}
	ws, err := Open(tr.root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	tr.ws = ws
	return tr
}

// modelText is what the model reads of an error: the tool.Error's message
// and hint.
func modelText(t testing.TB, err error) string {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) {
		t.Fatalf("the error is not a *tool.Error for the model: %T %v", err, err)
	}
	if te.Message == "" {
		t.Fatalf("the tool.Error has no message for the model: %v", err)
	}
	return te.Message + "\n" + te.Hint
}

// noHostPath fails the test if the model's text names a host path that the
// caller did not give.
func noHostPath(t testing.TB, tmp, name, text string) {
	t.Helper()
	if strings.Contains(text, tmp) && !strings.Contains(name, tmp) {
		t.Errorf("the model's text names a host path: %q", text)
	}
}

// sandboxOf prepares a command's sandbox and lets the workspace go at
// once.
func sandboxOf(ws *Workspace, a Access, vcs bool) (*process.Sandbox, error) {
	p, err := ws.Prepare(context.Background(), a, &PrepareOptions{VersionControl: vcs})
	if err != nil {
		return nil, err
	}
	p.Done()
	return p.Sandbox(), nil
}
