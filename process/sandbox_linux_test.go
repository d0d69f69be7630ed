package process_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolbelt-go/tool/internal/sandboxtest"
	"github.com/toolbelt-go/tool/process"
)

const (
	secretMarker  = "SANDBOX-SECRET"
	outsideMarker = "SANDBOX-OUTSIDE"
)

// jail is a workspace and a directory beside it, as a sandbox sees them.
type jail struct {
	ws, outside string
}

func newJail(t testing.TB) *jail {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	j := &jail{ws: filepath.Join(tmp, "ws"), outside: filepath.Join(tmp, "outside")}
	for name, content := range map[string]string{
		"ws/a.txt":          "hello\n",
		"ws/.env":           secretMarker + "\n",
		"ws/sub/key.pem":    secretMarker + "\n",
		"ws/secrets/x.txt":  secretMarker + "\n",
		"ws/vendor/lib.go":  "package lib\n",
		"outside/secret":    outsideMarker + "\n",
		"outside/keep/file": "keep\n",
	} {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return j
}

func (j *jail) sandbox(mode process.SandboxMode, write bool) *process.Sandbox {
	sb := &process.Sandbox{Mode: mode,
		Deny: []string{filepath.Join(j.ws, ".env"), filepath.Join(j.ws, "sub/key.pem"), filepath.Join(j.ws, "secrets")}}
	if write {
		sb.Write, sb.Temp = []string{j.ws}, true
		sb.ReadOnly = []string{filepath.Join(j.ws, "vendor")}
	} else {
		sb.Read = []string{j.ws}
	}
	return sb
}

// run runs a script in the sandbox, with $OUT naming the directory beside
// the workspace.
func (j *jail) run(t *testing.T, sb *process.Sandbox, script string) *process.Result {
	t.Helper()
	c := sh(t, script)
	c.Dir, c.Sandbox = j.ws, sb
	c.Env = append(c.Env, "OUT="+j.outside)
	res, err := process.Run(context.Background(), c)
	require.NoError(t, err)
	return res
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestSandbox: what each mode lets a program read, write and delete, run
// against the kernel.
func TestSandbox(t *testing.T) {
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		t.Run("read-only", func(t *testing.T) {
			j := newJail(t)
			sb := j.sandbox(mode, false)
			before, err := os.Stat(filepath.Join(j.outside, "secret"))
			require.NoError(t, err)
			res := j.run(t, sb, `cat a.txt; head -1 /etc/passwd | cut -d: -f1
				chmod 000 "$OUT/secret" a.txt; touch -d 2000-01-01 "$OUT/secret" a.txt; setfattr -n user.x -v 1 a.txt
				cat .env sub/key.pem secrets/x.txt "$OUT/secret" /etc/shadow 2>/dev/null
				ls "$OUT" "$HOME" /root 2>/dev/null
				echo x > new.txt; echo x > "$OUT/new"; rm -f a.txt; rm -rf "$OUT/keep"; mkdir d; ln a.txt hard
				touch "${TMPDIR:-/tmp}/t" && echo wrote-tmp
				true`)
			assert.Equal(t, mode, res.Sandbox)
			assert.Equal(t, "hello\nroot\n", res.Stdout, "stderr: %s", res.Stderr)
			assert.NotContains(t, res.Stdout+res.Stderr, secretMarker)
			assert.NotContains(t, res.Stdout+res.Stderr, outsideMarker)
			for _, p := range []string{"new.txt", "d", "hard"} {
				assert.False(t, exists(filepath.Join(j.ws, p)), "%s was made", p)
			}
			assert.FileExists(t, filepath.Join(j.ws, "a.txt"))
			assert.NoFileExists(t, filepath.Join(j.outside, "new"))
			assert.FileExists(t, filepath.Join(j.outside, "keep/file"))
			// Landlock does not restrict metadata; the seccomp filter of
			// a program that may not write refuses it.
			after, err := os.Stat(filepath.Join(j.outside, "secret"))
			require.NoError(t, err)
			assert.Equal(t, before.Mode(), after.Mode())
			assert.Equal(t, before.ModTime(), after.ModTime())
			fi, err := os.Stat(filepath.Join(j.ws, "a.txt"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
		})
		t.Run("write", func(t *testing.T) {
			j := newJail(t)
			sb := j.sandbox(mode, true)
			res := j.run(t, sb, `echo made > new.txt && cat new.txt
				echo t > "$TMPDIR/t" && cat "$TMPDIR/t"
				echo x > "$OUT/new"; rm -rf "$OUT/keep"; cat "$OUT/secret"; mv a.txt "$OUT/" 2>/dev/null
				true`)
			assert.Equal(t, "made\nt\n", res.Stdout, "stderr: %s", res.Stderr)
			assert.NotContains(t, res.Stdout+res.Stderr, outsideMarker)
			assert.NoFileExists(t, filepath.Join(j.outside, "new"))
			assert.FileExists(t, filepath.Join(j.outside, "keep/file"))
			assert.FileExists(t, filepath.Join(j.ws, "a.txt"))
			if !mode.HidesDeniedFromWriters() {
				return // Landlock: see the Sandbox documentation
			}
			res = j.run(t, sb, `cat .env sub/key.pem secrets/x.txt
				echo x > .env; rm -f .env; mv sub/key.pem k; ln .env hard; rm -rf secrets; echo x > secrets/new
				echo x > vendor/lib.go; rm -rf vendor; mv vendor v2
				true`)
			assert.NotContains(t, res.Stdout+res.Stderr, secretMarker)
			for name, want := range map[string]string{".env": secretMarker + "\n", "sub/key.pem": secretMarker + "\n",
				"secrets/x.txt": secretMarker + "\n", "vendor/lib.go": "package lib\n"} {
				b, err := os.ReadFile(filepath.Join(j.ws, name))
				if assert.NoError(t, err, "%s is gone", name) {
					assert.Equal(t, want, string(b), "%s changed", name)
				}
			}
			assert.NoFileExists(t, filepath.Join(j.ws, "hard"))
			assert.NoFileExists(t, filepath.Join(j.ws, "secrets/new"))
		})
		t.Run("the temporary directory is removed", func(t *testing.T) {
			j := newJail(t)
			res := j.run(t, j.sandbox(mode, true), `echo "$TMPDIR"; readlink -f /proc/self/cwd`)
			tmp := strings.Split(res.Stdout, "\n")[0]
			require.NotEmpty(t, tmp)
			if mode == process.SandboxLandlock {
				assert.NoDirExists(t, tmp)
			}
		})
		t.Run("a signal that ends the program", func(t *testing.T) {
			j := newJail(t)
			res := j.run(t, j.sandbox(mode, false), `kill -TERM $$`)
			assert.Equal(t, "terminated", res.Signal)
			assert.Equal(t, -1, res.ExitCode)
			res = j.run(t, j.sandbox(mode, false), `exit 3`)
			assert.Equal(t, 3, res.ExitCode)
		})
		t.Run("no signals to processes outside", func(t *testing.T) {
			if mode == process.SandboxLandlock && process.DetectSandbox().LandlockABI < 6 {
				t.Skip("Landlock before ABI 6 does not scope signals")
			}
			sleeper := exec.Command("sleep", "30")
			require.NoError(t, sleeper.Start())
			defer sleeper.Process.Kill()
			j := newJail(t)
			res := j.run(t, j.sandbox(mode, false), `kill -9 `+strconv.Itoa(sleeper.Process.Pid)+` && echo killed`)
			assert.Empty(t, res.Stdout)
			assert.Nil(t, sleeper.ProcessState)
			assert.NoError(t, sleeper.Process.Signal(syscall.Signal(0)), "the sleeper died")
		})
	})
}

// TestSandboxNetwork: without Network, neither TCP nor UDP reaches a
// listener on the host; with it, TCP does.
func TestSandboxNetwork(t *testing.T) {
	need(t, "perl")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hi\n"))
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer udp.Close()
	got := make(chan string, 10)
	go func() {
		buf := make([]byte, 64)
		for {
			n, _, err := udp.ReadFrom(buf)
			if err != nil {
				return
			}
			got <- string(buf[:n])
		}
	}()
	script := `perl -MIO::Socket::INET -e '
		my $t = IO::Socket::INET->new(PeerAddr => $ARGV[0], Timeout => 2);
		print $t ? "tcp " . <$t> : "no tcp\n";
		my $u = IO::Socket::INET->new(PeerAddr => $ARGV[1], Proto => "udp");
		print $u && $u->send("datagram") ? "udp sent\n" : "no udp\n";' "$0" "$1"`
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		// A program that may write nowhere has no network either, and
		// shares the host's namespace under bubblewrap: no socket at all.
		for _, c := range []struct{ write, network bool }{{true, false}, {true, true}, {false, false}} {
			network := c.network
			j := newJail(t)
			sb := j.sandbox(mode, c.write)
			sb.Network = network
			c := sh(t, script)
			c.Args = append(c.Args, ln.Addr().String(), udp.LocalAddr().String())
			c.Dir, c.Sandbox = j.ws, sb
			for len(got) > 0 {
				<-got // from an earlier run with the network
			}
			res, err := process.Run(context.Background(), c)
			require.NoError(t, err)
			if network {
				assert.Contains(t, res.Stdout, "tcp hi\n", res.Stderr)
				continue
			}
			assert.Contains(t, res.Stdout, "no tcp\n", res.Stderr)
			select {
			case d := <-got:
				t.Errorf("a datagram from the sandbox arrived: %q", d)
			case <-time.After(300 * time.Millisecond):
			}
		}
	})
}

