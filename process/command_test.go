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

	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

// These tests run real processes: sh, its children and grandchildren.
// Every process a test starts carries a mark in its environment; after
// the test, no live process may carry it (tooltest.TrackProcesses).

// marked returns an environment whose mark tooltest checks: no process
// carrying it may outlive the test.
func marked(t *testing.T) []string { return tooltest.TrackProcesses(t) }

// needSetsid skips a test whose script starts a new session when the
// machine has no setsid program (util-linux, or busybox).
func needSetsid(t *testing.T, script string) {
	if strings.Contains(script, "setsid") {
		if _, err := exec.LookPath("setsid"); err != nil {
			t.Skip("no setsid on this machine")
		}
	}
}

func sh(t *testing.T, script string) process.Command {
	needSetsid(t, script)
	return process.Command{Path: "sh", Args: []string{"-c", script}, Env: marked(t), KillGrace: 300 * time.Millisecond}
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
		{name: "cancelled", script: `sleep 30 & echo started; wait`, cancel: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			if tt.cancel {
				ctx, cancel = context.WithCancel(context.Background())
				time.AfterFunc(limit, cancel)
			}
			defer cancel()
			start := time.Now()
			res, err := process.Run(ctx, sh(t, tt.script))
			took := time.Since(start)

			require.ErrorIs(t, err, process.ErrStopped)
			require.NotNil(t, res)
			assert.Equal(t, !tt.cancel, res.TimedOut)
			assert.Equal(t, tt.cancel, res.Canceled)
			assert.ErrorIs(t, err, map[bool]error{true: context.Canceled, false: context.DeadlineExceeded}[tt.cancel])
			assert.Equal(t, "started\n", res.Stdout)
			assert.Equal(t, -1, res.ExitCode)
			assert.NotEmpty(t, res.Signal)
			// Back within the limit, the kill grace and the pipe wait, with
			// room for a busy machine.
			assert.Less(t, took, limit+300*time.Millisecond+process.DefaultPipeWait+time.Second)
			assert.GreaterOrEqual(t, took, limit+tt.min)
		})
	}
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res, err := process.Run(context.Background(), sh(t, tt.script))
			require.NoError(t, err)
			assert.Equal(t, "done\n", res.Stdout)
			assert.Equal(t, 0, res.ExitCode)
			assert.Equal(t, tt.pipesHeld, res.PipesHeld)
			assert.Less(t, time.Since(start), process.DefaultPipeWait+2*time.Second)
		})
	}
}

func TestCommandResults(t *testing.T) {
	tests := []struct {
		name    string
		cmd     func(t *testing.T) process.Command
		stdout  string
		stderr  string
		exit    int
		errText string
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
		{name: "a read of the terminal gets end of file too",
			cmd:    func(t *testing.T) process.Command { return sh(t, `read line; echo "got [$line] $?"`) },
			stdout: "got [] 1\n"},
		{name: "working directory", cmd: func(t *testing.T) process.Command {
			c := sh(t, `pwd`)
			c.Dir = t.TempDir()
			return c
		}, stdout: "{dir}\n"},
		{name: "not found", cmd: func(t *testing.T) process.Command {
			return process.Command{Path: "no-such-program-here", Env: marked(t)}
		}, errText: "could not start"},
		{name: "killed by a signal", cmd: func(t *testing.T) process.Command { return sh(t, `kill -9 $$`) }, exit: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cmd(t)
			res, err := process.Run(context.Background(), c)
			if tt.errText != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errText)
				assert.Nil(t, res)
				return
			}
			require.NoError(t, err)
			want := strings.ReplaceAll(tt.stdout, "{dir}", c.Dir)
			if c.Dir != "" {
				want = strings.ReplaceAll(tt.stdout, "{dir}", evalSymlinks(t, c.Dir))
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

// BenchmarkCommandTrue compares RunCommand with its floor, exec.Cmd.Run,
// on a program that does nothing: the cost of the process group, the
// pipes and the sweep for marked processes.
func BenchmarkCommandTrue(b *testing.B) {
	b.Run("floor-exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("RunCommand", func(b *testing.B) {
		for b.Loop() {
			if _, err := process.Run(context.Background(), process.Command{Path: "true"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
