package tool

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sweepMarked signals every process whose environment carries the tree's
// mark: the descendants that left the process group (setsid, a double
// fork). It reads /proc, so it sees the processes of its own user (all of
// them as root); without /proc it does nothing and the group signal is
// all there is. Forks racing the sweep are caught by a few passes.
func sweepMarked(marker string, sig syscall.Signal) {
	mark := []byte("\x00" + marker + "=1\x00")
	self := os.Getpid()
	for range 3 {
		found := 0
		for _, pid := range procPIDs() {
			if pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
			if err != nil {
				continue // gone, or not ours to read
			}
			if bytes.Contains(append([]byte{0}, env...), mark) {
				syscall.Kill(pid, sig)
				found++
			}
		}
		if found == 0 || sig != syscall.SIGKILL {
			return
		}
	}
}

// procPIDs lists the process IDs in /proc.
func procPIDs() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}
