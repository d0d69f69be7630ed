package tooltest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/toolbelt-go/tool/internal/procscan"
)

// TrackProcesses returns an environment for the programs a test starts
// (the host's, plus a fresh mark) and makes the test fail if any process
// carrying the mark is still alive two seconds after the test ends; such
// survivors are listed and killed. Pass it as the Env of a
// process.Command or a process.CLI: every descendant inherits the mark
// unless it clears its environment or writes its process title over it,
// so a test of such a program checks its PIDs itself.
//
// The check reads /proc, so it runs on Linux only; elsewhere the
// environment is returned and nothing is checked.
func TrackProcesses(t testing.TB) []string {
	t.Helper()
	var id [8]byte
	rand.Read(id[:])
	mark := "TOOLTEST_PROCESS_MARK_" + hex.EncodeToString(id[:]) + "=1"
	if procscan.Supported() {
		t.Cleanup(func() {
			deadline := time.Now().Add(2 * time.Second)
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
	return append(os.Environ(), mark)
}
