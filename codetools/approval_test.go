//go:build unix

package codetools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

// TestAskForWrites: with the default policy, exactly the writes are asked
// about, each with what the approver needs to decide.
func TestAskForWrites(t *testing.T) {
	p := newProject(t, nil)
	appr := tooltest.NewApprover(
		tooltest.AllowOnce(),   // edit_file
		tooltest.Deny("no"),    // write_file, create
		tooltest.AllowOnce(),   // write_file, overwrite
		tooltest.AllowAlways(), // run_shell mkdir a
		tooltest.AllowOnce(),   // run_shell touch c
		tooltest.AllowOnce(),   // run_shell rm
		tooltest.AllowAlways(), // run_shell rm again: ask-always, not remembered
		tooltest.Deny("no"),    // run_shell cat ../outside/passwd
	)
	p.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AskForWritesPolicy(), Approver: appr}))

	// Reads: never asked.
	for _, c := range []struct{ name, args string }{
		{"read_file", `{"path":"greet.go"}`},
		{"read_file", `{"path":"README.md"}`},
		{"list_dir", `{}`},
		{"find", `{"pattern":"*.go"}`},
		{"grep", `{"pattern":"hello"}`},
		{"run_shell", `{"command":"ls -la && git status 2>/dev/null; cat greet.go | wc -l"}`},
		{"run_shell", `{"command":"go version"}`},
	} {
		ok(t, p.call(t, c.name, c.args))
	}
	if n := appr.Asked(); n != 0 {
		t.Fatalf("reads were asked about: %d requests, the first %+v", n, appr.Requests()[0])
	}

	ok(t, p.call(t, "edit_file", map[string]any{"path": "greet.go", "old_string": "Hello", "new_string": "Hi"}))
	res := p.call(t, "write_file", map[string]any{"path": "new.txt", "content": "x\n"})
	if res.Status != tool.StatusDenied {
		t.Fatalf("a denied write: %s", res.Status)
	}
	ok(t, p.call(t, "write_file", map[string]any{"path": "README.md", "content": "# new\n", "overwrite": true}))
	ok(t, p.call(t, "run_shell", `{"command":"mkdir a"}`))
	ok(t, p.call(t, "run_shell", `{"command":"mkdir b"}`)) // allowed always for mkdir
	ok(t, p.call(t, "run_shell", `{"command":"touch c"}`)) // another command: asked
	ok(t, p.call(t, "run_shell", `{"command":"rm -r a"}`))
	ok(t, p.call(t, "run_shell", `{"command":"rm -r b"}`))
	if res := p.call(t, "run_shell", `{"command":"cat ../outside/passwd"}`); res.Status != tool.StatusDenied {
		t.Fatalf("reading outside through the shell: %s %s", res.Status, res.Text())
	}

	reqs := appr.Requests()
	if len(reqs) != 8 || appr.Left() != 0 {
		t.Fatalf("%d requests, %d answers left", len(reqs), appr.Left())
	}
	edit := reqs[0]
	if edit.Tool != "edit_file" || edit.Safety != tool.SafetyMutating || edit.Preview.Title != "Edit greet.go" || len(edit.Preview.Edits) != 1 ||
		!strings.Contains(edit.Preview.Edits[0].Diff(), "- \treturn \"Hello, \" + name\n+ \treturn \"Hi, \" + name") {
		t.Errorf("edit request: %+v", edit)
	}
	if w := reqs[1]; w.Tool != "write_file" || w.Safety != tool.SafetyMutating || w.Preview.Title != "Create new.txt" || w.Preview.Edits[0].New != "x\n" {
		t.Errorf("create request: %+v", w)
	}
	if w := reqs[2]; w.Safety != tool.SafetyDestructive || w.Preview.Title != "Replace README.md" || w.Preview.Edits[0].Old != "# demo\n\nSays hello.\n" {
		t.Errorf("overwrite request: %+v", w)
	}
	if s := reqs[3]; s.Requirement.Mode != tool.RequireScoped || s.Requirement.Scope != "mkdir" || !strings.Contains(s.Preview.Summary, "$ mkdir a") {
		t.Errorf("mkdir request: %+v", s)
	}
	if s := reqs[4]; !strings.Contains(s.Preview.Summary, "touch c") {
		t.Errorf("the second request is not touch: %+v", s)
	}
	for _, s := range reqs[5:7] {
		if s.Safety != tool.SafetyDestructive || s.Requirement.Mode != tool.RequireAskAlways || !strings.Contains(s.Requirement.Reason, "rm may delete data") {
			t.Errorf("rm request: %+v", s)
		}
	}
	if s := reqs[7]; s.Safety != tool.SafetyReadOnly || s.Requirement.Mode != tool.RequireScoped || !strings.Contains(s.Requirement.Reason, "../outside/passwd") {
		t.Errorf("outside read request: %+v", s)
	}
	if strings.Contains(p.read(t, "README.md"), "demo") {
		t.Error("the approved overwrite did not happen")
	}
}

