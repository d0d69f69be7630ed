//go:build unix

package workspace

import "syscall"

// oNonblock makes opening a FIFO return at once instead of waiting for a
// writer, should one be swapped in after the type was checked.
const oNonblock = syscall.O_NONBLOCK

// oDirNoFollow opens only a directory, and not through a symbolic link
// swapped in for it, when a walk lists one by its host path.
const oDirNoFollow = syscall.O_DIRECTORY | syscall.O_NOFOLLOW
