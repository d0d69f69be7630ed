//go:build linux

package codetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/internal/sandboxtest"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
	"github.com/toolbelt-go/tool/workspace"
)

// Commands that plan ahead (issue 34): they race with another command,
// rename what is protected, or leave something for a later command. Each
// runs approved (AllowAllPolicy), in each sandbox.

// approved is a project in mode whose every command is approved, with the
// workspace options given.
func approved(t *testing.T, mode process.SandboxMode, wsOpts *workspace.Options, sbOpts *codetools.SandboxOptions) *project {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &project{tmp: tmp, dir: filepath.Join(tmp, "app")}
	for name, content := range projectFiles {
		p.write(t, name, content)
	}
	ws, err := workspace.Open(p.dir, wsOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if sbOpts == nil {
		sbOpts = &codetools.SandboxOptions{}
	}
	sbOpts.Mode = mode
	// A home of nobody's: under Landlock the host's is there but
	// unreadable, which git takes for an error.
	env := tooltest.TrackProcesses(t, append(process.MinimalEnv(), "TERM=dumb", "NO_COLOR=1", "HOME="+filepath.Join(tmp, "nohome")))
	p.ts = codetools.New(ws, &codetools.Options{Env: env, Sandbox: sbOpts})
	p.reg = tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	if err := p.reg.Add(p.ts.Tools()...); err != nil {
		t.Fatal(err)
	}
	p.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AllowAllPolicy()}))
	return p
}

// run runs a command line through run_shell and returns the result.
func (p *project) run(command string) *tool.Result {
	args, _ := json.Marshal(map[string]any{"command": command, "timeout_seconds": 120})
	return p.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call", Name: "run_shell", Args: args, Session: "s1"})
}

// TestHostileRace: while an approved command renames a directory holding a
// protected file back and forth, commands that read the whole tree never
// see the file, and every one of them runs: a command is prepared only
// while no other command can change the tree, and the tree's walk fails
// closed on a directory it cannot open. Two calls at once is ordinary (a
// parallel batch, an MCP session).
func TestHostileRace(t *testing.T) {
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		p := approved(t, mode, nil, nil)
		p.write(t, "d/id_rsa", "KEY-SECRET\n")
		p.write(t, "d/notes.txt", "readable\n")
		// Prepared once, so that the renames are changes, not the tree
		// the first command finds.
		ok(t, p.run("true"))
		var wg sync.WaitGroup
		wg.Go(func() {
			res := p.run("for i in $(seq 150); do mv d d_ && mv d_ d; done; echo renamed")
			if !strings.Contains(res.Text(), "renamed") {
				t.Errorf("the renaming command: %s", res.Text())
			}
		})
		var mu sync.Mutex
		outs := map[string]int{}
		for range 12 {
			wg.Go(func() {
				res := p.run("grep -rs . . | grep -v '^./.git' | sort | head -50; ls d d_ 2>/dev/null")
				mu.Lock()
				defer mu.Unlock()
				if res.Status != tool.StatusOK {
					t.Errorf("a reader did not run: %s", res.Text())
				}
				if strings.Contains(res.Text(), "KEY-SECRET") {
					t.Errorf("a reader printed the protected file:\n%s", res.Text())
				}
				outs[fmt.Sprint(strings.Contains(res.Text(), "readable"))]++
			})
		}
		wg.Wait()
		t.Logf("readers that saw d/notes.txt: %v", outs)
	})
}

