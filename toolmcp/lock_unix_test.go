//go:build unix

package toolmcp

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on the file at path (made if need be),
// waiting for another process that holds it; unlock releases it. The
// kernel releases it too if the process dies.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
