package workspace

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel's own notifications (inotify) tell which directories of the
// tree changed since the last command, so that preparing a sandbox costs
// what changed, not the size of the tree. Why a change cannot be missed:
//
//   - A watch is on a directory's inode, and every change to its entries
//     (an entry created, deleted, renamed in or out, a hard link made
//     there, the mode of a subdirectory changed) queues an event as part
//     of the system call that makes it, before the call returns, whoever
//     makes it and through whichever mount or bind mount (a sandbox's).
//     No timestamps are read, so their granularity (a second on some file
//     systems) and a clock set back change nothing.
//   - A directory is opened, watched through its open file, and only then
//     read: a change after the read is in the queue, and the watch is on
//     the directory that was read, not on whatever its name leads to
//     later.
//   - The queue is read whole before each command, under the workspace's
//     lock, which a command that writes holds until it ends: every change
//     a command made is in the queue when the next one is prepared.
//   - A queue that overflowed (more changes than it holds), a watch that
//     cannot be added (the user's limit), a root that moved, and any
//     mount or unmount in the host's namespace (polled on
//     /proc/self/mountinfo) make the next preparation walk the whole tree
//     again. File systems whose changes can come from elsewhere (NFS,
//     FUSE, SMB, 9p) are walked whole before every command.
//
//   - A directory the walk does not enter (a repository, a denied one)
//     made or moved into the tree makes the next preparation walk the
//     whole tree, as does a file with other names made: their other
//     names are counted.
//
// What inotify does not report: the link count of a file changed by a
// name made, removed or moved where the walk does not go (outside the
// roots, inside a repository or a denied directory) after the file was
// looked at. A file of the workspace given another name there is not
// hidden until the next whole walk (its content was the workspace's); one
// that lost such a name stays hidden until then.

// inotifyMask are the events the tree needs: changes of names, and of a
// subdirectory's mode (which may make it unreadable).
const inotifyMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// inotifyWatcher is one workspace's inotify instance, and its view of the
// host's mounts.
type inotifyWatcher struct {
	fd     int
	mounts *os.File // /proc/self/mountinfo, polled for changes
	buf    []byte
}

func newWatcher() (watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	m, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	w := &inotifyWatcher{fd: fd, mounts: m, buf: make([]byte, 64<<10)}
	w.mountsChanged() // what changed before now is the first walk's
	return w, nil
}

// watch adds a watch on the open directory f.
func (w *inotifyWatcher) watch(f *os.File) (int, error) {
	wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), inotifyMask)
	if err != nil {
		return -1, fmt.Errorf("inotify_add_watch: %w", err)
	}
	return wd, nil
}

func (w *inotifyWatcher) unwatch(wd int) { unix.InotifyRmWatch(w.fd, uint32(wd)) }

// drain returns the changes queued since the last call; overflow when
// some were lost, or the mounts changed.
func (w *inotifyWatcher) drain() (changes []change, overflow bool, err error) {
	if w.mountsChanged() {
		overflow = true
	}
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EAGAIN) || n == 0 {
			return changes, overflow, nil
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, true, fmt.Errorf("inotify: %w", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			end := off + unix.SizeofInotifyEvent + int(ev.Len)
			if end > n {
				return nil, true, nil
			}
			name := w.buf[off+unix.SizeofInotifyEvent : end]
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			off = end
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				overflow = true
				continue
			}
			changes = append(changes, change{wd: int(ev.Wd), name: string(name),
				self: ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0,
				gone: ev.Mask&unix.IN_IGNORED != 0})
		}
	}
}

// mountsChanged reports whether a file system was mounted or unmounted in
// the host's namespace since it was last asked.
func (w *inotifyWatcher) mountsChanged() bool {
	fds := []unix.PollFd{{Fd: int32(w.mounts.Fd()), Events: unix.POLLPRI | unix.POLLERR}}
	n, err := unix.Poll(fds, 0)
	if err != nil || n == 0 || fds[0].Revents == 0 {
		return false
	}
	// Reading the file to its end acknowledges the change.
	w.mounts.Seek(0, 0)
	buf := make([]byte, 64<<10)
	for {
		if k, err := w.mounts.Read(buf); k == 0 || err != nil {
			break
		}
	}
	return true
}

func (w *inotifyWatcher) close() {
	unix.Close(w.fd)
	w.mounts.Close()
}

// localFS reports whether every change to the file system at dir is made
// by this kernel, so that inotify sees it: not a network or FUSE file
// system, whose changes may come from elsewhere.
func localFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.F2FS_SUPER_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC, unix.RAMFS_MAGIC, unix.REISERFS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC,
		0x3153464a, // JFS
		0x2fc12fc1: // ZFS
		return true
	}
	return false
}
