//go:build !linux

package redistest

import "os/exec"

// dieWithParent needs Linux's parent-death signal; elsewhere a test binary
// that dies without running its cleanups leaves the server running.
func dieWithParent(*exec.Cmd) {}