// TestHostileRename: a protected file stays protected under whatever name
// an approved command gives it: the file renamed, a directory above it
// renamed (mv conf conf-old moves conf/prod.json), a default-denied one
// moved (mv keys k2 moves keys/tls.pem), a protected directory renamed,
// a hard link made to it. Commands that read the tree, commands that name
// the new path, and read_file all find it protected.
func TestHostileRename(t *testing.T) {
	deny := append(slices.Clone(workspace.DefaultDeny), "/conf/prod.json", "/private/")
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		for _, c := range []struct {
			setup, reveal, readFile string
		}{
			{"mv conf conf-old", "grep -r password . ; cat conf-old/prod.json", "conf-old/prod.json"},
			{"mv conf/prod.json prod.txt", "cat prod.txt; grep -r password .", "prod.txt"},
			{"mkdir -p a/b && mv conf a/b/", "cat a/b/conf/prod.json; grep -r password a", "a/b/conf/prod.json"},
			{"mv keys k2", "cat k2/tls.pem; grep -r KEY-SECRET .", "k2/tls.pem"},
			{"mv keys/tls.pem tls.txt", "cat tls.txt", "tls.txt"},
			{"mv private public", "cat public/x.txt; grep -r PRIVATE-SECRET .", "public/x.txt"},
			{"mv private/x.txt x.txt", "cat x.txt", "x.txt"},
			{"mkdir -p m && mv .env m/env.txt", "cat m/env.txt; grep -r ENV-SECRET .", "m/env.txt"},
		} {
			t.Run(c.setup, func(t *testing.T) {
				p := approved(t, mode, &workspace.Options{Deny: deny, ReadOnly: []string{"vendor/"}}, nil)
				p.write(t, "conf/prod.json", `{"password": "PROD-SECRET"}`+"\n")
				p.write(t, "conf/app.json", "{}\n")
				p.write(t, "keys/tls.pem", "KEY-SECRET\n")
				p.write(t, "private/x.txt", "PRIVATE-SECRET\n")
				ok(t, p.run("true"))
				res := p.run(c.setup)
				if res.Status != tool.StatusOK {
					t.Logf("%s: %s", c.setup, res.Text()) // bubblewrap refuses some renames: fine
				}
				res = p.run(c.reveal)
				if mode == process.SandboxLandlock && strings.HasPrefix(c.setup, "mv private/") {
					return // see below
				}
				for _, s := range []string{"PROD-SECRET", "KEY-SECRET", "PRIVATE-SECRET", "ENV-SECRET"} {
					if strings.Contains(res.Text(), s) {
						t.Errorf("after %s, %s printed a protected file:\n%s", c.setup, c.reveal, res.Text())
					}
				}
				if mode == process.SandboxLandlock && strings.HasPrefix(c.setup, "mv private/") {
					// Landlock's gap: a command that writes reads and moves
					// what is inside a protected directory, whose files the
					// walk never enters (cp would do as well).
					return
				}
				res = p.call(t, "read_file", map[string]any{"path": c.readFile})
				if strings.Contains(res.Text(), "SECRET") {
					t.Errorf("after %s, read_file %s: %s", c.setup, c.readFile, res.Text())
				}
			})
		}
	})
}

// TestHostileSocketInWorkspace: a daemon of the host's listening on a
// Unix socket inside the workspace (a project's Redis or Postgres, puma's
// tmp/sockets) is out of reach of every command, network or not.
func TestHostileSocketInWorkspace(t *testing.T) {
	need(t, "perl")
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		for _, network := range []bool{false, true} {
			p := approved(t, mode, nil, &codetools.SandboxOptions{Network: network})
			accepted := make(chan struct{}, 10)
			listenInside(t, p.dir, "run/redis.sock", accepted)
			for _, cmd := range []string{
				`perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer => "run/redis.sock") and print "CONNECTED"'`,
				`perl -MIO::Socket::UNIX -e 'my $s = IO::Socket::UNIX->new(Peer => "run/redis.sock") or exit; print $s "SET x 1\r\n"; print "CONNECTED"'; touch written`,
			} {
				res := p.run(cmd)
				if strings.Contains(res.Text(), "CONNECTED") || len(accepted) > 0 {
					t.Errorf("network %v: %s reached the daemon:\n%s", network, cmd, res.Text())
				}
			}
		}
	})
}

