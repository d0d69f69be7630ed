package codetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/workspace"
)

func TestReadFile(t *testing.T) {
	p := newProject(t, nil)
	var long strings.Builder
	for i := 1; i <= 1200; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	p.write(t, "long.txt", long.String())
	p.write(t, "crlf.txt", "a\r\nb\r\n")
	p.write(t, "empty.txt", "")
	p.write(t, "bin.dat", "\x89PNG\x00\x01\x02")
	p.write(t, "wide.txt", strings.Repeat("é", 1500)+"\n")
	cases := []struct {
		args string
		want []string
		not  []string
	}{
		{`{"path":"greet.go"}`, []string{"greet.go (6 lines)\n   1\tpackage main\n   2\t\n   3\t// greet says hello.\n"}, []string{"more lines"}},
		{`{"path":"./docs/../greet.go"}`, []string{"greet.go (6 lines)"}, nil},
		{`{"path":"long.txt"}`, []string{"long.txt (lines 1 to 500 of 1200)", " 500\tline 500\n", `[700 more lines. To read on, call read_file with detail_level "full" and offset 500.]`}, []string{"line 501"}},
		{`{"path":"long.txt","detail_level":"full","offset":500,"limit":10}`, []string{"long.txt (lines 501 to 510 of 1200)", " 501\tline 501\n", "offset 510"}, []string{"line 500\n", "line 511"}},
		{`{"path":"long.txt","offset":1190}`, []string{"lines 1191 to 1200 of 1200", "1200\tline 1200"}, []string{"more lines"}},
		{`{"path":"long.txt","offset":5000}`, []string{"long.txt has 1200 lines; offset 5000 is past the end."}, nil},
		{`{"path":"long.txt","limit":3}`, []string{"lines 1 to 3 of 1200", "offset 3"}, nil},
		{`{"path":"crlf.txt"}`, []string{"   1\ta\n   2\tb\n"}, []string{"\r"}},
		{`{"path":"empty.txt"}`, []string{"empty.txt is empty (0 bytes)."}, nil},
		{`{"path":"bin.dat"}`, []string{"bin.dat is a binary file (7 bytes); its content is not shown."}, []string{"PNG"}},
		{`{"path":"wide.txt"}`, []string{"[line cut: 1000 more bytes]"}, nil},
	}
	for _, c := range cases {
		text := ok(t, p.call(t, "read_file", c.args))
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the answer lacks %q:\n%s", c.args, w, text)
			}
		}
		for _, n := range c.not {
			if strings.Contains(text, n) {
				t.Errorf("%s: the answer has %q:\n%s", c.args, n, text)
			}
		}
	}
	p.failed(t, p.call(t, "read_file", `{"path":"nope.go"}`), `no such file or directory: "nope.go"`, "list_dir or find")
	p.failed(t, p.call(t, "read_file", `{"path":"docs"}`), `"docs" is a directory`)
	if res := p.call(t, "read_file", `{"path":""}`); res.Status != tool.StatusInvalid {
		t.Errorf("an empty path: %s", res.Status)
	}
}

func TestReadFileTooLarge(t *testing.T) {
	p := newProject(t, nil)
	p.write(t, "huge.log", strings.Repeat("x", 9<<20))
	p.failed(t, p.call(t, "read_file", `{"path":"huge.log"}`), `"huge.log" is too large: 9 MiB, and the limit is 8 MiB`, "grep")
	// A byte over the limit is not shown as the limit.
	p.write(t, "just-over.log", strings.Repeat("x", 8<<20+1))
	p.failed(t, p.call(t, "read_file", `{"path":"just-over.log"}`), `"just-over.log" is too large: 8.0 MiB (8388609 bytes), and the limit is 8 MiB`, "grep")
}

