//go:build unix

package workspace

import (
	"context"
	"errors"
	"syscall"
)

// lockFD is a root's directory, open for flock; -1 when it could not be
// opened (the lock is then this process's only).
type lockFD int

func openLockFD(dir string) lockFD {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return lockFD(fd)
}

func (f lockFD) lock(ctx context.Context, write bool) error {
	if f < 0 {
		return nil
	}
	how := syscall.LOCK_SH
	if write {
		how = syscall.LOCK_EX
	}
	return pollLock(ctx, func() (bool, error) {
		err := syscall.Flock(int(f), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
			return false, nil
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOTSUP):
			return true, nil // a file system without locks: this process's lock only
		}
		return false, err
	})
}

func (f lockFD) unlock() {
	if f >= 0 {
		syscall.Flock(int(f), syscall.LOCK_UN)
	}
}

func (f lockFD) close() {
	if f >= 0 {
		syscall.Close(int(f))
	}
}