// listenInside listens on a Unix socket at rel inside dir, and sends on
// accepted for each connection. A socket's path is short: it is made in a
// directory of its own and moved in, which keeps it listening.
func listenInside(t *testing.T, dir, rel string, accepted chan struct{}) {
	t.Helper()
	short, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	ln, err := listenUnix(filepath.Join(short, "s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	dest := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(short, "s"), dest); err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
}

func listenUnix(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // it is moved: its path is not this one
	return ln, nil
}

// TestHostileGitPlanted: what an approved command that is not version
// control leaves in the workspace never runs on the person's later git,
// outside any sandbox: a commondir leading to a config of its own, a
// replaced .git, a .git file leading elsewhere, a per-worktree config, a
// hook, a repository made in a subdirectory or a bare layout (which git
// finds when run there), core.hooksPath's directory. The person's git
// status, diff and log run after each, and the program each plants
// (core.fsmonitor, a hook) must not have run.
func TestHostileGitPlanted(t *testing.T) {
	need(t, "git")
	fsmonitor := `printf '[core]\n\tfsmonitor = "touch PWNED; false"\n'`
	plants := []struct{ name, cmd, gitDir string }{
		{"commondir", "cp -r .git evil && " + fsmonitor + " >> evil/config && echo \"$PWD/evil\" > .git/commondir", "."},
		{"a replaced .git", "mv .git .git.old && cp -r .git.old .git && " + fsmonitor + " >> .git/config", "."},
		{"a .git file", "cp -r .git gd && " + fsmonitor + " >> gd/config && rm -rf .git && echo 'gitdir: gd' > .git", "."},
		{"config.worktree", "printf '[extensions]\\n\\tworktreeConfig = true\\n' >> .git/config && " + fsmonitor + " > .git/config.worktree", "."},
		{"config", fsmonitor + " >> .git/config", "."},
		{"a hook", "printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/post-index-change && chmod +x .git/hooks/post-index-change && printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/pre-commit", "."},
		{"a repository in a subdirectory", "mkdir -p sub && cp -r .git sub/.git && " + fsmonitor + " >> sub/.git/config", "sub"},
		{"a .git file in a subdirectory", "mkdir -p sub2 && cp -r .git sub2/gd && " + fsmonitor + " >> sub2/gd/config && echo 'gitdir: gd' > sub2/.git", "sub2"},
		{"a bare layout", "mkdir -p b && cp -r .git/HEAD .git/objects .git/refs b/ && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = %s\\n\\tfsmonitor = \"touch PWNED; false\"\\n' \"$PWD\" > b/config", "b"},
		{"info/attributes", "mkdir -p .git/info && printf '* filter=evil\\n' > .git/info/attributes", "."},
	}
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		for _, plant := range plants {
			t.Run(plant.name, func(t *testing.T) {
				p := approved(t, mode, nil, nil)
				hostGit(t, p.dir, "init", "-q")
				hostGit(t, p.dir, "add", "-A")
				hostGit(t, p.dir, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init")
				p.write(t, "main.go", "package main // changed\n")
				ok(t, p.run("true"))
				marker := filepath.Join(p.tmp, "PWNED")
				cmd := strings.ReplaceAll(plant.cmd, "PWNED", marker)
				res := p.run(cmd)
				t.Logf("%s: %s", cmd, res.Text())
				for _, args := range [][]string{{"status"}, {"diff"}, {"log", "-1"}} {
					c := exec.Command("git", append([]string{"-C", filepath.Join(p.dir, plant.gitDir)}, args...)...)
					c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+p.tmp)
					c.CombinedOutput()
				}
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("the person's git ran what %q planted", cmd)
				}
				for _, hook := range []string{"post-index-change", "pre-commit"} {
					if b, err := os.ReadFile(filepath.Join(p.dir, ".git/hooks", hook)); err == nil && strings.Contains(string(b), "PWNED") {
						t.Errorf("a hook was planted: %s", hook)
					}
				}
			})
		}
	})
}

// hostGit runs git in dir, as the person would, outside any sandbox.
func hostGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestHostileGitCommits: a command that runs git alone changes the
// repository (git add, git commit, git init of a new one), though not
// what makes git run programs; any other command finds the repository
// read-only, and core.hooksPath's directory too.
func TestHostileGitCommits(t *testing.T) {
	need(t, "git")
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		p := approved(t, mode, nil, nil)
		hostGit(t, p.dir, "init", "-q")
		hostGit(t, p.dir, "config", "core.hooksPath", ".husky")
		hostGit(t, p.dir, "config", "user.email", "a@b")
		hostGit(t, p.dir, "config", "user.name", "a")
		p.write(t, ".husky/pre-commit", "#!/bin/sh\nexit 0\n")
		ok(t, p.run("true"))
		text := ok(t, p.run("git add -A && git commit -qm first && git log --oneline | wc -l"))
		if !strings.Contains(text, "\n1\n") {
			t.Errorf("git commit in the sandbox:\n%s", text)
		}
		text = ok(t, p.run("git init -q nested && echo made"))
		if _, err := os.Stat(filepath.Join(p.dir, "nested/.git")); err != nil || strings.Contains(text, "quarantined") {
			t.Errorf("a repository git made was moved:\n%s", text)
		}
		marker := filepath.Join(p.tmp, "PWNED")
		res := p.run("echo 'touch " + marker + "' >> .husky/pre-commit; touch other.txt && git add other.txt")
		t.Log(res.Text())
		if b, _ := os.ReadFile(filepath.Join(p.dir, ".husky/pre-commit")); strings.Contains(string(b), "PWNED") {
			t.Errorf("core.hooksPath's hook was changed:\n%s", b)
		}
		// Landlock cannot make the repository read-only under a writable
		// workspace: what it puts back is only what runs programs.
		if out, _ := exec.Command("git", "-C", p.dir, "diff", "--cached", "--name-only").Output(); mode.HidesDeniedFromWriters() && strings.Contains(string(out), "other.txt") {
			t.Errorf("a command that is not git alone staged a file: the repository was writable to it")
		}
	})
}

