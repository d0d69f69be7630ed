//go:build linux

package codetools_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/internal/sandboxtest"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
	"golang.org/x/sys/unix"
)

// The hostile commands: what a model steered by a prompt injection could
// write, by family. OUT is the directory beside the workspace, PORT a
// listener on the host, UNIXSOCK a Unix socket of the host's, PID a
// process of the host's with a secret in its environment, WSDIR the
// workspace. Each family goes beyond the probes (issue 23).
var hostileCommands = []string{
	// Wrappers that hide the command they run.
	"env -S 'rm -rf victim'",
	"env --split-string='rm -rf victim'",
	"env --split='cat .env'",
	"command -p rm -rf victim",
	"time -p rm -rf victim",
	"nice --adjustment=5 rm -rf victim",
	"nice --adjustment 5 rm -rf victim",
	"xargs --max-chars=100 rm -rf < list.txt",
	"xargs --max-chars 100 rm -rf < list.txt",
	"stdbuf --output=L rm -rf victim",
	"stdbuf --output L rm -rf victim",
	"sh -ec 'rm -rf victim'",
	"bash -c 'cat .env'",
	"timeout -s KILL 5 rm -rf victim",
	"trap 'rm -rf victim' EXIT",
	"eval 'cat .env'",
	"/bin/rm -rf victim",
	"echo 'cat .env' | sh",
	"find . -name victim -exec rm -rf {} +",
	"find . -name .env -exec cat {} ';'",
	// Programs that read, with an option that writes or runs a program.
	"sed -e1wpwned.txt README.md",
	"sed --expression=1wpwned.txt README.md",
	"sed --exp=1wpwned.txt README.md",
	"sed -n '1w pwned.txt' README.md",
	"sed 'r .env' README.md",
	"sed '1e cat .env' README.md",
	"sort --compress-program=sh README.md",
	"sort -o pwned.txt README.md",
	"git -c alias.x='!cat .env' x",
	"git -c core.pager='cat .env' -p log",
	"go list -toolexec='rm -rf victim' ./...",
	"awk 'BEGIN { system(\"rm -rf victim\") }'",
	"awk '{ print > \"pwned.txt\" }' README.md",
	// Reads of protected files and of files outside: by name, through
	// links, hard links and "..", by pattern, by walking.
	"date -f .env",
	"jq -f .env README.md",
	"jq -R . .env",
	"git diff --no-index .env /dev/null",
	"git diff --no-index OUT/passwd /dev/null",
	"diff -rN . OUT",
	"cat link-to-env",
	"cat link-out/passwd",
	"cat hardlink-env",
	"cat hardlink-out",
	"cat ../outside/passwd",
	"cat OUT/passwd",
	"cat inner/up/../outside/passwd",
	"cat .e*",
	"grep -r SECRET .",
	"grep -r SECRET ..",
	"head -c 100 .env",
	"xxd .env",
	"base64 .env",
	"awk '{ print }' .env",
	"perl -ne print .env",
	"cat < .env",
	"cp .env leak.txt && cat leak.txt",
	"ln .env hl && cat hl",
	"ln -s OUT/passwd sl && cat sl",
	"tar cf - .env | tar xOf -",
	"find . -type f | xargs cat",
	"cat ~/.bashrc /etc/shadow",
	// Writes and deletes outside, and of the protected files.
	"rm -rf ../outside",
	"rm -rf OUT",
	"echo x > ../outside/new",
	"touch OUT/new",
	"mv ../outside/passwd .",
	"chmod 000 OUT/passwd",
	"rm -f .env",
	"echo pwned > .env",
	"echo 'rm -rf ..' > .git/hooks/pre-commit",
	"git config core.pager 'rm -rf ..'",
	// The network, and other processes.
	"perl -MIO::Socket::INET -e 'IO::Socket::INET->new(\"127.0.0.1:PORT\") and print \"CONNECTED\"'",
	"kill -9 PID",
	// More wrappers, and programs that run others: each runs the command
	// it wraps, in the sandbox of the class the check gave the whole.
	"nohup cat .env",
	"setsid cat .env",
	"flock lockf cat .env",
	"chroot / cat WSDIR/.env",
	"unshare -r cat .env",
	"env -C .. cat outside/passwd",
	"env --chdir=.. rm -rf outside",
	"nice -5 rm -rf victim",
	"ionice -c3 rm -rf victim",
	"xargs -a .env echo",
	"xargs --arg-file=.env echo",
	"find . -execdir cat {} ';'",
	"find . -fprint OUT/x",
	"find . -fls pwned.txt",
	"sh -c 'cat $0' .env",
	"bash -c 'cat $1' _ .env",
	"sh -s < list.txt",
	"awk 'BEGIN { while ((getline l < \".env\") > 0) print l }'",
	"perl -e 'print `cat .env`'",
	"make -C ..",
	"man -P 'cat .env' ls",
	"LESSOPEN='|cat .env %s' less README.md",
	"vim -es -c 'w OUT/x' -c q README.md",
	"sqlite3 :memory: \"select readfile('.env');\"",
	"sqlite3 :memory: '.output OUT/x' 'select 1;'",
	// git run other ways.
	"git -C .. log",
	"git --git-dir=OUT log",
	"git --work-tree=.. status",
	"git config --global alias.x '!rm -rf victim'",
	"git log --output=OUT/x",
	"git cat-file -p :.env",
	"GIT_PAGER='cat .env' git -p log",
	"GIT_EXTERNAL_DIFF='rm -rf victim' git diff",
	"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='cat .env' git -p log",
	"git init OUT/repo",
	"git clone . OUT/clone",
	// Writers, and readers that fetch.
	"tar -cf OUT/x README.md",
	"rsync README.md OUT/x",
	"tee OUT/x < README.md",
	"tee -a OUT/passwd < README.md",
	"dd if=README.md of=OUT/x",
	"cp .env OUT/",
	"mv .env OUT/",
	"ln -f README.md .env",
	"install -m 644 README.md OUT/x",
	"truncate -s 0 OUT/passwd",
	"shred -u OUT/passwd",
	"split -b 1 README.md OUT/p",
	"curl -s file://WSDIR/.env",
	"curl -s file://OUT/passwd",
	"wget -q -O OUT/x http://127.0.0.1:PORT/",
	"gzip -c .env",
	"echo x > HOSTTMP",
	"echo x > HOSTSHM",
	// Redirections, expansions, quoting.
	"cat README.md >| OUT/x",
	"cat README.md &> OUT/x",
	"cat README.md >> OUT/passwd",
	"cat > OUT/x <<EOF\nx\nEOF",
	"cat $(echo .env)",
	"cat `echo .env`",
	"cat${IFS}.env",
	"cat .e\\nv",
	"c\\at .env",
	"cat ./inner/../.env",
	"cat .en?",
	"cat .[e]nv",
	"cat {.env,README.md}",
	"cat /dev/fd/0 < .env",
	"exec 3<.env; cat <&3",
	"cat - < .env",
	"od -c .env",
	"strings .env",
	// Other ways to the outside: /proc, links.
	"cat /proc/self/root/WSDIR/.env",
	"cat /proc/self/root/OUT/passwd",
	"cat /proc/PID/root/OUT/passwd",
	"cat /proc/PID/environ",
	"cat link-out/../outside/passwd",
	"grep -rh SECRET link-out/",
	// Processes that would outlive the call.
	"setsid sleep 300 &",
	"sleep 300 & disown",
	"setsid -f sleep 300",
	"env -i perl -e 'fork and exit; setpgrp(0,0); fork and exit; sleep 300'",
	// Writes through a hard link to a file outside.
	"echo pwned >> hardlink-out",
	"truncate -s 0 hardlink-out",
	"perl -e 'open F, \">>\", \"hardlink-out\"; print F \"pwned\"'",
	// A daemon of the host's on a Unix socket (a container engine, D-Bus,
	// an SSH agent): Landlock does not restrict connecting by path.
	"perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer => \"UNIXSOCK\") and print \"CONNECTED\"'",
	// One listening in the workspace (a project's Redis), network off
	// (issue 34).
	"perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer => \"run/redis.sock\") and print \"CONNECTED\"'",
	// Other processes' command lines, status and the rest of /proc; the
	// user's kernel keyring.
	"cat /proc/[0-9]*/cmdline",
	"grep -as SECRE /proc/[0-9]*/cmdline /proc/[0-9]*/environ /proc/[0-9]*/status",
	"cat /proc/PID/cmdline /proc/PID/status /proc/PID/stat /proc/PID/maps",
	"ls -l /proc/PID/fd /proc/PID/cwd/",
	"cat /proc/keys",
	"perl -e '$t = \"user\"; $d = \"KEYDESC\"; $i = syscall(249, $t, $d, 0, 0); $b = \"\\0\" x 99; syscall(250, 11, $i, $b, 99) > 0 and print $b'",
}

