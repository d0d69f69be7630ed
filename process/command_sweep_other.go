//go:build unix && !linux

package process

import "syscall"

// sweepMarked does nothing where there is no /proc to find marked
// processes in: the process group signal is all there is.
func sweepMarked(string, syscall.Signal) {}
