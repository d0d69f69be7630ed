//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSandbox: the sandbox a command gets is built from the workspace's
// rules: what the deny list names, where it is found, and, for a command
// allowed to write, the read-only list and the files that make version
// control run programs.
func TestSandbox(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, scratch := filepath.Join(tmp, "app"), filepath.Join(tmp, "scratch")
	files := map[string]string{
		"app/main.go": "package main\n", "app/.env": "SECRET\n", "app/config/.env.local": "SECRET\n",
		"app/keys/a.pem": "SECRET\n", "app/deep/x/.aws/credentials": "SECRET\n", "app/.ssh/id_rsa": "SECRET\n",
		"app/vendor/lib/lib.go": "package lib\n", "app/vendor/lib/.env": "SECRET\n",
		"app/.git/config": "[core]\n\thooksPath = .husky\n", "app/.git/HEAD": "ref: refs/heads/main\n",
		"app/.git/hooks/pre-commit.sample": "", "app/.git/objects/ab/cdef": "",
		"app/.git/modules/sub/config": "", "app/.git/modules/sub/hooks/x": "",
		"app/.git/worktrees/w/config.worktree": "", "app/.husky/pre-commit": "npm test\n",
		"app/sub2/.git": "gitdir: ../.git/modules/sub\n", "app/nohooks/.git/config": "",
		"app/.hg/store/x": "", "app/.svn/wc.db": "", "scratch/.env": "SECRET\n", "scratch/out.txt": "",
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
	for name, target := range map[string]string{
		"app/innocent.txt": "app/.env",        // another name of a protected file
		"app/notes.txt":    "outside.txt",     // of a file outside
		"app/copy.go":      "app/main.go",     // of a file inside: both names are allowed
		"app/docs/a.md":    "scratch/out.txt", // across the roots
	} {
		if name == "app/notes.txt" {
			if err := os.WriteFile(filepath.Join(tmp, target), []byte("OUTSIDE\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(tmp, target), filepath.Join(tmp, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".env", filepath.Join(root, "link-env")); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(root, &Options{ReadOnly: []string{"vendor/"}, WriteRoots: []string{scratch}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, err := filepath.Rel(tmp, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(r))
		}
		slices.Sort(out)
		return out
	}
	deny := []string{"app/.env", "app/.ssh", "app/config/.env.local", "app/deep/x/.aws", "app/innocent.txt",
		"app/keys/a.pem", "app/notes.txt", "app/vendor/lib/.env", "scratch/.env"}

	sb, err := sandboxOf(ws, Read, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := rel(sb.Read); !slices.Equal(got, []string{"app", "scratch"}) || sb.Write != nil || sb.Temp {
		t.Errorf("read: Read %v, Write %v, Temp %v", got, sb.Write, sb.Temp)
	}
	if got := rel(sb.Deny); !slices.Equal(got, deny) {
		t.Errorf("read: Deny\n%v, want\n%v", got, deny)
	}
	if len(sb.ReadOnly) != 0 {
		t.Errorf("read: ReadOnly %v", sb.ReadOnly)
	}

	sb, err = sandboxOf(ws, Write, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := rel(sb.Write); !slices.Equal(got, []string{"app", "scratch"}) || sb.Read != nil || !sb.Temp {
		t.Errorf("write: Write %v, Read %v, Temp %v", got, sb.Read, sb.Temp)
	}
	if got := rel(sb.Deny); !slices.Equal(got, deny) {
		t.Errorf("write: Deny\n%v, want\n%v", got, deny)
	}
	readOnly := []string{"app/.git/config", "app/.git/hooks", "app/.git/modules/sub/config", "app/.git/modules/sub/hooks",
		"app/.git/worktrees/w/config.worktree", "app/.hg", "app/.husky", "app/nohooks/.git", "app/sub2/.git", "app/vendor"}
	if got := rel(sb.ReadOnly); !slices.Equal(got, readOnly) {
		t.Errorf("write, version control: ReadOnly\n%v, want\n%v", got, readOnly)
	}
	// Any other command that writes: the repositories are read-only
	// whole.
	sb, err = sandboxOf(ws, Write, false)
	if err != nil {
		t.Fatal(err)
	}
	readOnly = []string{"app/.git", "app/.hg", "app/.husky", "app/.svn", "app/nohooks/.git", "app/sub2/.git", "app/vendor"}
	if got := rel(sb.ReadOnly); !slices.Equal(got, readOnly) {
		t.Errorf("write: ReadOnly\n%v, want\n%v", got, readOnly)
	}
}

// TestSandboxAllowHardLinks: with hard links allowed, only the other
// names of protected files are hidden.
func TestSandboxAllowHardLinks(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "app")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"app/.env", "store.js"} {
		if err := os.WriteFile(filepath.Join(tmp, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"app/env-copy": "app/.env", "app/lib.js": "store.js"} {
		if err := os.Link(filepath.Join(tmp, target), filepath.Join(tmp, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(root, &Options{AllowHardLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	sb, err := sandboxOf(ws, Read, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range sb.Deny {
		got = append(got, filepath.Base(p))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{".env", "env-copy"}) {
		t.Errorf("Deny %v", got)
	}
	if b, err := ws.ReadFile("lib.js"); err != nil || len(b) != 0 {
		t.Errorf("ReadFile(lib.js) = %q, %v", b, err)
	}
}

// TestSandboxBounds: a tree with more protected files than a sandbox can
// hide is refused with a message that says what to do.
func TestSandboxBounds(t *testing.T) {
	root := t.TempDir()
	for i := range maxSandboxPaths + 1 {
		if err := os.WriteFile(filepath.Join(root, strconv.Itoa(i)+".pem"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := sandboxOf(ws, Read, false); err == nil || !strings.Contains(err.Error(), "deny or protect their directories instead") {
		t.Fatalf("Sandbox = %v", err)
	}
}
