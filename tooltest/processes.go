package tooltest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/toolbelt-go/tool/internal/procscan"
	"github.com/toolbelt-go/tool/process"
)

// TrackProcesses returns env with a fresh mark added, for the programs a
// test starts, and makes the test fail if any process carrying the mark is
// still alive ten seconds after the test ends; such survivors are listed
// and killed. env is the environment the programs would get without the
// mark: nil means [process.MinimalEnv](), what a process.Command or a
// process.CLI with no Env gets; pass process.MinimalEnv("GOFLAGS") to add
// to it, or os.Environ() for the host's whole environment:
//
//	cmd := process.Command{Path: "make", Env: tooltest.TrackProcesses(t, nil)}
//
// Every descendant inherits the mark unless it clears its environment or
// writes its process title over it, so a test of such a program checks its
// PIDs itself. env is not modified.
//
// The check reads /proc, so it runs on Linux only; elsewhere env and the
// mark are returned and nothing is checked.
func TrackProcesses(t testing.TB, env []string) []string {
	t.Helper()
	var id [8]byte
	rand.Read(id[:])
	mark := "TOOLTEST_PROCESS_MARK_" + hex.EncodeToString(id[:]) + "=1"
	if procscan.Supported() {
		t.Cleanup(func() {
			deadline := time.Now().Add(10 * time.Second) // only a survivor waits this long: a loaded machine may be slow to reap
			for {
				alive := procscan.Marked(mark)
				if len(alive) == 0 {
					return
				}
				if time.Now().After(deadline) {
					for _, p := range alive {
						t.Errorf("process %d (%s) outlived the test", p.PID, p.Cmdline)
						if proc, err := os.FindProcess(p.PID); err == nil {
							proc.Kill()
						}
					}
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	if env == nil {
		env = process.MinimalEnv()
	}
	return append(slices.Clip(env), mark)
}
