package process_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolbelt-go/tool/internal/sandboxtest"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

// These tests run real processes: sh, its children and grandchildren,
// daemons in their own sessions. Every process a test starts carries a
// mark in its environment; after the test, no live process may carry it
// (tooltest.TrackProcesses).

// marked returns an environment whose mark tooltest checks: no process
// carrying it may outlive the test.
func marked(t *testing.T) []string { return tooltest.TrackProcesses(t, nil) }

// need skips a test whose script uses a program this machine lacks
// (tooltest.Need: the package fails at the end, naming it), or fails it
// where the sandbox tests must run (sandboxtest.RequireEnv, as in CI).
func need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		_, err := exec.LookPath(p)
		tooltest.Need(t, sandboxtest.Program(p), err)
	}
}

func sh(t *testing.T, script string) process.Command {
	if strings.Contains(script, "setsid") {
		need(t, "setsid")
	}
	return process.Command{Path: "sh", Args: []string{"-c", script}, Env: marked(t), KillGrace: 300 * time.Millisecond}
}

// eachContainment runs f twice: with each command in a cgroup of its own
// (skipped where the host may not make one), and with the fallback that
// works everywhere (process group, environment mark, /proc sweeps).
func eachContainment(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	t.Run("cgroup", func(t *testing.T) {
		if !process.CgroupsWork() {
			t.Skip("no writable cgroup v2 here")
		}
		f(t)
	})
	t.Run("fallback", func(t *testing.T) {
		process.ForceFallback(t)
		f(t)
	})
}

// gone reports whether no process has the PID any more, or only a zombie
// (dead, waiting for a parent that is slow to reap), waiting up to two
// seconds for it.
func gone(pid int) bool {
	for range 200 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// readPID waits up to five seconds for a file holding a PID and returns it.
func readPID(t *testing.T, file string) int {
	t.Helper()
	for range 500 {
		if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("%s holds %q", file, b)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no PID in %s", file)
	return 0
}

// kill kills a process a test expects to be gone, so a failing test leaves
// nothing behind either.
func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
