//go:build unix

package process

import (
	"os"
	"syscall"
)

// signal sends SIGTERM, or SIGKILL when force is set, to every process of
// the tree: the program's process group, the program itself (it may have
// left its group), and the rest of the tree (its cgroup, or the marked
// processes on Linux). A SIGKILL returns when the processes it reached are
// gone, as far as the platform lets it know. Processes that are already
// gone are not an error.
func (t *processTree) signal(force bool) {
	sig := syscall.SIGTERM
	if force {
		sig = syscall.SIGKILL
	}
	t.signalRest(sig, func() {
		if t.proc == nil {
			return
		}
		// The group's ID is the leader's PID; it stays valid while any
		// member lives, even after the leader was reaped. Once the group
		// is empty the ID could name another group only if the PID space
		// wrapped round in the moments since: accepted.
		syscall.Kill(-t.proc.Pid, sig)
		if force {
			t.proc.Kill() // not reaped before Run is done with it: still ours
		}
	})
}

func exitSignal(ps *os.ProcessState) string {
	if ps == nil {
		return ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
