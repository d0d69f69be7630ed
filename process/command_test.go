//go:build linux

package process_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
)

func TestCommandContainment(t *testing.T) {
	// The program says which cgroup it runs in: one of its own in the
	// cgroup mode, the host's in the fallback.
	host, err := os.ReadFile("/proc/self/cgroup")
	require.NoError(t, err)
	const script = `grep '^0::' /proc/self/cgroup`
	t.Run("cgroup", func(t *testing.T) {
		if !process.CgroupsWork() {
			t.Skip("no writable cgroup v2 here")
		}
		res, err := process.Run(context.Background(), sh(t, script))
		require.NoError(t, err)
		assert.Regexp(t, `^0::/(.*/)?toolbelt-\d+-[0-9a-f]{16}\n$`, res.Stdout)
		name := filepath.Base(strings.TrimSpace(res.Stdout))
		assert.DirExists(t, process.CgroupParent())
		assert.NoDirExists(t, filepath.Join(process.CgroupParent(), name), "the command's cgroup is removed after it")
	})
	t.Run("fallback", func(t *testing.T) {
		process.ForceFallback(t)
		res, err := process.Run(context.Background(), sh(t, script))
		require.NoError(t, err)
		assert.Contains(t, string(host), res.Stdout)
	})
}

func TestCommandStopsTheWholeTree(t *testing.T) {
	const limit = 300 * time.Millisecond
	tests := []struct {
		name   string
		script string
		cancel bool // cancel instead of a deadline
		min    time.Duration
	}{
		{name: "children and grandchildren hold the pipes",
			script: `sleep 30 & (sleep 30; echo never) & sh -c 'sleep 30 & sleep 30' & echo started; wait`},
		{name: "a grandchild in its own session",
			script: `setsid sleep 30 & setsid sh -c 'sleep 30 & sleep 30' & echo started; wait`},
		{name: "a double fork that leaves the group",
			script: `(setsid sh -c 'sleep 30' &) ; echo started; sleep 30`},
		{name: "ignores the terminate signal",
			script: `trap '' TERM; echo started; while :; do sleep 0.05; done`, min: 300 * time.Millisecond},
		{name: "a descendant in its own session ignores the terminate signal",
			script: `trap '' TERM; setsid sleep 30 & echo started; wait`, min: 300 * time.Millisecond},
		{name: "cancelled", script: `sleep 30 & echo started; wait`, cancel: true},
	}
	eachContainment(t, func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := sh(t, tt.script)
				start := time.Now() // before the deadline is set, which took counts from
				ctx, cancel := context.WithTimeout(context.Background(), limit)
				if tt.cancel {
					ctx, cancel = context.WithCancel(context.Background())
					time.AfterFunc(limit, cancel)
				}
				defer cancel()
				res, err := process.Run(ctx, c)
				took := time.Since(start)

				require.ErrorIs(t, err, process.ErrStopped)
				require.NotNil(t, res)
				assert.Equal(t, !tt.cancel, res.TimedOut)
				assert.Equal(t, tt.cancel, res.Canceled)
				assert.ErrorIs(t, err, map[bool]error{true: context.Canceled, false: context.DeadlineExceeded}[tt.cancel])
				assert.Equal(t, "started\n", res.Stdout)
				assert.Equal(t, -1, res.ExitCode)
				assert.NotEmpty(t, res.Signal)
				// Back after the limit and the kill grace; the bound only
				// catches a hang, with room for any load (the speed is
				// BenchmarkConcurrentTimeouts').
				assert.Less(t, took, limit+300*time.Millisecond+10*time.Second)
				assert.GreaterOrEqual(t, took, limit+tt.min)
			})
		}
	})
}

