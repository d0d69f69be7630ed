//go:build windows

package process

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// cgroup exists on Linux only.
type cgroup struct{}

// start starts the program in a new process group, so console control
// events meant for the host do not reach it.
func (t *processTree) start(newCmd func() *exec.Cmd, run func(*exec.Cmd) error) (*exec.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
	if err := run(cmd); err != nil {
		return nil, err
	}
	t.proc = cmd.Process
	return cmd, nil
}

// signal ends the program's process tree with taskkill, which walks the
// parent links Windows keeps (/T); force adds /F. Windows has no terminate
// signal a console program must honour, so without force taskkill asks the
// program to close, and the forced kill follows after the grace. When
// taskkill is not available, the program alone is killed.
func (t *processTree) signal(force bool) {
	if t.proc == nil {
		return
	}
	args := []string{"/T", "/PID", strconv.Itoa(t.proc.Pid)}
	if force {
		args = append([]string{"/F"}, args...)
	}
	if err := exec.Command("taskkill", args...).Run(); err != nil && force {
		t.proc.Kill()
	}
}

func (t *processTree) release() {}

func exitSignal(*os.ProcessState) string { return "" }
