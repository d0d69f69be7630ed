package process

import (
	"syscall"

	"github.com/toolbelt-go/tool/internal/procscan"
)

// sweepMarked signals every process whose environment carries the tree's
// mark: the descendants that left the process group (setsid, a double
// fork). Without /proc it finds nothing, and the group signal is all there
// is. Forks racing a kill are caught by a few passes.
func sweepMarked(marker string, sig syscall.Signal) {
	for range 3 {
		found := procscan.Marked(marker + "=1")
		for _, p := range found {
			syscall.Kill(p.PID, sig)
		}
		if len(found) == 0 || sig != syscall.SIGKILL {
			return
		}
	}
}