func TestListDir(t *testing.T) {
	p := newProject(t, nil)
	for i := range 25 {
		p.write(t, fmt.Sprintf("many/f%02d.txt", i), "x")
	}
	p.write(t, "many/sub/x.txt", "x")
	var names []string
	args := map[string]any{"path": "many", "page_size": 10}
	pages := 0
	for {
		pages++
		var page struct {
			Results    codetools.DirListing `json:"results"`
			NextCursor string               `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(ok(t, p.call(t, "list_dir", args))), &page); err != nil {
			t.Fatal(err)
		}
		if page.Results.Total != 26+min(pages-1, 1) || page.Results.Path != "many" {
			t.Fatalf("page %d: %+v", pages, page.Results)
		}
		for _, e := range page.Results.Entries {
			names = append(names, e.Name+":"+e.Type)
		}
		if page.NextCursor == "" {
			break
		}
		args["cursor"] = page.NextCursor
		if pages == 1 {
			p.write(t, "many/a-new.txt", "x") // sorts before the cursor: shifts nothing
		}
	}
	if pages != 3 || len(names) != 26 || names[0] != "f00.txt:file" || names[25] != "sub:dir" {
		t.Fatalf("%d pages, %d names: %v", pages, len(names), names)
	}
	// A cursor is bound to its arguments.
	args["path"] = "docs"
	if res := p.call(t, "list_dir", args); res.Status != tool.StatusInvalid {
		t.Errorf("a cursor reused for another directory: %s %s", res.Status, res.Text())
	}
	text := ok(t, p.call(t, "list_dir", `{}`))
	if strings.Contains(text, ".env") || !strings.Contains(text, `{"name":"greet.go","type":"file","size":`) {
		t.Errorf("root listing: %s", text)
	}
	p.failed(t, p.call(t, "list_dir", `{"path":"../outside"}`), "path escapes the workspace")
	p.failed(t, p.call(t, "list_dir", `{"path":"main.go"}`), `"main.go" is not a directory`)
}

func TestFind(t *testing.T) {
	p := newProject(t, nil)
	cases := []struct {
		args string
		want string
	}{
		{`{"pattern":"*.go"}`, `"paths":["greet.go","greet_test.go","internal/a/a.go","internal/a/a_test.go","main.go","vendor/lib/lib.go"]`},
		{`{"pattern":"*_test.go","path":"internal"}`, `"paths":["internal/a/a_test.go"]`},
		{`{"pattern":"a/*.go","path":"internal"}`, `"paths":["internal/a/a.go","internal/a/a_test.go"]`},
		{`{"pattern":"**/lib/*.go"}`, `"paths":["vendor/lib/lib.go"]`},
		{`{"pattern":"*.md"}`, `"paths":["README.md","docs/guide.md"]`},
		{`{"pattern":"*.md","include_ignored":true}`, `"paths":["README.md","docs/draft.md","docs/guide.md"]`},
		{`{"pattern":"*.log"}`, `"paths":[]`},
		{`{"pattern":"*.txt","include_ignored":true}`, `"paths":["build/out.txt"]`},
		{`{"pattern":"internal/"}`, `"paths":["internal/"]`},
		{`{"pattern":".env*"}`, `"paths":[]`},
		{`{"pattern":"*","limit":2}`, `"overflow":{"shown":2,`},
	}
	for _, c := range cases {
		if text := ok(t, p.call(t, "find", c.args)); !strings.Contains(text, c.want) {
			t.Errorf("find %s:\n%s\nwant %s", c.args, text, c.want)
		}
	}
	for _, bad := range []string{`{"pattern":"[a-"}`, `{"pattern":"!x"}`} {
		if res := p.call(t, "find", bad); res.Status != tool.StatusInvalid {
			t.Errorf("%s: %s", bad, res.Status)
		}
	}
	p.failed(t, p.call(t, "find", `{"pattern":"*","path":"/etc"}`), "path escapes the workspace")
}

func TestFindWalkLimit(t *testing.T) {
	p := newProject(t, &codetools.Options{MaxWalk: 5})
	text := ok(t, p.call(t, "find", `{"pattern":"*"}`))
	if !strings.Contains(text, "stopped after visiting 5 entries") {
		t.Fatal(text)
	}
}

// TestHostileGitignore checks that a repository's .gitignore files cannot
// make find and grep cost without bound: every pattern is tried on every
// name, and a .gitignore of 5 MiB of "?zz1" lines took 94 ms a name (a
// walk of 100,000 entries, 3 hours). At most 64 KiB of them apply at one
// place, and a walk whose matching takes too long stops; both are said.
func TestHostileGitignore(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string
		budget time.Duration
		want   string
	}{
		{"one huge file", map[string]string{".gitignore": strings.Repeat("?zz1\n", 1<<20)}, 0,
			".gitignore applied in part"},
		{"nested files", map[string]string{
			"a/.gitignore":     strings.Repeat("*x*y?\n", 8<<10),
			"a/b/.gitignore":   strings.Repeat("*x*y?\n", 8<<10),
			"a/b/c/.gitignore": "kept\n",
		}, 0, "a/b/.gitignore, a/b/c/.gitignore applied in part"},
		{"time budget", map[string]string{".gitignore": "*.tmp\n"}, time.Nanosecond,
			"stopped after visiting"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, nil)
			for name, content := range c.files {
				p.write(t, name, content)
			}
			for i := range 300 {
				p.write(t, fmt.Sprintf("a/b/c/f%d.go", i), "package c // hello\n")
			}
			if c.budget > 0 {
				defer codetools.SetIgnoreTimeBudget(c.budget)()
			}
			for _, call := range []struct{ tool, args string }{
				{"find", `{"pattern":"*.go"}`},
				{"grep", `{"pattern":"hello"}`},
			} {
				start := time.Now()
				text := ok(t, p.call(t, call.tool, call.args))
				if d := time.Since(start); d > time.Minute {
					t.Errorf("%s took %v", call.tool, d)
				}
				if !strings.Contains(text, c.want) {
					t.Errorf("%s: the answer does not say %q:\n%.600s", call.tool, c.want, text)
				}
			}
		})
	}
}

// TestLineAmplification checks that read_file and grep cost about the
// size of the file, whatever its lines: both split every line out first,
// and 8 MiB of newlines cost read_file 144 MB and grep 200 MB.
func TestLineAmplification(t *testing.T) {
	p := newProject(t, nil)
	p.write(t, "newlines.txt", strings.Repeat("\n", 8<<20-16))
	p.write(t, "wide.txt", strings.Repeat(strings.Repeat("w", 1<<20)+"\n", 7))
	cases := []struct{ tool, args string }{
		{"read_file", `{"path":"newlines.txt"}`},
		{"read_file", `{"path":"newlines.txt","detail_level":"full","offset":8000000,"limit":5}`},
		{"grep", `{"pattern":"x","path":"newlines.txt"}`},
		{"grep", `{"pattern":"^$","path":"newlines.txt","context":10}`},
		{"grep", `{"pattern":"w","path":"wide.txt","context":10}`},
	}
	for _, c := range cases {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ok(t, p.call(t, c.tool, c.args))
		runtime.ReadMemStats(&after)
		// The file is read (8 MiB) and converted once; 48 MiB is room.
		if got := after.TotalAlloc - before.TotalAlloc; got > 48<<20 {
			t.Errorf("%s %s allocated %d MiB", c.tool, c.args, got>>20)
		}
	}
}

// TestGrepContextLines checks the lines around each match, at the start
// and the end of a file, with CRLF, and from a page's cursor.
func TestGrepContextLines(t *testing.T) {
	p := newProject(t, nil)
	p.write(t, "c.txt", "a\nM1\nb\r\nc\nM2\nM3\n\nd\nM4")
	cases := []struct {
		args string
		want string
	}{
		{`{"pattern":"M","path":"c.txt","context":2}`,
			"2 [a] M1 [b c]; 5 [b c] M2 [M3 ]; 6 [c M2] M3 [ d]; 9 [ d] M4 []"},
		{`{"pattern":"M","path":"c.txt"}`, "2 [] M1 []; 5 [] M2 []; 6 [] M3 []; 9 [] M4 []"},
		{`{"pattern":"^a$|M4","path":"c.txt","context":10}`,
			"1 [] a [M1 b c M2 M3  d M4]; 9 [a M1 b c M2 M3  d] M4 []"},
		{`{"pattern":"M","path":"c.txt","context":1,"page_size":2}`, "2 [a] M1 [b]; 5 [c] M2 [M3]"},
	}
	for _, c := range cases {
		var page struct {
			Results codetools.GrepResult `json:"results"`
		}
		if err := json.Unmarshal([]byte(ok(t, p.call(t, "grep", c.args))), &page); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range page.Results.Matches {
			got = append(got, fmt.Sprintf("%d [%s] %s [%s]", m.Line, strings.Join(m.Before, " "), m.Text, strings.Join(m.After, " ")))
		}
		if g := strings.Join(got, "; "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.args, g, c.want)
		}
	}
}

// TestTooManyEntries checks that a directory over the entry limit is said
// to be left out: find answered "no path matches" for a directory of
// 200,000 files, and list_dir hinted at reading a file with sed.
func TestTooManyEntries(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		if err := os.MkdirAll(filepath.Join(dir, "big", fmt.Sprint("f", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(dir, &workspace.Options{MaxDirEntries: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(codetools.New(ws, nil).Tools()...); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, args string
		want, not  string
	}{
		{"find", `{"pattern":"f1*"}`, `1 directories could not be listed, and what they hold was not searched (the first: \"big\" has more than 20 entries`, "no path matches"},
		{"grep", `{"pattern":"x"}`, `could not be read (the first directory: \"big\" has more than 20 entries`, ""},
		{"list_dir", `{"path":"big"}`, "list a subdirectory", "sed -n"},
	}
	for _, c := range cases {
		res := reg.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: c.tool, Args: json.RawMessage(c.args)})
		text := res.Text()
		if !strings.Contains(text, c.want) || c.not != "" && strings.Contains(text, c.not) {
			t.Errorf("%s %s:\n%s\nwant %q, not %q", c.tool, c.args, text, c.want, c.not)
		}
	}
}

func TestGrep(t *testing.T) {
	p := newProject(t, nil)
	p.write(t, "bin.dat", "hello\x00binary")
	decode := func(text string) (codetools.GrepResult, string) {
		var page struct {
			Results    codetools.GrepResult `json:"results"`
			NextCursor string               `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(text), &page); err != nil {
			t.Fatalf("%v: %s", err, text)
		}
		return page.Results, page.NextCursor
	}
	where := func(r codetools.GrepResult) string {
		var s []string
		for _, m := range r.Matches {
			s = append(s, fmt.Sprintf("%s:%d", m.Path, m.Line))
		}
		return strings.Join(s, " ")
	}
	r, next := decode(ok(t, p.call(t, "grep", `{"pattern":"hello"}`)))
	if got := where(r); got != "README.md:3 docs/guide.md:3 greet.go:3 internal/a/a.go:3 vendor/lib/lib.go:1" || next != "" {
		t.Errorf("matches %s, cursor %q", got, next)
	}
	if !strings.Contains(r.Note, "1 binary files skipped") {
		t.Errorf("note %q", r.Note)
	}
	r, _ = decode(ok(t, p.call(t, "grep", `{"pattern":"HELLO","ignore_case":true,"glob":"*.go"}`)))
	if got := where(r); got != "greet.go:3 greet.go:5 greet_test.go:6 internal/a/a.go:3 vendor/lib/lib.go:1" {
		t.Errorf("ignore_case with a glob: %s", got)
	}
	r, _ = decode(ok(t, p.call(t, "grep", `{"pattern":"^func","path":"greet.go","context":1}`)))
	if len(r.Matches) != 1 || strings.Join(r.Matches[0].Before, "|") != "// greet says hello." || strings.Join(r.Matches[0].After, "|") != "\treturn \"Hello, \" + name" {
		t.Errorf("context: %+v", r.Matches)
	}
	r, _ = decode(ok(t, p.call(t, "grep", `{"pattern":"hello","include_ignored":true}`)))
	if got := where(r); !strings.Contains(got, "build/out.txt:1") || !strings.Contains(got, "debug.log:1") || !strings.Contains(got, "docs/draft.md:1") {
		t.Errorf("include_ignored: %s", got)
	}
	if strings.Contains(ok(t, p.call(t, "grep", `{"pattern":"SECRET","include_ignored":true}`)), "SECRET=") {
		t.Error("grep read .env")
	}
	// Pages: one match at a time, through every match, in order.
	args := map[string]any{"pattern": "hello", "ignore_case": true, "page_size": 1}
	var all []string
	for range 20 {
		r, next := decode(ok(t, p.call(t, "grep", args)))
		all = append(all, where(r))
		if next == "" {
			break
		}
		args["cursor"] = next
	}
	if got := strings.Join(all, " "); got != "README.md:3 docs/guide.md:3 greet.go:3 greet.go:5 greet_test.go:6 internal/a/a.go:3 vendor/lib/lib.go:1" {
		t.Errorf("paged: %s", got)
	}
	if res := p.call(t, "grep", `{"pattern":"a(b"}`); res.Status != tool.StatusInvalid || !strings.Contains(res.Text(), "missing closing )") {
		t.Errorf("bad pattern: %s %s", res.Status, res.Text())
	}
	p.failed(t, p.call(t, "grep", `{"pattern":"x","path":".git"}`), "path is protected")
}
