//go:build linux && arm64

package process

import "golang.org/x/sys/unix"

// The seccomp filter's view of this architecture: its audit number, no
// x32 system calls (the comparison never holds), and the calls that change
// a file's metadata.
const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	x32Bit    = 0xffffffff
)

var metadataCalls = []uint32{
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2, unix.SYS_FCHOWN, unix.SYS_FCHOWNAT, unix.SYS_UTIMENSAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR,
	unix.SYS_FREMOVEXATTR, unix.SYS_SETXATTRAT, unix.SYS_REMOVEXATTRAT,
}
