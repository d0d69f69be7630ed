//go:build unix && !linux

package process

import (
	"os/exec"
	"syscall"
)

// cgroup exists on Linux only.
type cgroup struct{}

// start starts the program as the leader of a new process group, so one
// signal reaches it and every descendant that stays in the group.
func (t *processTree) start(newCmd func() *exec.Cmd, run func(*exec.Cmd) error) (*exec.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := run(cmd); err != nil {
		return nil, err
	}
	t.proc = cmd.Process
	return cmd, nil
}

// signalRest signals the process group only: without /proc or cgroups, a
// descendant that left the group cannot be found.
func (t *processTree) signalRest(_ syscall.Signal, group func()) { group() }

func (t *processTree) release() {}
