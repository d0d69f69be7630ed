//go:build unix

package process

import (
	"os"
	"os/exec"
	"syscall"
)

// prepare starts the program as the leader of a new process group, so one
// signal reaches it and every descendant that stays in the group.
func (t *processTree) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signal sends SIGTERM, or SIGKILL when force is set, to the program's
// process group and to every marked process that left it. Processes that
// are already gone are not an error.
func (t *processTree) signal(force bool) {
	sig := syscall.SIGTERM
	if force {
		sig = syscall.SIGKILL
	}
	if t.proc != nil {
		// The group's ID is the leader's PID; it stays valid while any
		// member lives, even after the leader was reaped. Once the group
		// is empty the ID could name another group only if the PID space
		// wrapped round in the moments since: accepted.
		syscall.Kill(-t.proc.Pid, sig)
	}
	sweepMarked(t.marker, sig)
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
