//go:build unix

package codetools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
)

// TestFilePaths goes through every case under "File paths" in
// RELIABILITY.md with the tools, as a model would call them: "..",
// absolute paths, sibling-prefix paths, symbolic links that leave the
// root, writes through symbolic links, special files inside the root,
// very large files. Each is refused with a message for the model that
// names no host path, and nothing outside the root is read or changed.
func TestFilePaths(t *testing.T) {
	p := newProject(t, nil)
	link := func(name, dest string) {
		if err := os.Symlink(dest, filepath.Join(p.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("out", "../outside")                                // a directory out of the root
	link("passwd-link", "../outside/passwd")                 // a file out of the root
	link("abs-link", filepath.Join(p.tmp, "outside/passwd")) // absolute
	link("sibling", "../app2")                               // the sibling with the same prefix
	link("docs-link", "docs")                                // inside: readable, not writable through
	link("greet-link.go", "greet.go")                        // inside: readable, not writable through
	if err := syscall.Mkfifo(filepath.Join(p.dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.write(t, "big.log", strings.Repeat("hello big\n", 900_000)) // 9 MB, over the 8 MiB limit
	device := syscall.Mknod(filepath.Join(p.dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3) == nil

	abs := func(rel string) string { return filepath.Join(p.tmp, rel) }
	cases := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		// ..
		{"dot-dot read", "read_file", map[string]any{"path": "../outside/passwd"}, `path escapes the workspace: "../outside/passwd"`},
		{"dot-dot deep", "read_file", map[string]any{"path": "docs/../../outside/passwd"}, "path escapes the workspace"},
		{"dot-dot list", "list_dir", map[string]any{"path": ".."}, "path escapes the workspace"},
		{"dot-dot find", "find", map[string]any{"pattern": "*", "path": "../outside"}, "path escapes the workspace"},
		{"dot-dot grep", "grep", map[string]any{"pattern": "root", "path": "../outside"}, "path escapes the workspace"},
		{"dot-dot write", "write_file", map[string]any{"path": "../outside/new", "content": "x"}, "path escapes the workspace"},
		{"dot-dot edit", "edit_file", map[string]any{"path": "../outside/passwd", "old_string": "root", "new_string": "x"}, "path escapes the workspace"},
		// Absolute paths.
		{"absolute outside", "read_file", map[string]any{"path": "/etc/passwd"}, `path escapes the workspace: "/etc/passwd"`},
		{"absolute write", "write_file", map[string]any{"path": abs("outside/new"), "content": "x"}, "path escapes the workspace"},
		// Sibling prefix: <tmp>/app2 is not inside <tmp>/app.
		{"sibling prefix read", "read_file", map[string]any{"path": abs("app2/secret.txt")}, "path escapes the workspace"},
		{"sibling prefix write", "write_file", map[string]any{"path": abs("app2/new.txt"), "content": "x"}, "path escapes the workspace"},
		{"sibling prefix list", "list_dir", map[string]any{"path": abs("app2")}, "path escapes the workspace"},
		// Links that leave the root.
		{"link out, file", "read_file", map[string]any{"path": "passwd-link"}, `path escapes the workspace through a symbolic link: "passwd-link"`},
		{"link out, directory", "read_file", map[string]any{"path": "out/passwd"}, "through a symbolic link"},
		{"link out, listed", "list_dir", map[string]any{"path": "out"}, "through a symbolic link"},
		{"link to the sibling", "read_file", map[string]any{"path": "sibling/secret.txt"}, "through a symbolic link"},
		{"absolute link", "read_file", map[string]any{"path": "abs-link"}, "absolute links are never followed"},
		{"grep a link out", "grep", map[string]any{"pattern": "root", "path": "out"}, "through a symbolic link"},
		// Writes through links, even inside.
		{"write through a link out", "write_file", map[string]any{"path": "out/new", "content": "x"}, `path escapes the workspace through a symbolic link: "out/new"`},
		{"write through a linked parent", "write_file", map[string]any{"path": "docs-link/new.md", "content": "x"}, "writes through links are refused"},
		{"overwrite a link", "write_file", map[string]any{"path": "greet-link.go", "content": "x", "overwrite": true}, "writes through links are refused"},
		{"edit through a link", "edit_file", map[string]any{"path": "docs-link/guide.md", "old_string": "Guide", "new_string": "G"}, "writes through links are refused"},
		// Special files.
		{"FIFO", "read_file", map[string]any{"path": "pipe"}, `"pipe" is a named pipe (FIFO), not a regular file`},
		{"FIFO write", "write_file", map[string]any{"path": "pipe", "content": "x", "overwrite": true}, "not a regular file"},
		// Very large files.
		{"large file", "read_file", map[string]any{"path": "big.log"}, `"big.log" is too large: 8.6 MiB (9000000 bytes), and the limit is 8 MiB`},
	}
	if device {
		cases = append(cases, struct {
			name, tool string
			args       map[string]any
			want       string
		}{"device", "read_file", map[string]any{"path": "null"}, `"null" is a character device, not a regular file`})
	}
	// Reads through links inside are allowed, so that edits to them are
	// refused for the link and not for want of a read.
	ok(t, p.call(t, "read_file", `{"path":"docs-link/guide.md"}`))
	ok(t, p.call(t, "read_file", `{"path":"greet-link.go"}`))
	before := snapshot(t, p.tmp)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan *tool.Result, 1)
			go func() { done <- p.call(t, c.tool, c.args) }()
			select {
			case res := <-done:
				p.failed(t, res, c.want)
			case <-time.After(10 * time.Second):
				t.Fatal("the call blocked")
			}
		})
	}
	// Whole-tree tools do not follow links out, do not block on the FIFO,
	// and skip what is too large.
	for _, c := range []struct{ tool, args string }{
		{"grep", `{"pattern":"OUTSIDE-SECRET|root:x","include_ignored":true}`},
		{"find", `{"pattern":"passwd","include_ignored":true}`},
	} {
		text := ok(t, p.call(t, c.tool, c.args))
		if strings.Contains(text, "SECRET") || strings.Contains(text, "out/") {
			t.Errorf("%s followed a link out of the root: %s", c.tool, text)
		}
	}
	if text := ok(t, p.call(t, "grep", `{"pattern":"hello big","include_ignored":true}`)); !strings.Contains(text, "1 files over 8 MiB skipped") {
		t.Errorf("grep on a large file: %s", text)
	}
	if got := snapshot(t, p.tmp); got != before {
		t.Errorf("the file system changed:\nbefore %s\nafter  %s", before, got)
	}
	// The absolute path of a file inside the root is a path inside.
	if text := ok(t, p.call(t, "read_file", map[string]any{"path": filepath.Join(p.dir, "greet.go")})); !strings.HasPrefix(text, "greet.go (6 lines)") {
		t.Errorf("absolute path inside: %s", text)
	}
}

// snapshot lists every entry under dir with its type, size and
// modification time.
func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %v %d %v\n", rel, fi.Mode(), fi.Size(), fi.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