// TestSandboxUnixSockets: a program reaches no Unix socket of the host's
// (a daemon's, an agent's, one listening inside the workspace), by its
// path or abstract, with the network or without, and whether it may write
// or not; a socket pair of its own still works. Landlock does not restrict
// connecting to a path, bubblewrap shows the workspace and its sockets,
// and with the network shares the host's abstract sockets: a seccomp
// filter refuses Unix sockets in every sandbox.
func TestSandboxUnixSockets(t *testing.T) {
	need(t, "perl")
	dir, err := os.MkdirTemp("", "sock") // a socket's path is short
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "agent.sock")
	ln, err := net.Listen("unix", path)
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan struct{}, 100)
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
	dgram := filepath.Join(dir, "log.sock")
	pc, err := net.ListenPacket("unixgram", dgram)
	require.NoError(t, err)
	defer pc.Close()
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			accepted <- struct{}{}
		}
	}()
	// An abstract socket (an X server's, a container shim's) has no path
	// a mount could hide: it is the network namespace's.
	abstract := fmt.Sprintf("toolbelt-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	aln, err := net.Listen("unix", "@"+abstract)
	require.NoError(t, err)
	defer aln.Close()
	go func() {
		for {
			c, err := aln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	script := `perl -MIO::Socket::UNIX -MSocket -e '
		print IO::Socket::UNIX->new(Peer => $ARGV[0]) ? "connected\n" : "refused\n";
		print IO::Socket::UNIX->new(Peer => $ARGV[3]) ? "inside connected\n" : "inside refused\n";
		print socket(S, AF_UNIX, SOCK_STREAM, 0) && connect(S, pack_sockaddr_un("\0" . $ARGV[2])) ? "abstract connected\n" : "abstract refused\n";
		my $u = IO::Socket::UNIX->new(Type => SOCK_DGRAM);
		print $u && $u->send("x", 0, pack_sockaddr_un($ARGV[1])) ? "sent\n" : "not sent\n";
		print socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, PF_UNSPEC) ? "pair\n" : "no pair\n";' "$0" "$1" "$2" "$3"`
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		for _, write := range []bool{false, true} {
			for _, network := range []bool{false, true} {
				j := newJail(t)
				// A daemon of the host's listening in the workspace (a
				// project-local Redis or Postgres, puma's tmp/sockets),
				// which no mount hides: the sandbox shows the workspace.
				inside := filepath.Join(j.ws, "run", "redis.sock")
				require.NoError(t, os.MkdirAll(filepath.Dir(inside), 0o755))
				iln, err := net.Listen("unix", inside)
				require.NoError(t, err)
				defer iln.Close()
				go func() {
					for {
						c, err := iln.Accept()
						if err != nil {
							return
						}
						accepted <- struct{}{}
						c.Close()
					}
				}()
				sb := j.sandbox(mode, write)
				sb.Network = network
				c := sh(t, script)
				c.Args = append(c.Args, path, dgram, abstract, "run/redis.sock")
				c.Dir, c.Sandbox = j.ws, sb
				res, err := process.Run(context.Background(), c)
				require.NoError(t, err)
				assert.Regexp(t, `(?m)^refused$`, res.Stdout, "write %v, network %v: %s", write, network, res.Stderr)
				assert.Contains(t, res.Stdout, "inside refused\n", "write %v, network %v: %s", write, network, res.Stderr)
				assert.Contains(t, res.Stdout, "not sent\n", "write %v, network %v: %s", write, network, res.Stderr)
				assert.Contains(t, res.Stdout, "abstract refused\n", "write %v, network %v: %s", write, network, res.Stderr)
				assert.Contains(t, res.Stdout, "pair\n", "write %v, network %v: %s", write, network, res.Stderr)
				assert.NotContains(t, res.Stdout, "no pair", "write %v, network %v: %s", write, network, res.Stderr)
				time.Sleep(50 * time.Millisecond) // a datagram is read after it is sent
				assert.Empty(t, accepted, "write %v, network %v: a socket of the host's was reached", write, network)
			}
		}
	})
}