// TestHostileGitWithoutSandbox: without a sandbox, git runs with the
// person's rights what the repository names; so git status is asked
// about in a repository whose files name a program, and runs unasked in
// one whose do not.
func TestHostileGitWithoutSandbox(t *testing.T) {
	need(t, "git")
	for _, c := range []struct {
		name, file, content string
		asked               bool
	}{
		{"a plain repository", ".git/description", "x\n", false},
		{"core.fsmonitor", ".git/config", "[core]\n\tfsmonitor = \"touch PWNED; false\"\n", true},
		{"a pager", ".git/config", "[pager]\n\tstatus = touch PWNED\n", true},
		{"a filter", ".git/config", "[filter \"x\"]\n\tclean = touch PWNED\n", true},
		{"an include", ".git/config", "[include]\n\tpath = ../evil.cfg\n", true},
		{"a hook", ".git/hooks/post-index-change", "#!/bin/sh\ntouch PWNED\n", true},
		{"commondir", ".git/commondir", "../../evil\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, &codetools.Options{Sandbox: &codetools.SandboxOptions{Mode: process.SandboxNone}})
			hostGit(t, p.dir, "init", "-q")
			os.MkdirAll(filepath.Join(p.tmp, "evil"), 0o755)
			os.WriteFile(filepath.Join(p.tmp, "evil", "config"), []byte("[core]\n\tfsmonitor = \"touch PWNED; false\"\n"), 0o644)
			marker := filepath.Join(p.tmp, "PWNED")
			f := filepath.Join(p.dir, c.file)
			b, _ := os.ReadFile(f)
			if err := os.WriteFile(f, append(b, strings.ReplaceAll(c.content, "PWNED", marker)...), 0o755); err != nil {
				t.Fatal(err)
			}
			appr := tooltest.NewApprover(tooltest.Deny("no"))
			p.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AskForWritesPolicy(), Approver: appr}))
			res := p.call(t, "run_shell", map[string]any{"command": "git status"})
			if asked := appr.Asked() == 1; asked != c.asked {
				t.Errorf("asked %v, want %v: %s", asked, c.asked, res.Text())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("git ran the repository's program")
			}
		})
	}
}

// TestHostileStaged: a protected file's content that is staged (never
// committed) is in git's objects, which a sandbox shows so that git
// works: the commands that print what is staged are asked about, sandbox
// or not; denied, they print nothing.
func TestHostileStaged(t *testing.T) {
	need(t, "git")
	modes := []process.SandboxMode{process.SandboxNone}
	if process.DetectSandbox().Mode != process.SandboxNone {
		modes = append(modes, process.SandboxAuto)
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			p := newProject(t, &codetools.Options{Sandbox: &codetools.SandboxOptions{Mode: mode}})
			hostGit(t, p.dir, "init", "-q")
			hostGit(t, p.dir, "add", ".env", "main.go")
			cmds := []string{"git diff --cached", "git diff --staged", "git cat-file --batch-all-objects --batch",
				"git cat-file -p :.env", "git show :.env", "git show :0:.env", "git grep --cached TOKEN"}
			var denials []tooltest.Step
			for range cmds {
				denials = append(denials, tooltest.Deny("no"))
			}
			appr := tooltest.NewApprover(denials...)
			p.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AskForWritesPolicy(), Approver: appr}))
			for _, cmd := range cmds {
				asked := appr.Asked()
				res := p.call(t, "run_shell", map[string]any{"command": cmd})
				if appr.Asked() != asked+1 || strings.Contains(res.Text(), "ENV-SECRET") {
					t.Errorf("%s: asked %d times, want once and nothing printed:\n%s", cmd, appr.Asked()-asked, res.Text())
				}
			}
		})
	}
}