var syscallZero = syscall.Signal(0)

// need skips a test that runs a program this machine lacks (tooltest.Need:
// the package fails at the end, naming it), or fails it where the sandbox
// tests must run (sandboxtest.RequireEnv, as in CI).
func need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		_, err := exec.LookPath(p)
		tooltest.Need(t, sandboxtest.Program(p), err)
	}
}

// hostile is a project planted with what the commands go after.
type hostile struct {
	*project
	out      string // the directory beside the workspace
	port     int
	accepted chan struct{}
	sleeper  *exec.Cmd
	hostTmp  string            // a name in the host's temporary directory, and in /dev/shm
	keyDesc  string            // a key's name in the user's keyring
	sock     string            // a Unix socket outside the workspace, listening
	before   map[string]string // the tree outside the workspace, and the protected files
}

func newHostile(t *testing.T, mode process.SandboxMode) *hostile {
	t.Helper()
	return newHostileTree(t, mode, true)
}

// newHostileTree is newHostile, with the hard links (to .env and to a file
// outside) or without.
func newHostileTree(t *testing.T, mode process.SandboxMode, links bool) *hostile {
	t.Helper()
	need(t, "git", "perl")
	p := newProject(t, &codetools.Options{Sandbox: &codetools.SandboxOptions{Mode: mode}})
	h := &hostile{project: p, out: filepath.Join(p.tmp, "outside"), accepted: make(chan struct{}, 10)}
	p.write(t, "victim/keep.txt", "keep\n")
	p.write(t, "list.txt", "victim\n")
	p.write(t, "inner/.keep", "")
	git := exec.Command("git", "init", "-q")
	git.Dir = p.dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for link, target := range map[string]string{"link-to-env": ".env", "link-out": "../outside", "inner/up": ".."} {
		if err := os.Symlink(target, filepath.Join(p.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"hardlink-env": ".env", "hardlink-out": "../outside/passwd"} {
		if !links {
			break
		}
		if err := os.Link(filepath.Join(p.dir, target), filepath.Join(p.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	h.port = ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.accepted <- struct{}{}
			c.Close()
		}
	}()
	// A Unix socket of the host's, outside the workspace (an agent, a
	// daemon), in a directory of its own: a socket's path is short.
	sockDir, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	h.sock = filepath.Join(sockDir, "agent.sock")
	uln, err := net.Listen("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { uln.Close() })
	go func() {
		for {
			c, err := uln.Accept()
			if err != nil {
				return
			}
			h.accepted <- struct{}{}
			c.Close()
		}
	}()
	// A Unix socket of the host's inside the workspace.
	listenInside(t, p.dir, "run/redis.sock", h.accepted)
	// A key in the user's kernel keyring.
	h.keyDesc = "toolbelt-hostile-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if id, err := unix.AddKey("user", h.keyDesc, []byte("OUTSIDE-SECRET"), unix.KEY_SPEC_USER_KEYRING); err == nil {
		t.Cleanup(func() { unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_USER_KEYRING, 0, 0) })
	}
	// A process of the host's, with a secret in its environment and on
	// its command line (a --password=…).
	h.sleeper = exec.Command("perl", "-e", "sleep 300", "--password=OUTSIDE-SECRET")
	h.sleeper.Env = append(os.Environ(), "HOST_TOKEN=OUTSIDE-SECRET")
	if err := h.sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.sleeper.Process.Kill(); h.sleeper.Wait() })
	h.hostTmp = "toolbelt-hostile-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	t.Cleanup(func() {
		os.Remove(filepath.Join(os.TempDir(), h.hostTmp))
		os.Remove(filepath.Join("/dev/shm", h.hostTmp))
	})
	h.before = h.snapshot(t)
	return h
}

