//go:build unix

package workspace

import (
	"net"
	"path/filepath"
	"syscall"
	"testing"
)

// plantSpecial makes a FIFO, a socket and, when the test may (as root), a
// character device (the null device's numbers) inside the root.
func plantSpecial(t testing.TB, root string) {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(root, "sock"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	// Linux's makedev(1, 3); a failure (not root, another system) leaves the
	// device out, and the tests that need it use /dev instead.
	_ = syscall.Mknod(filepath.Join(root, "null"), syscall.S_IFCHR|0o666, 1<<8|3)
}
