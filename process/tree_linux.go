package process

import (
	"errors"
	"os/exec"
	"syscall"
)

// start starts the program in a new process group and, where the host may
// make one, inside a cgroup of its own from its first instruction
// (CLONE_INTO_CGROUP). When the start into the cgroup fails but a plain
// start works (a kernel before 5.7, or a seccomp filter that refuses
// clone3), cgroups are not tried again in this process.
//
// When neither start works, the program itself could not start (not
// found, not executable), and the error says so.
//
// run starts a command: exec.Cmd.Start, or a sandbox's start.
func (t *processTree) start(newCmd func() *exec.Cmd, run func(*exec.Cmd) error) (*exec.Cmd, error) {
	cmd := newCmd()
	attr := &syscall.SysProcAttr{Setpgid: true}
	cmd.SysProcAttr = attr
	if t.cg = newCgroup(); t.cg != nil {
		attr.UseCgroupFD, attr.CgroupFD = true, t.cg.fd
	}
	err := run(cmd)
	var bounds *limitError
	if errors.As(err, &bounds) {
		// Started, then stopped: its limits could not be set. Not the
		// cgroup's doing.
		if t.cg != nil {
			t.cg.remove()
			t.cg = nil
		}
		return nil, err
	}
	if first := err; err != nil && t.cg != nil {
		t.cg.remove()
		t.cg = nil
		cmd = newCmd()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err = run(cmd); err == nil && !errors.Is(first, syscall.EAGAIN) && !errors.Is(first, syscall.ENOMEM) {
			cgroupOff.Store(true) // not a passing shortage: the cgroup was the problem
		}
	}
	if err != nil {
		return nil, err
	}
	if t.cg != nil {
		t.cg.started()
	}
	t.proc = cmd.Process
	return cmd, nil
}

// signalRest signals the process group (with group) and the rest of the
// tree: its cgroup, or else every process found by its mark or its parent.
// The sweep finds the tree before group signals it, so a descendant whose
// only link to the tree is a parent in the group is still linked when the
// scan looks.
func (t *processTree) signalRest(sig syscall.Signal, group func()) {
	if t.cg != nil {
		group()
		t.cg.signal(sig)
		return
	}
	t.sweep(sig, group)
}

// release removes the tree's cgroup, once the tree is gone, and lets go
// of the processes the sweeps held.
func (t *processTree) release() {
	if t.cg != nil {
		t.cg.remove()
	}
	t.releaseHeld()
}
