//go:build !unix

package workspace

import "context"

// lockFD has no file lock here: the lock is this process's only.
type lockFD struct{}

func openLockFD(string) lockFD                  { return lockFD{} }
func (lockFD) lock(context.Context, bool) error { return nil }
func (lockFD) unlock()                          {}
func (lockFD) close()                           {}