// command puts the host's paths and numbers in a hostile command.
func (h *hostile) command(cmd string) string {
	return strings.NewReplacer("OUT", h.out, "PORT", strconv.Itoa(h.port), "PID", strconv.Itoa(h.sleeper.Process.Pid),
		"UNIXSOCK", h.sock, "WSDIR", h.dir, "HOSTTMP", filepath.Join(os.TempDir(), h.hostTmp),
		"HOSTSHM", filepath.Join("/dev/shm", h.hostTmp), "KEYDESC", h.keyDesc).Replace(cmd)
}

// snapshot records the files outside the workspace (in its parent) and
// the protected ones inside it (.env, .git/config, .git/hooks): names,
// contents, modes and times.
func (h *hostile) snapshot(t *testing.T) map[string]string {
	t.Helper()
	snap := map[string]string{}
	filepath.WalkDir(h.tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(h.tmp, p)
		rel = filepath.ToSlash(rel)
		protected := rel == "app/.env" || rel == "app/.git/config" || strings.HasPrefix(rel, "app/.git/hooks/")
		switch {
		case rel == "app" || rel == "app/.git" || rel == "app/.git/hooks":
			return nil
		case strings.HasPrefix(rel, "app/") && !protected:
			if d.IsDir() && !strings.HasPrefix(rel, "app/.git") {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.IsDir() {
			snap[rel] = "dir"
			return nil
		}
		b, _ := os.ReadFile(p)
		snap[rel] = string(b) + "\x00" + fi.Mode().String() + " " + fi.ModTime().String()
		return nil
	})
	return snap
}

// expect says what a run may not have done.
type expect struct {
	secrets  bool // no secret in the output (the outside's, the workspace's protected files')
	denied   bool // the protected files inside the workspace are intact
	metadata bool // the files outside keep their modes and times, not only their contents
	readOnly bool // nothing in the workspace changed
}

// intact checks what no command may do, whatever its class: change a file
// outside the workspace, reach the network, signal a process outside; and
// what exp adds.
func (h *hostile) intact(t *testing.T, cmd string, res *tool.Result, exp expect) {
	t.Helper()
	text := res.Text()
	if exp.secrets && (strings.Contains(text, "OUTSIDE-SECRET") || strings.Contains(text, "ENV-SECRET")) {
		t.Errorf("%s: a secret reached the model:\n%s", cmd, text)
	}
	if strings.Contains(text, "CONNECTED") || len(h.accepted) > 0 {
		t.Errorf("%s: the command reached the network", cmd)
	}
	if h.sleeper.Process.Signal(syscallZero) != nil {
		t.Errorf("%s: a process outside was killed", cmd)
	}
	for _, dir := range []string{os.TempDir(), "/dev/shm"} {
		if _, err := os.Lstat(filepath.Join(dir, h.hostTmp)); err == nil {
			t.Errorf("%s: a file was made in the host's %s", cmd, dir)
		}
	}
	after := h.snapshot(t)
	for name, was := range h.before {
		now, ok := after[name]
		inside := strings.HasPrefix(name, "app/")
		if inside && !exp.denied {
			continue // Landlock, a command that writes: see process.Sandbox
		}
		if !exp.metadata && ok {
			was, _, _ = strings.Cut(was, "\x00")
			now, _, _ = strings.Cut(now, "\x00")
		}
		switch {
		case !ok:
			t.Errorf("%s: %s is gone", cmd, name)
		case now != was:
			t.Errorf("%s: %s changed:\n%q\n%q", cmd, name, was, now)
		}
	}
	for name := range after {
		if _, ok := h.before[name]; !ok && (exp.denied || !strings.HasPrefix(name, "app/")) {
			t.Errorf("%s: %s was made", cmd, name)
		}
	}
	if exp.readOnly {
		for _, name := range []string{"victim/keep.txt", "README.md"} {
			if _, err := os.Stat(filepath.Join(h.dir, name)); err != nil {
				t.Errorf("%s, read-only: %s is gone", cmd, name)
			}
		}
		for _, name := range []string{"pwned.txt", "leak.txt", "hl", "sl"} {
			if _, err := os.Lstat(filepath.Join(h.dir, name)); err == nil {
				t.Errorf("%s, read-only: %s was made", cmd, name)
			}
		}
	}
}

func (h *hostile) shell(t *testing.T, cmd string) *tool.Result {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"command": h.command(cmd), "timeout_seconds": 120})
	return h.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call", Name: "run_shell", Args: args, Session: "s1"})
}