// TestPreviewOfARefusedEdit: the approver is told when an edit will fail.
func TestPreviewOfARefusedEdit(t *testing.T) {
	p := newProject(t, nil)
	appr := tooltest.NewApprover(tooltest.Deny("no"))
	p.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: appr}))
	p.call(t, "edit_file", map[string]any{"path": "main.go", "old_string": "world", "new_string": "you"})
	if r := appr.Requests(); len(r) != 1 || !strings.Contains(r[0].Preview.Summary, "This edit will be refused: main.go has not been read") {
		t.Fatalf("%+v", r)
	}
}

// TestAllowAlwaysScope: "allow always" covers the command as the person
// saw it, program and subcommand: not the same program behind a wrapper,
// not another program behind the same wrapper, not an option that runs a
// program, not a path outside. (Each of these ran unasked before: issue
// 23.)
func TestAllowAlwaysScope(t *testing.T) {
	p := newProject(t, &codetools.Options{Sandbox: &codetools.SandboxOptions{Mode: process.SandboxNone}})
	p.write(t, "victim/keep.txt", "keep\n")
	p.write(t, "list.txt", "victim\n")
	asked := []string{
		"nice mkdir x", "nice --adjustment=5 rm -rf victim", "nice --adjustment 5 mkdir x",
		"xargs --max-chars=100 rm -rf < list.txt", "xargs --max-chars 100 mkdir < list.txt",
		"stdbuf --output=L rm -rf victim", "stdbuf --output L mkdir x", "sh -ec 'rm -rf victim'",
		"sh -c 'mkdir y'", "env -S 'mkdir z'", "env mkdir z", "command mkdir z", "timeout 5 mkdir z",
		"mkdir ../escape", "TMPDIR=/tmp mkdir z", "go test -toolexec=x ./...", "go test -exec x ./...",
		"GOFLAGS=-toolexec=x go test ./...", "sh -c 'go test ./...'", "go vet ./...",
		// What a command changes or copies is checked as a read is: a file
		// with other names (a hard link to a file outside, or to a
		// protected one), a protected file, a path outside, a script that
		// writes or runs a program.
		"cp hardlink-env leak.txt", "cp hardlink-out leak.txt", "touch hardlink-out", "chmod 600 hardlink-out",
		"gzip -k -f hardlink-env", "tar cf leak.tar hardlink-env", "mv hardlink-env leak.txt", "ln -f hardlink-env leak2",
		"echo hi >> hardlink-out", "echo hi >> .env", "sed -i s/root/pwned/ hardlink-out", "sed -i s/x/y/ .env",
		"sed -i -e s/x/y/ -e 'w ../outside/x' README.md", "sed -i '1e rm -rf victim' README.md",
		"git add hardlink-env", "git add .env", "git commit -q -F .env", "git commit -q -F.env",
		"git commit -q --file=../outside/passwd", "git commit -q -t hardlink-env",
		// A variable set on make's command line changes what it runs; a
		// path out of the workspace, what project it works on.
		"make build SHELL='rm -rf victim'", "make build CC='rm -rf victim'", "npm run build --prefix=..",
		"npm run build --prefix ..",
	}
	if err := os.Link(filepath.Join(p.dir, ".env"), filepath.Join(p.dir, "hardlink-env")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(p.tmp, "outside/passwd"), filepath.Join(p.dir, "hardlink-out")); err != nil {
		t.Fatal(err)
	}
	approved := []string{"cp README.md copy.md", "touch x", "chmod 644 x", "gzip -k -f README.md", "tar cf a.tar README.md",
		"mv copy.md copy2.md", "ln -f README.md rl", "echo hi >> out.txt", "sed -i s/demo/demo/ README.md",
		"git init -q", "git add README.md", "git commit -q --allow-empty -m x", "make build || true", "npm run build || true"}
	var script []tooltest.Step
	script = append(script, tooltest.AllowAlways(), tooltest.AllowAlways())
	for range approved {
		script = append(script, tooltest.AllowAlways())
	}
	for range asked {
		script = append(script, tooltest.Deny("no"))
	}
	appr := tooltest.NewApprover(script...)
	p.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AskForWritesPolicy(), Approver: appr}))
	shell := func(cmd string) *tool.Result {
		return p.call(t, "run_shell", map[string]any{"command": cmd})
	}
	ok(t, shell("mkdir -p build"))        // asked: allowed always for mkdir
	ok(t, shell("go test ./... || true")) // asked: allowed always for go test
	if appr.Asked() != 2 {
		t.Fatalf("asked %d times, want 2", appr.Asked())
	}
	ok(t, shell("mkdir -p other"))
	ok(t, shell("go test ./... || true"))
	if appr.Asked() != 2 {
		t.Fatalf("the same commands were asked about again: %+v", appr.Requests()[2:])
	}
	for _, cmd := range approved {
		before := appr.Asked()
		shell(cmd)
		if appr.Asked() != before+1 {
			t.Fatalf("%s: asked %d times, want once", cmd, appr.Asked()-before)
		}
	}
	for _, cmd := range asked {
		before := appr.Asked()
		if res := shell(cmd); res.Status != tool.StatusDenied || appr.Asked() != before+1 {
			t.Errorf("%s: %s without a question (asked %d)", cmd, res.Status, appr.Asked()-before)
		}
	}
	if _, err := os.Stat(filepath.Join(p.dir, "victim/keep.txt")); err != nil {
		t.Error("victim is gone")
	}
}