func TestCommandExitLeavingDescendants(t *testing.T) {
	tests := []struct {
		name      string
		script    string
		pipesHeld bool
	}{
		{"a background child holds the pipes", `sleep 30 & echo done`, true},
		{"a background child in its own session holds the pipes", `setsid sleep 30 & echo done`, true},
		{"a background child with its own output", `sleep 30 >/dev/null 2>&1 & echo done`, false},
		{"a daemon in its own session with its own output", `(setsid sleep 30 >/dev/null 2>&1 &); echo done`, false},
	}
	eachContainment(t, func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				start := time.Now()
				res, err := process.Run(context.Background(), sh(t, tt.script))
				require.NoError(t, err)
				assert.Equal(t, "done\n", res.Stdout)
				assert.Equal(t, 0, res.ExitCode)
				assert.Equal(t, tt.pipesHeld, res.PipesHeld)
				assert.Less(t, time.Since(start), process.DefaultPipeWait+10*time.Second, "a hang")
			})
		}
	})
}

func TestCommandResults(t *testing.T) {
	tests := []struct {
		name    string
		cmd     func(t *testing.T) process.Command
		stdout  string
		stderr  string
		exit    int
		errText string // the model's text; the host's error has the path too
	}{
		{name: "exit status", cmd: func(t *testing.T) process.Command { return sh(t, `echo out; echo err >&2; exit 3`) },
			stdout: "out\n", stderr: "err\n", exit: 3},
		{name: "stdin is at end of file", cmd: func(t *testing.T) process.Command { return sh(t, `cat; echo after`) },
			stdout: "after\n"},
		{name: "stdin given", cmd: func(t *testing.T) process.Command {
			c := sh(t, `cat`)
			c.Stdin = strings.NewReader("fed in")
			return c
		}, stdout: "fed in"},
		{name: "stdin is a file", cmd: func(t *testing.T) process.Command {
			f, err := os.Open("/etc/hostname")
			require.NoError(t, err)
			t.Cleanup(func() { f.Close() })
			c := sh(t, `wc -c | tr -d ' '`)
			c.Stdin = f
			return c
		}, stdout: "{hostname bytes}\n"},
		{name: "a read of the terminal gets end of file too",
			cmd:    func(t *testing.T) process.Command { return sh(t, `read line; echo "got [$line] $?"`) },
			stdout: "got [] 1\n"},
		{name: "working directory", cmd: func(t *testing.T) process.Command {
			c := sh(t, `pwd`)
			c.Dir = t.TempDir()
			return c
		}, stdout: "{dir}\n"},
		{name: "killed by a signal", cmd: func(t *testing.T) process.Command { return sh(t, `kill -9 $$`) }, exit: -1},
		{name: "not found", cmd: func(t *testing.T) process.Command {
			return process.Command{Path: "/opt/host-secret/bin/no-such-program", Env: marked(t)}
		}, errText: "no-such-program could not be started: no such program"},
		{name: "not executable", cmd: func(t *testing.T) process.Command {
			path := filepath.Join(t.TempDir(), "secret-tool")
			require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o644))
			return process.Command{Path: path, Env: marked(t)}
		}, errText: "secret-tool could not be started: permission denied"},
		{name: "no working directory", cmd: func(t *testing.T) process.Command {
			c := sh(t, `pwd`)
			c.Dir = "/opt/host-secret/missing"
			return c
		}, errText: "sh could not be started: its working directory does not exist or is not a directory"},
		{name: "a NUL byte in an argument", cmd: func(t *testing.T) process.Command {
			c := sh(t, "echo a\x00b")
			c.Path = "/bin/sh"
			return c
		}, errText: "argument 2 of sh contains a NUL character (\\u0000), which cannot be passed to a program; remove it"},
		{name: "a NUL byte in the environment", cmd: func(t *testing.T) process.Command {
			c := sh(t, "true")
			c.Env = append(c.Env, "API_KEY=sk-\x00secret")
			return c
		}, errText: "environment entry"},
	}
	hostname, _ := os.ReadFile("/etc/hostname")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cmd(t)
			res, err := process.Run(context.Background(), c)
			if tt.errText != "" {
				require.Error(t, err)
				assert.Nil(t, res)
				var te *tool.Error
				require.ErrorAs(t, err, &te)
				assert.Contains(t, te.Message, tt.errText)
				// The model sees the program's base name, never where the
				// host keeps it or what its environment holds.
				assert.NotContains(t, te.Message, "/")
				assert.NotContains(t, te.Message, "sk-")
				return
			}
			require.NoError(t, err)
			want := strings.ReplaceAll(tt.stdout, "{hostname bytes}", strconv.Itoa(len(hostname)))
			if c.Dir != "" {
				want = strings.ReplaceAll(want, "{dir}", evalSymlinks(t, c.Dir))
			}
			assert.Equal(t, want, res.Stdout)
			assert.Equal(t, tt.stderr, res.Stderr)
			assert.Equal(t, tt.exit, res.ExitCode)
			assert.False(t, res.TimedOut || res.Canceled || res.PipesHeld)
			if tt.exit == -1 {
				assert.Equal(t, "killed", res.Signal)
			}
		})
	}
}