// TestSandboxHardLinkUnderWrite: a denied file with another name outside
// (a hard link) is never changed through the sandbox. Bubblewrap hides it;
// Landlock cannot hide it from a program that may write beside it, so Run
// refuses that sandbox rather than let a write reach the file outside.
func TestSandboxHardLinkUnderWrite(t *testing.T) {
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		for _, write := range []bool{false, true} {
			j := newJail(t)
			link := filepath.Join(j.ws, "innocent.txt")
			require.NoError(t, os.Link(filepath.Join(j.outside, "secret"), link))
			sb := j.sandbox(mode, write)
			sb.Deny = append(sb.Deny, link)
			c := sh(t, `cat innocent.txt; echo pwned >> innocent.txt`)
			c.Dir, c.Sandbox = j.ws, sb
			res, err := process.Run(context.Background(), c)
			if mode == process.SandboxLandlock && write {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "hard links")
			} else {
				require.NoError(t, err)
				assert.NotContains(t, res.Stdout, outsideMarker)
			}
			b, err := os.ReadFile(filepath.Join(j.outside, "secret"))
			require.NoError(t, err)
			assert.Equal(t, outsideMarker+"\n", string(b), "write %v: the file outside changed", write)
		}
	})
}

// TestSandboxStopsTheWholeTree: the process-tree guarantees hold inside
// the sandbox, with and without cgroups. The command is stopped once it
// has started its tree (a file says so), however long a loaded machine
// takes to start it.
func TestSandboxStopsTheWholeTree(t *testing.T) {
	need(t, "setsid")
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		eachContainment(t, func(t *testing.T) {
			for _, script := range []string{
				`sleep 30 & setsid sh -c 'sleep 30 & sleep 30' & echo started; : > started; wait`,
				`trap '' TERM; (setsid sleep 30 &); echo started; : > started; sleep 30`,
			} {
				j := newJail(t)
				c := sh(t, script)
				c.Dir, c.Sandbox = j.ws, j.sandbox(mode, true)
				ctx, cancel := context.WithCancel(context.Background())
				go func() {
					defer cancel()
					for range 6000 {
						if exists(filepath.Join(j.ws, "started")) {
							return
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
				res, err := process.Run(ctx, c)
				require.ErrorIs(t, err, context.Canceled)
				assert.Equal(t, "started\n", res.Stdout)
				// tooltest.TrackProcesses (through marked) fails the test
				// if a sleep survived.
			}
		})
	})
}

// TestSandboxErrors: a sandbox that cannot be made runs nothing, and says
// why.
func TestSandboxErrors(t *testing.T) {
	sandboxtest.Need(t, process.SandboxAuto)
	j := newJail(t)
	cases := []struct {
		name string
		c    process.Command
		msg  string
	}{
		{"a relative path", process.Command{Path: "true", Sandbox: &process.Sandbox{Read: []string{"ws"}}}, "not absolute"},
		{"no sandbox, asked for", process.Command{Path: "true", Sandbox: &process.Sandbox{Mode: process.SandboxNone}}, "pass no Sandbox"},
		{"a working directory it hides", process.Command{Path: "true", Dir: j.outside, Sandbox: &process.Sandbox{Read: []string{j.ws}}}, "not among the paths"},
		{"a program it hides", process.Command{Path: filepath.Join(j.outside, "secret"), Dir: j.ws, Sandbox: &process.Sandbox{Read: []string{j.ws}}}, "outside the paths"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.c.Env = marked(t)
			_, err := process.Run(context.Background(), c.c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.msg)
			assert.NotContains(t, err.Error(), outsideMarker)
		})
	}
}

