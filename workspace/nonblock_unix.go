//go:build unix

package workspace

import "syscall"

// oNonblock makes opening a FIFO return at once instead of waiting for a
// writer, should one be swapped in after the type was checked.
const oNonblock = syscall.O_NONBLOCK
