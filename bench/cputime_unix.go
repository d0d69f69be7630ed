//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time the process has used, user and system, on
// all its threads: the garbage collector's and every goroutine's a path
// starts count too.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