func TestDetectSandbox(t *testing.T) {
	sup := process.DetectSandbox()
	t.Logf("%+v", sup)
	none := process.DetectSandboxWith("")
	assert.ErrorContains(t, none.Bubblewrap, "apt-get install bubblewrap")
	broken := process.DetectSandboxWith("/bin/false")
	assert.ErrorContains(t, broken.Bubblewrap, "cannot make a sandbox here")
	if sup.Landlock == nil {
		assert.Equal(t, process.SandboxLandlock, broken.Mode, "Landlock is what is left")
	} else {
		assert.Equal(t, process.SandboxNone, broken.Mode)
		assert.Error(t, broken.Err())
	}
	if sup.Bubblewrap == nil {
		assert.Equal(t, process.SandboxBubblewrap, sup.Mode)
	}
}

// TestSandboxUnprivileged runs the sandbox tests' core as an ordinary user
// (nobody), as a person's agent runs: bubblewrap in an unprivileged user
// namespace, Landlock without capabilities to drop, no cgroups to make.
// It needs root to become nobody, and setpriv.
func TestSandboxUnprivileged(t *testing.T) {
	if os.Getenv("TOOLBELT_SANDBOX_AS_USER") != "" {
		testSandboxAsUser(t)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("runs as an ordinary user already: TestSandbox is this test")
	}
	need(t, "setpriv")
	sandboxtest.Need(t, process.SandboxAuto)
	// The test binary, where nobody may run it.
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	for d := filepath.Dir(dir); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	bin := filepath.Join(dir, "process.test")
	src, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, src, 0o755))
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", bin,
		"-test.run=^TestSandboxUnprivileged$", "-test.v")
	cmd.Env = append(marked(t), "TOOLBELT_SANDBOX_AS_USER=1", "TMPDIR=/tmp", "HOME=/tmp")
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	require.NoError(t, err)
	assert.Contains(t, string(out), "--- PASS: TestSandboxUnprivileged")
}

