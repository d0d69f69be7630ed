//go:build windows

package workspace

import (
	"io/fs"
	"os"
	"syscall"
)

// HardLinks returns how many names (hard links) the file fi describes
// has, as the platform tells it; 0 when it does not, as for a FileInfo
// from os.Stat on Windows, which does not carry the count (reads check
// the open file instead).
func HardLinks(fs.FileInfo) int { return 0 }

// openLinks asks Windows for the link count of an open file.
func openLinks(f *os.File, _ fs.FileInfo) int {
	var info syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	return int(info.NumberOfLinks)
}

// fileID identifies a file; HardLinks tells of none here, so none is
// grouped.
type fileID struct{}

func sysID(any) fileID { return fileID{} }

func (id fileID) withoutBirth() fileID { return id }
