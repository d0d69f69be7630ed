//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"syscall"
)

// HardLinks returns how many names (hard links) the file fi describes
// has, as the platform tells it; 0 when it does not.
func HardLinks(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 0
}

// openLinks is HardLinks for an open file.
func openLinks(_ *os.File, fi fs.FileInfo) int { return HardLinks(fi) }

// fileID identifies a file on its device: its inode number, and, where
// the system tells it (statx), its birth time, which tells a file from a
// later one given the inode number of a deleted one.
type fileID struct {
	dev, ino uint64
	born     int64
}

// sysID reads a file's identity from its FileInfo.Sys().
func sysID(sys any) fileID {
	if st, ok := sys.(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileID{}
}

// withoutBirth is the identity as a FileInfo tells it.
func (id fileID) withoutBirth() fileID { id.born = 0; return id }