func testSandboxAsUser(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Fatal("still root")
	}
	sup := process.DetectSandbox()
	t.Logf("as uid %d: %+v", os.Geteuid(), sup)
	for _, mode := range sandboxtest.Modes {
		if (mode == process.SandboxBubblewrap && sup.Bubblewrap != nil) || (mode == process.SandboxLandlock && sup.Landlock != nil) {
			t.Logf("%v: not available to an ordinary user here", mode)
			continue
		}
		j := newJail(t)
		res := j.run(t, j.sandbox(mode, true), `cat a.txt; cat "$OUT/secret" 2>/dev/null; echo x > "$OUT/new"; echo ok > b.txt && cat b.txt`)
		assert.Equal(t, "hello\nok\n", res.Stdout, "%v: %s", mode, res.Stderr)
		res = j.run(t, j.sandbox(mode, false), `cat .env sub/key.pem 2>/dev/null; echo done`)
		assert.Equal(t, "done\n", res.Stdout, "%v: %s", mode, res.Stderr)
		assert.NoFileExists(t, filepath.Join(j.outside, "new"))
		// An ordinary user's processes: counted in bubblewrap's user
		// namespace, apart from the user's others.
		bounds := sup.Bounds(mode)
		t.Logf("%v as uid %d: %+v", mode, os.Geteuid(), bounds)
		if bounds.Processes == "" {
			continue
		}
		sb := j.sandbox(mode, false)
		sb.Limits.Processes = 32
		res = j.run(t, sb, `perl -e 'my $n = 0; for (1..100) { my $p = fork(); last unless defined $p; if (!$p) { close STDOUT; close STDERR; sleep 5; exit } $n++ } print "forked $n\n"'`)
		forked := 100
		fmt.Sscanf(res.Stdout, "forked %d", &forked)
		assert.Less(t, forked, 32, "%v: %s", mode, res.Stderr)
	}
}

