package codetools_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
)

func TestEditFile(t *testing.T) {
	p := newProject(t, nil)
	edit := func(old, new string, all bool) *tool.Result {
		return p.call(t, "edit_file", map[string]any{"path": "greet.go", "old_string": old, "new_string": new, "replace_all": all})
	}
	p.failed(t, edit("Hello", "Hi", false), "greet.go has not been read in this conversation", "read it with read_file first")
	ok(t, p.call(t, "read_file", `{"path":"greet.go"}`))

	text := ok(t, edit("\"Hello, \"", "\"Hi, \"", false))
	if want := "Edited greet.go: replaced 1 occurrence at line 5.\n@@ line 3\n  // greet says hello.\n  func greet(name string) string {\n- \treturn \"Hello, \" + name\n+ \treturn \"Hi, \" + name\n  }\n"; text != want {
		t.Errorf("answer:\n%s\nwant:\n%s", text, want)
	}
	if got := p.read(t, "greet.go"); !strings.Contains(got, `"Hi, "`) {
		t.Fatalf("the file: %s", got)
	}
	// The tool's own write counts as seen: a second edit needs no read.
	ok(t, edit("says hello", "greets", false))

	p.failed(t, edit("not there", "x", false), "old_string was not found in greet.go", "copy the text exactly")
	p.failed(t, edit("e", "E", false), "old_string occurs", "times in greet.go (at lines", "replace_all")
	text = ok(t, edit("name", "who", true))
	if !strings.HasPrefix(text, "Edited greet.go: replaced 2 occurrences at lines 4, 5.") {
		t.Errorf("replace_all: %s", text)
	}

	// Changed behind the model's back: refused until read again.
	p.write(t, "greet.go", p.read(t, "greet.go")+"// a change by someone else\n")
	p.failed(t, edit("who", "name", true), "greet.go changed since you last read it", "read it again")
	ok(t, p.call(t, "read_file", `{"path":"greet.go"}`))
	ok(t, edit("who", "name", true))

	if res := edit("same", "same", false); res.Status != tool.StatusInvalid || !strings.Contains(res.Text(), "the edit would change nothing") {
		t.Errorf("a no-op edit: %s %s", res.Status, res.Text())
	}
	p.failed(t, p.call(t, "edit_file", map[string]any{"path": "nope.go", "old_string": "a", "new_string": "b"}), "no such file", "use write_file")
}

func TestEditFileCRLF(t *testing.T) {
	p := newProject(t, nil)
	p.write(t, "win.txt", "one\r\ntwo\r\nthree\r\n")
	ok(t, p.call(t, "read_file", `{"path":"win.txt"}`))
	ok(t, p.call(t, "edit_file", map[string]any{"path": "win.txt", "old_string": "one\ntwo", "new_string": "1\n2"}))
	if got := p.read(t, "win.txt"); got != "1\r\n2\r\nthree\r\n" {
		t.Fatalf("%q", got)
	}
}

func TestEditKeepsMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits")
	}
	p := newProject(t, nil)
	p.write(t, "run.sh", "#!/bin/sh\necho one\n")
	if err := os.Chmod(filepath.Join(p.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	ok(t, p.call(t, "read_file", `{"path":"run.sh"}`))
	ok(t, p.call(t, "edit_file", map[string]any{"path": "run.sh", "old_string": "one", "new_string": "two"}))
	if fi, _ := os.Stat(filepath.Join(p.dir, "run.sh")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
}

func TestWriteFile(t *testing.T) {
	p := newProject(t, nil)
	if text := ok(t, p.call(t, "write_file", map[string]any{"path": "cmd/tool/main.go", "content": "package main\n"})); text != "Created cmd/tool/main.go: 1 line, 13 bytes." {
		t.Errorf("create: %s", text)
	}
	if got := p.read(t, "cmd/tool/main.go"); got != "package main\n" {
		t.Fatalf("%q", got)
	}
	// Created counts as seen: it can be edited at once.
	ok(t, p.call(t, "edit_file", map[string]any{"path": "cmd/tool/main.go", "old_string": "main", "new_string": "tool"}))

	p.failed(t, p.call(t, "write_file", map[string]any{"path": "README.md", "content": "x"}),
		"README.md already exists", "overwrite true")
	p.failed(t, p.call(t, "write_file", map[string]any{"path": "README.md", "content": "x", "overwrite": true}),
		"README.md has not been read")
	ok(t, p.call(t, "read_file", `{"path":"README.md"}`))
	if text := ok(t, p.call(t, "write_file", map[string]any{"path": "README.md", "content": "# new\n", "overwrite": true})); text != "Replaced README.md: 1 line, 6 bytes, was 3 lines, 20 bytes." {
		t.Errorf("replace: %s", text)
	}
	// overwrite on a file that does not exist creates it.
	ok(t, p.call(t, "write_file", map[string]any{"path": "fresh.txt", "content": "", "overwrite": true}))
	p.failed(t, p.call(t, "write_file", map[string]any{"path": "vendor/lib/new.go", "content": "x"}), "path is read-only")
	p.failed(t, p.call(t, "write_file", map[string]any{"path": "docs", "content": "x", "overwrite": true}), `"docs" is a directory`)
}

// An edit whose result would be over the write limit is refused before the
// result is built, in the call and in the preview the approver is shown:
// a one-byte old_string in every byte of a large file, each replaced by a
// long new_string, cost gigabytes (a 4 MiB file and 200 bytes: 1.6 GB
// allocated to refuse it; 64 KiB would ask for 512 GB).
func TestEditFileOverWriteLimit(t *testing.T) {
	p := newProject(t, nil)
	p.write(t, "big.txt", strings.Repeat("a", 4<<20))
	p.write(t, "one.txt", "a"+strings.Repeat("b", 4<<20-1))
	ok(t, p.call(t, "read_file", `{"path":"big.txt"}`))
	ok(t, p.call(t, "read_file", `{"path":"one.txt"}`))
	for _, c := range []struct {
		path, old, new string
		all            bool
		want           string // "" for success
	}{
		{"big.txt", "a", strings.Repeat("b", 200), true, "over the 8388608-byte write limit"},
		{"big.txt", "aaaa", strings.Repeat("b", 20), true, "over the 8388608-byte write limit"},
		{"one.txt", "a", strings.Repeat("c", 60<<10), false, ""}, // once: under the limit
	} {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		res := p.call(t, "edit_file", map[string]any{"path": c.path, "old_string": c.old, "new_string": c.new, "replace_all": c.all})
		runtime.ReadMemStats(&ms)
		if c.want == "" {
			ok(t, res)
			continue
		}
		p.failed(t, res, c.want, "replace fewer occurrences")
		if got := ms.TotalAlloc - before; got > 256<<20 {
			t.Errorf("%s: refusing the edit allocated %d MB", c.path, got>>20)
		}
		if got := p.read(t, c.path); got != strings.Repeat("a", 4<<20) {
			t.Errorf("%s changed", c.path)
		}
	}
}