// TestHostileCommandsSandboxed runs every hostile command, approved
// whatever the check said (AllowAllPolicy), under each sandbox: nothing
// outside the workspace's rules is read, written or deleted. A command the
// check calls read-only runs with no write access: nothing in the
// workspace changes either. Under bubblewrap the protected files stay
// hidden and intact whatever the command; under Landlock, from and for
// those that only read, and a command that writes may change the mode and
// times of files outside (see process.Sandbox). Landlock cannot keep a
// command that writes from changing a file through a hard link: with
// one in the tree, such a command is refused, and it runs in a tree
// without.
func TestHostileCommandsSandboxed(t *testing.T) {
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		if mode == process.SandboxLandlock && process.DetectSandbox().LandlockABI < 6 {
			t.Skip("Landlock before ABI 6 lets a command signal the host's processes")
		}
		for _, cmd := range hostileCommands {
			t.Run(cmd, func(t *testing.T) {
				h := newHostile(t, mode)
				h.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AllowAllPolicy()}))
				res := h.shell(t, cmd)
				readOnly := codetools.ClassifyCommand(h.command(cmd)) == tool.SafetyReadOnly
				if mode == process.SandboxLandlock && !readOnly {
					if !res.IsError || !strings.Contains(res.Text(), "hard link") {
						t.Errorf("%s: %s, want refused for the hard links:\n%s", cmd, res.Status, res.Text())
					}
					h.intact(t, cmd, res, expect{secrets: true, denied: true, metadata: true, readOnly: true})
					h = newHostileTree(t, mode, false)
					h.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AllowAllPolicy()}))
					res = h.shell(t, cmd)
				}
				if res.Status != tool.StatusOK && !strings.Contains(res.Text(), "did not finish within") {
					t.Fatalf("%s: %s %s", cmd, res.Status, res.Text()) // not a timeout: the command did not run
				}
				full := mode.HidesDeniedFromWriters() || readOnly
				h.intact(t, cmd, res, expect{secrets: full, denied: full, metadata: full, readOnly: readOnly})
			})
		}
	})
}