// TestSandboxKeyring: a key the host keeps in the user's kernel keyring
// (aws-vault's keyctl backend, a Kerberos KEYRING: cache) is out of reach:
// the keyring is the user's, not a namespace's, and a seccomp filter
// refuses add_key, request_key and keyctl in every sandbox.
func TestSandboxKeyring(t *testing.T) {
	need(t, "perl")
	desc := fmt.Sprintf("toolbelt-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	id, err := unix.AddKey("user", desc, []byte(secretMarker), unix.KEY_SPEC_USER_KEYRING)
	if err != nil {
		t.Skipf("no user keyring here: %v", err)
	}
	defer unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_USER_KEYRING, 0, 0)
	// Found by its description (request_key), or by its serial, from the
	// user keyring and from the session's; read with KEYCTL_READ.
	script := `perl -e '
		my ($desc, $serial) = @ARGV;
		my $type = "user";
		my @ids = ($serial + 0, syscall(` + strconv.Itoa(unix.SYS_REQUEST_KEY) + `, $type, $desc, 0, 0));
		push @ids, syscall(` + strconv.Itoa(unix.SYS_KEYCTL) + `, 0, -4, 0) >= 0 ? "keyring" : ();
		for my $id (@ids) {
			next if $id eq "keyring" || $id < 0;
			my $buf = "\0" x 256;
			my $n = syscall(` + strconv.Itoa(unix.SYS_KEYCTL) + `, 11, $id, $buf, 256);
			print $n > 0 ? "read " . substr($buf, 0, $n) . "\n" : "refused\n";
		}
		print "user keyring\n" if grep { $_ eq "keyring" } @ids;
		print "done\n";' "$0" "$1"`
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		for _, write := range []bool{false, true} {
			j := newJail(t)
			c := sh(t, script)
			c.Args = append(c.Args, desc, strconv.Itoa(id))
			c.Dir, c.Sandbox = j.ws, j.sandbox(mode, write)
			res, err := process.Run(context.Background(), c)
			require.NoError(t, err)
			assert.Contains(t, res.Stdout, "done\n", res.Stderr)
			assert.NotContains(t, res.Stdout, secretMarker, "write %v", write)
			assert.NotContains(t, res.Stdout, "user keyring", "write %v", write)
		}
	})
	// Unsandboxed, the same script reads it: the test tests something.
	c := sh(t, script)
	c.Args = append(c.Args, desc, strconv.Itoa(id))
	res, err := process.Run(context.Background(), c)
	require.NoError(t, err)
	assert.Contains(t, res.Stdout, "read "+secretMarker, res.Stderr)
}

