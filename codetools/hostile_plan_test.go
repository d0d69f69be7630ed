//go:build linux

package codetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
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
	env := tooltest.TrackProcesses(t, append(process.MinimalEnv(), "TERM=dumb", "NO_COLOR=1"))
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
