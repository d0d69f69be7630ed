package workspace

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// lookAt reads an entry without following a link: its type, identity
// (with its birth time) and link count, in one statx.
func lookAt(path string) (entryInfo, error) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC,
		unix.STATX_TYPE|unix.STATX_INO|unix.STATX_NLINK|unix.STATX_BTIME, &st)
	if err != nil {
		return entryInfo{}, &fs.PathError{Op: "statx", Path: path, Err: err}
	}
	info := entryInfo{
		id:    fileID{dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino},
		links: int(st.Nlink),
	}
	if st.Mask&unix.STATX_BTIME != 0 {
		info.id.born = st.Btime.Sec*1e9 + int64(st.Btime.Nsec)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		info.mode = fs.ModeDir
	case unix.S_IFREG:
	case unix.S_IFLNK:
		info.mode = fs.ModeSymlink
	default:
		info.mode = fs.ModeIrregular
	}
	return info, nil
}