// TestSandboxHostProcesses: a program reads nothing of the host's
// processes through /proc: not the command line (a password given as an
// argument), nor the environment, the status, the memory map, the open
// files; nor the keys /proc lists. Bubblewrap shows a /proc of the
// sandbox's own PID namespace; Landlock grants /proc but for the
// processes' directories.
func TestSandboxHostProcesses(t *testing.T) {
	need(t, "perl")
	host := exec.Command("perl", "-e", "sleep 300", "--password="+outsideMarker)
	host.Env = append(os.Environ(), "HOST_TOKEN="+outsideMarker)
	require.NoError(t, host.Start())
	defer func() { host.Process.Kill(); host.Wait() }()
	pid := strconv.Itoa(host.Process.Pid)
	script := `cat /proc/[0-9]*/cmdline /proc/` + pid + `/cmdline /proc/` + pid + `/environ /proc/` + pid + `/status \
		/proc/` + pid + `/stat /proc/` + pid + `/maps /proc/` + pid + `/comm /proc/keys /proc/key-users 2>/dev/null | tr '\0' ' '
		ls -l /proc/` + pid + `/fd/ /proc/` + pid + `/cwd/ 2>/dev/null
		grep -l SANDBOX-OUTSID[E] /proc/*/cmdline /proc/*/task/*/cmdline 2>/dev/null
		cat /proc/cpuinfo /proc/meminfo | grep -c . >/dev/null && echo system
		readlink /proc/self/exe >/dev/null && echo self`
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		for _, write := range []bool{false, true} {
			j := newJail(t)
			res := j.run(t, j.sandbox(mode, write), script)
			assert.NotContains(t, res.Stdout, outsideMarker, "write %v", write)
			assert.NotContains(t, res.Stdout, "perl", "write %v", write)
			assert.Contains(t, res.Stdout, "system\nself\n", "write %v: %s", write, res.Stderr)
		}
	})
}

// TestSandboxDevices: a program that may not write has no writable /dev
// (bubblewrap's own is a tmpfs of half the memory, /dev/shm included) and
// no terminal (Landlock: the person's, through /dev/tty); one that may
// write has a /dev/shm of its own, gone when it ends.
func TestSandboxDevices(t *testing.T) {
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		j := newJail(t)
		res := j.run(t, j.sandbox(mode, false), `echo x > /dev/shm/x && echo shm; echo x > /dev/new && echo dev
			echo x > /dev/tty && echo tty; cat /dev/tty </dev/null >/dev/null 2>&1 && echo tty-read
			echo x > /dev/null && head -c 1 /dev/zero | wc -c`)
		assert.Equal(t, "1\n", strings.TrimSpace(res.Stdout)+"\n", res.Stderr)
		res = j.run(t, j.sandbox(mode, true), `echo x > /dev/tty && echo tty; echo x > /dev/null && echo null
			[ -w /dev/shm ] && echo x > /dev/shm/x && cat /dev/shm/x`)
		assert.NotContains(t, res.Stdout, "tty", res.Stderr)
		assert.Contains(t, res.Stdout, "null\n", res.Stderr)
		if mode == process.SandboxBubblewrap {
			assert.Contains(t, res.Stdout, "x\n", res.Stderr)
		}
	})
}

// TestSandboxTerminal: a program cannot write to the person's terminal
// (escape sequences, a fake prompt) nor read it (keystrokes), though the
// host runs in one. The test runs itself again with a terminal of its own
// (a pseudo-terminal), whose other end it reads.
func TestSandboxTerminal(t *testing.T) {
	if os.Getenv("TOOLBELT_SANDBOX_IN_TTY") != "" {
		for _, mode := range sandboxtest.Modes {
			if process.DetectSandbox().Mode == process.SandboxNone {
				break
			}
			for _, write := range []bool{false, true} {
				j := newJail(t)
				res := j.run(t, j.sandbox(mode, write), `echo `+outsideMarker+` > /dev/tty; echo done`)
				fmt.Fprintf(os.Stderr, "%v write=%v: %q %q\n", mode, write, res.Stdout, res.Stderr)
			}
		}
		return
	}
	sandboxtest.Need(t, process.SandboxAuto)
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	defer master.Close()
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	require.NoError(t, unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0))
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	defer tty.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSandboxTerminal$")
	cmd.Env = append(marked(t), "TOOLBELT_SANDBOX_IN_TTY=1")
	var stderr strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	require.NoError(t, cmd.Start())
	tty.Close()
	seen := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(master) // EIO once the last holder of the terminal is gone
		seen <- string(b)
	}()
	require.NoError(t, cmd.Wait(), stderr.String())
	t.Log(stderr.String())
	require.Contains(t, stderr.String(), "done", "the sandboxed commands ran")
	var out string
	select {
	case out = <-seen:
	case <-time.After(5 * time.Second):
		master.Close()
		out = <-seen
	}
	assert.NotContains(t, out, outsideMarker, "a sandboxed command wrote to the terminal")
}

