package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the server if the test binary dies
// without running its cleanups (a panic, a timeout, kill -9), so no
// redis-server outlives a test run.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
