//go:build linux && amd64

package process

import "golang.org/x/sys/unix"

// The seccomp filter's view of this architecture: its audit number, the
// bit that marks x32 system calls (which the filter refuses), and the
// calls that change a file's metadata.
const (
	auditArch = unix.AUDIT_ARCH_X86_64
	x32Bit    = 0x40000000
)

var metadataCalls = []uint32{
	unix.SYS_CHMOD, unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2, unix.SYS_CHOWN, unix.SYS_FCHOWN,
	unix.SYS_LCHOWN, unix.SYS_FCHOWNAT, unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_FUTIMESAT, unix.SYS_UTIMENSAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR,
	unix.SYS_FREMOVEXATTR, unix.SYS_SETXATTRAT, unix.SYS_REMOVEXATTRAT,
}