// TestSandboxLimits: a fork bomb, a runaway allocation and a file that
// would fill the disk cost the command, not the machine: past the bounds
// a fork, an allocation, a write fails. Defaults apply when the host sets
// none, and a negative limit lifts its bound.
func TestSandboxLimits(t *testing.T) {
	need(t, "perl")
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		bounds := process.DetectSandbox().Bounds(mode)
		t.Logf("%v: %+v", mode, bounds)
		for _, write := range []bool{false, true} {
			j := newJail(t)
			sb := j.sandbox(mode, write)
			sb.Limits = process.Limits{Processes: 64, Memory: 256 << 20, FileSize: 16 << 20}
			if bounds.Processes == "" {
				sb.Limits.Processes = 0 // the default, where it can be: see TestSandboxLimitsRefused
			}
			res := j.run(t, sb, `perl -e 'my $n = 0; for (1..200) { my $p = fork(); last unless defined $p; if (!$p) { close STDOUT; close STDERR; sleep 5; exit } $n++ } print "forked $n\n"; kill 9, -$$'
				perl -e '$x = "x" x (512 << 20); print "allocated\n"'
				head -c 64M /dev/zero > big; wc -c < big`)
			if bounds.Processes != "" {
				forked := 0
				fmt.Sscanf(res.Stdout[strings.Index(res.Stdout, "forked"):], "forked %d", &forked)
				assert.Less(t, forked, 64, "write %v: %s", write, res.Stderr)
			}
			assert.NotContains(t, res.Stdout, "allocated", "write %v", write)
			if write {
				assert.Contains(t, res.Stdout, "16777216\n", "write %v: %s", write, res.Stderr)
			}
		}
		// The defaults, and none.
		j := newJail(t)
		res := j.run(t, j.sandbox(mode, true), `ulimit -f; ulimit -d`)
		assert.Equal(t, fmt.Sprintf("%d\n", process.DefaultMaxFileSize/512), strings.SplitAfter(res.Stdout, "\n")[0], res.Stderr)
		sb := j.sandbox(mode, true)
		sb.Limits = process.Limits{Processes: -1, Memory: -1, FileSize: -1}
		res = j.run(t, sb, `ulimit -f; ulimit -d`)
		assert.Equal(t, "unlimited\nunlimited\n", res.Stdout, res.Stderr)
	})
}

// TestSandboxLimitsRefused: a bound of the host's that this machine cannot
// enforce runs nothing. Without cgroups, root has no bound on processes.
func TestSandboxLimitsRefused(t *testing.T) {
	process.NoCgroupLimits(t)
	sandboxtest.Each(t, func(t *testing.T, mode process.SandboxMode) {
		if process.DetectSandbox().Bounds(mode).Processes != "" {
			t.Skipf("%v bounds processes without cgroups here", mode)
		}
		j := newJail(t)
		sb := j.sandbox(mode, true)
		sb.Limits.Processes = 10
		c := sh(t, `echo ran > ran.txt`)
		c.Dir, c.Sandbox = j.ws, sb
		_, err := process.Run(context.Background(), c)
		require.ErrorContains(t, err, "cannot be enforced here")
		assert.NoFileExists(t, filepath.Join(j.ws, "ran.txt"))
	})
}
