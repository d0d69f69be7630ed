//go:build !unix && !windows

package workspace

import (
	"io/fs"
	"os"
)

// HardLinks returns how many names (hard links) the file fi describes
// has, as the platform tells it; 0 when it does not, as here.
func HardLinks(fs.FileInfo) int { return 0 }

func openLinks(*os.File, fs.FileInfo) int { return 0 }

// fileID identifies a file; HardLinks tells of none here, so none is
// grouped.
type fileID struct{}

func sysID(any) fileID { return fileID{} }

func (id fileID) withoutBirth() fileID { return id }