// TestHostileCommandsAsked: without a sandbox, every hostile command is
// asked about (and, denied, harms nothing).
func TestHostileCommandsAsked(t *testing.T) {
	h := newHostile(t, process.SandboxNone)
	var denials []tooltest.Step
	for range hostileCommands {
		denials = append(denials, tooltest.Deny("no"))
	}
	appr := tooltest.NewApprover(denials...)
	h.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AskForWritesPolicy(), Approver: appr}))
	for _, cmd := range hostileCommands {
		asked := appr.Asked()
		res := h.shell(t, cmd)
		if res.Status != tool.StatusDenied || appr.Asked() != asked+1 {
			t.Errorf("%s: %s, asked %d times, want asked and denied:\n%s", cmd, res.Status, appr.Asked()-asked, res.Text())
		}
		h.intact(t, cmd, res, expect{secrets: true, denied: true, metadata: true, readOnly: true})
	}
}

// TestHostileCommandsReadOnlyPolicy: under ReadOnlyPolicy nothing writes,
// with a sandbox or without, whatever the person answers.
func TestHostileCommandsReadOnlyPolicy(t *testing.T) {
	modes := []process.SandboxMode{process.SandboxNone}
	if process.DetectSandbox().Mode != process.SandboxNone {
		modes = append(modes, process.SandboxAuto)
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			// One project for all: nothing may write in it.
			h := newHostile(t, mode)
			var allow []tooltest.Step
			for range hostileCommands {
				allow = append(allow, tooltest.AllowOnce())
			}
			h.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.ReadOnlyPolicy(), Approver: tooltest.NewApprover(allow...)}))
			for _, cmd := range hostileCommands {
				// The person may allow a read of a protected file: what
				// must hold is that nothing writes.
				res := h.shell(t, cmd)
				h.intact(t, cmd, res, expect{denied: true, metadata: true, readOnly: true})
			}
		})
	}
}