func evalSymlinks(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return r
}

func TestCommandNotStartedWhenTheCallIsOver(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := process.Run(ctx, sh(t, `echo ran`))
	assert.Nil(t, res)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, process.ErrStopped))
	var te *tool.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tool.StatusCanceled, te.Status)
}

// floodPeak runs a child that writes n bytes to stdout and returns the
// result and the peak heap in use while it ran.
func floodPeak(t testing.TB, env []string, n int64, capBytes int) (*process.Result, uint64) {
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var ms runtime.MemStats
		var highest uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			highest = max(highest, ms.HeapInuse)
			select {
			case <-done:
				peak <- highest
				return
			case <-tick.C:
			}
		}
	}()
	res, err := process.Run(context.Background(), process.Command{Path: "sh", Env: env, MaxOutputBytes: capBytes,
		Args: []string{"-c", "head -c " + strconv.FormatInt(n, 10) + " /dev/zero | tr '\\0' x; echo; echo end >&2"}})
	close(done)
	require.NoError(t, err)
	return res, <-peak
}

func TestCommandFloodIsCappedAndDrained(t *testing.T) {
	n := int64(1 << 30)
	if testing.Short() {
		n = 64 << 20
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	res, peak := floodPeak(t, marked(t), n, 32<<10)

	assert.Equal(t, n+1-int64(len(res.Stdout))+int64(len("\n[… "+strconv.FormatInt(res.StdoutDropped, 10)+" bytes cut here …]\n")), res.StdoutDropped)
	assert.LessOrEqual(t, len(res.Stdout), 32<<10+64)
	assert.True(t, strings.HasPrefix(res.Stdout, "xxxx"))
	assert.True(t, strings.HasSuffix(res.Stdout, "xxx\n"))
	assert.Equal(t, "end\n", res.Stderr)
	assert.Equal(t, 0, res.ExitCode)
	grew := int64(peak) - int64(before.HeapInuse)
	t.Logf("%d MiB through the pipe in %v; heap in use grew by at most %d KiB", n>>20, res.Duration, grew>>10)
	// The output never piles up: far below even 1% of what was written.
	assert.Less(t, grew, int64(8<<20))
}

func BenchmarkCommandFlood(b *testing.B) {
	const n = 256 << 20
	b.SetBytes(n)
	for b.Loop() {
		res, peak := floodPeak(b, os.Environ(), n, 32<<10)
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		if res.StdoutDropped < n-(32<<10) {
			b.Fatalf("dropped %d", res.StdoutDropped)
		}
	}
}

// BenchmarkCommandTrue compares Run with its floor, exec.Cmd.Run, on a
// program that does nothing: the cost of the process group, the pipes, and
// either the cgroup (made, killed, removed) or the /proc sweep:
//
//	go test -run '^$' -bench CommandTrue -count 5 ./process
func BenchmarkCommandTrue(b *testing.B) {
	b.Run("floor-exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	run := func(b *testing.B) {
		for b.Loop() {
			if _, err := process.Run(context.Background(), process.Command{Path: "true"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("cgroup", func(b *testing.B) {
		if !process.CgroupsWork() {
			b.Skip("no writable cgroup v2 here")
		}
		run(b)
	})
	b.Run("fallback", func(b *testing.B) {
		process.ForceFallback(b)
		run(b)
	})
}
