//go:build unix

package main

import (
	"errors"
	"syscall"
)

// gone reports whether no process has the ID pid.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