// TestHostileResources: a fork bomb, a runaway allocation and a file that
// would fill the disk cost the command, with the host's bounds: 200
// processes, 1 GiB and 200 MiB, in every file a command may write.
func TestHostileResources(t *testing.T) {
	need(t, "perl")
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		limits := process.Limits{Processes: 64, Memory: 512 << 20, FileSize: 64 << 20}
		if process.DetectSandbox().Bounds(mode).Processes == "" {
			limits.Processes = 0 // not enforceable here: TestSandboxLimitsRefused
		}
		p := approved(t, mode, nil, &codetools.SandboxOptions{Limits: limits})
		for _, c := range []struct{ cmd, bad string }{
			{`perl -e 'my $n = 0; for (1..200) { my $p = fork(); last unless defined $p; if (!$p) { close STDOUT; sleep 5; exit } $n++ } print $n >= 64 ? "UNBOUNDED\n" : "bounded\n"'`, "UNBOUNDED"},
			{`for i in $(seq 200); do sleep 5 & done 2>/dev/null; [ $(jobs -p | wc -l) -ge 64 ] && echo UNBOUNDED`, "UNBOUNDED"},
			{`perl -e '$x = "x" x (1 << 30); print "UNBOUNDED\n"'`, "UNBOUNDED"},
			{`head -c 200M /dev/zero > big; [ $(wc -c < big) -gt 67108864 ] && echo UNBOUNDED; rm -f big`, "UNBOUNDED"},
			{`head -c 200M /dev/zero > "$TMPDIR/big"; [ $(wc -c < "$TMPDIR/big") -gt 67108864 ] && echo UNBOUNDED`, "UNBOUNDED"},
			{`head -c 200M /dev/zero > /dev/shm/big 2>/dev/null; [ $(wc -c < /dev/shm/big) -gt 67108864 ] && echo UNBOUNDED`, "UNBOUNDED"},
		} {
			res := p.run(c.cmd)
			if strings.Contains(res.Text(), c.bad) {
				t.Errorf("%s: %s", c.cmd, res.Text())
			}
		}
	})
}

// TestHostileGitHooks: a command that runs git alone runs the
// repository's hooks, which run project code the model may have changed
// before (husky's pre-commit running scripts/lint.sh): what that code
// plants in .git (a commondir leading to a config of its own) is taken
// away when the command ends, in every mode.
func TestHostileGitHooks(t *testing.T) {
	need(t, "git")
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		p := approved(t, mode, nil, nil)
		hostGit(t, p.dir, "init", "-q")
		hostGit(t, p.dir, "config", "core.hooksPath", ".husky")
		hostGit(t, p.dir, "config", "user.email", "a@b")
		hostGit(t, p.dir, "config", "user.name", "a")
		p.write(t, ".husky/pre-commit", "#!/bin/sh\nsh scripts/lint.sh\n")
		os.Chmod(filepath.Join(p.dir, ".husky/pre-commit"), 0o755)
		p.write(t, "scripts/lint.sh", "exit 0\n")
		ok(t, p.run("true"))
		marker := filepath.Join(p.tmp, "PWNED")
		ok(t, p.run(`printf 'cp -r .git evil; printf "[core]\\n\\tfsmonitor = \"touch `+marker+`; false\"\\n" >> evil/config; echo "$PWD/evil" > .git/commondir\n' > scripts/lint.sh`))
		res := p.run("git add -A && git commit -qm planted")
		t.Log(res.Text())
		for _, args := range [][]string{{"status"}, {"log", "-1"}} {
			c := exec.Command("git", append([]string{"-C", p.dir}, args...)...)
			c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+p.tmp)
			c.CombinedOutput()
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("the person's git ran what a hook planted")
		}
		if _, err := os.Stat(filepath.Join(p.dir, ".git/commondir")); err == nil {
			t.Errorf(".git/commondir is still there")
		}
	})
}
