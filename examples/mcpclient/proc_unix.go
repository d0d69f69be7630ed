//go:build unix && !linux

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the server in a process group of its own, so that
// killGroup reaches whatever it starts.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of the server's process group.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
