//go:build !linux

package workspace

import "os"

// lookAt reads an entry without following a link: its type, identity and
// link count.
func lookAt(path string) (entryInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return entryInfo{}, err
	}
	return entryInfo{mode: fi.Mode().Type(), id: sysID(fi.Sys()), links: HardLinks(fi)}, nil
}
