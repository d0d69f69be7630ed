package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock restricts the thread that calls landlock_restrict_self, and
// what that thread starts. Run cannot restrict itself, so it restricts a
// thread of its own: a goroutine locked to its OS thread applies the
// restrictions (no new privileges, no capabilities, the Landlock ruleset,
// the seccomp filter) to that thread alone and starts the program from it;
// the child inherits them with the thread's credentials. The goroutine then
// returns without unlocking, which ends the thread, so no other goroutine
// ever runs restricted; the runtime starts new threads from a clean
// template thread, never from a locked one. This costs one thread instead
// of re-executing a Go binary in between (a runtime start per command).

// landlockVersion returns the kernel's Landlock ABI version.
func landlockVersion() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, errors.New("the kernel has no Landlock (Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)")
	case errno == unix.EOPNOTSUPP:
		return 0, errors.New("the kernel has Landlock but it is off (add landlock to the lsm= boot parameter)")
	case errno != 0:
		return 0, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	return int(v), nil
}

// Access rights, by the ABI version that introduced them.
const (
	llRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llABI1 = llRead | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	// llFile are the rights that apply to a file (the others need a
	// directory).
	llFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llDevice = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE
)

// llHandled returns the file-system rights an ABI version knows: the
// ruleset handles (denies unless granted) all of them.
func llHandled(abi int) uint64 {
	r := uint64(llABI1)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// llDevices are the device files every program may read and write. Not
// /dev/tty: the program starts in a session of its own, without a
// terminal, and the person's must not be written to (escape sequences)
// nor read (keystrokes).
var llDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// rulesetBuilder adds rules to a Landlock ruleset.
type rulesetBuilder struct {
	fd      int
	handled uint64
	err     error
}

// add grants rights on path and everything beneath it; a path that does
// not exist is skipped.
func (b *rulesetBuilder) add(path string, rights uint64) {
	if b.err != nil {
		return
	}
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= llFile
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights & b.handled, Parent_fd: int32(fd)}
	if attr.Allowed_access == 0 {
		return
	}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(b.fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		b.err = fmt.Errorf("process: sandbox: Landlock rule for %s: %w", path, errno)
	}
}

// addExcept grants rights on path and beneath it, except on the hidden
// paths: Landlock only grants, so a directory with a hidden path below it
// gets only the right to list it, and each of its entries is granted on
// its own, recursively. Symbolic links among the entries are not granted
// anything (a grant would reach their target); what they lead to is
// reached through its own grants.
func (b *rulesetBuilder) addExcept(path string, rights uint64, hidden []string) {
	if slices.ContainsFunc(hidden, func(h string) bool { return within(h, path) }) {
		return
	}
	if !slices.ContainsFunc(hidden, func(h string) bool { return within(path, h) }) {
		b.add(path, rights)
		return
	}
	b.add(path, unix.LANDLOCK_ACCESS_FS_READ_DIR)
	dir, err := os.Open(path)
	if err != nil {
		return
	}
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return
	}
	for _, e := range entries {
		sub := filepath.Join(path, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
		case e.IsDir() && slices.ContainsFunc(hidden, func(h string) bool { return within(sub, h) }):
			b.addExcept(sub, rights, hidden)
		case !slices.Contains(hidden, sub):
			// Most entries: one rule, opened from the directory, its
			// type from the listing.
			b.addAt(int(dir.Fd()), e.Name(), e.IsDir(), rights)
		}
	}
}

// addAt grants rights on the entry name of the open directory dirfd, a
// directory or not as isDir says: add, without resolving the whole path
// again.
func (b *rulesetBuilder) addAt(dirfd int, name string, isDir bool, rights uint64) {
	if b.err != nil {
		return
	}
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if !isDir {
		rights &= llFile
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights & b.handled, Parent_fd: int32(fd)}
	if attr.Allowed_access == 0 {
		return
	}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(b.fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		b.err = fmt.Errorf("process: sandbox: Landlock rule for %s: %w", name, errno)
	}
}

func (j *jail) buildLandlock(sp sandboxPaths) error {
	abi, err := landlockVersion()
	if err != nil {
		return fmt.Errorf("process: sandbox: %w", err)
	}
	handled := llHandled(abi)
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	size := unsafe.Sizeof(attr)
	switch {
	case abi >= 6:
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		fallthrough
	case abi >= 4:
		if !j.network {
			attr.Access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		}
	}
	if abi < 4 {
		size = unsafe.Offsetof(attr.Access_net) // the kernel knows only the first field
	} else if abi < 6 {
		size = unsafe.Offsetof(attr.Scoped)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("process: sandbox: Landlock ruleset: %w", errno)
	}
	j.ruleset = int(fd)
	b := &rulesetBuilder{fd: j.ruleset, handled: handled}

	var hidden []string
	for _, p := range sp.deny {
		hidden = append(hidden, p.real)
	}
	for _, p := range sp.system {
		b.addExcept(p.real, llRead, hidden)
	}
	for _, p := range sp.read {
		b.addExcept(p.real, llRead, hidden)
	}
	for _, p := range sp.write {
		// Deny and ReadOnly under a writable directory cannot be kept:
		// see the Sandbox documentation.
		b.add(p.real, handled)
	}
	if err := linkedUnderWrite(sp); err != nil {
		return err
	}
	if j.tmp != "" {
		b.add(j.tmp, handled)
	}
	for _, d := range llDevices {
		b.add(d, llDevice)
	}
	b.addProc()
	return b.err
}

// procHidden are the entries of /proc, besides the processes', that no
// program reads: the keys of the user's kernel keyring, listed.
var procHidden = map[string]bool{"keys": true, "key-users": true}

// addProc grants reading /proc, but not the directories of processes
// (/proc/[pid]): a program could read every process's command line there
// (a password given as an argument), its status and its limits; the files
// that give more (environ, fd, maps, mem) Landlock already keeps to the
// program's own processes. A rule on /proc itself would reach the
// processes' directories, which appear after it is made: each other entry
// is granted by name instead, and a process directory, even the program's
// own (/proc/self), has none. What /proc/self leads to by a magic link
// still works (/proc/self/exe, /dev/stdin through /proc/self/fd/0):
// Landlock looks at the file reached, not at the path to it.
func (b *rulesetBuilder) addProc() {
	f, err := os.Open("/proc")
	if err != nil {
		return
	}
	defer f.Close()
	entries, _ := f.ReadDir(-1)
	for _, e := range entries {
		name := e.Name()
		if name[0] >= '0' && name[0] <= '9' || procHidden[name] || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		b.add("/proc/"+name, unix.LANDLOCK_ACCESS_FS_READ_FILE|unix.LANDLOCK_ACCESS_FS_READ_DIR)
	}
}

// linkedUnderWrite refuses a sandbox in which a program that may write
// could change a file through another of its names: a Deny file under
// Write with more than one name (a hard link, to a file outside the
// sandbox perhaps). Landlock cannot hide it there, and a write through
// this name changes the file wherever its other names are.
func linkedUnderWrite(sp sandboxPaths) error {
	for _, d := range sp.deny {
		if d.dir || !slices.ContainsFunc(sp.write, func(w sandboxPath) bool { return within(w.real, d.real) }) {
			continue
		}
		var st unix.Stat_t
		if err := unix.Lstat(d.real, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink < 2 {
			continue
		}
		return fmt.Errorf("process: sandbox: %s has %d names (hard links) and may not be read or written, but the Landlock sandbox cannot keep a program that may write in its directory from changing it, and so the file its other names are, perhaps outside the sandbox: remove the link, or use bubblewrap", d.real, st.Nlink)
	}
	return nil
}

// startLandlocked starts cmd from a thread restricted as the program must
// be (see the top of this file), in the cgroup v2 cg ("" for none). With
// limits to set, the program starts traced (ptrace) and stops at its exec,
// before its first instruction; the limits are set from this thread, which
// may still write the cgroups, and the restricted thread, its tracer, lets
// it go.
func (j *jail) startLandlocked(cmd *exec.Cmd, cg string) error {
	// A session of its own, as bubblewrap's --new-session gives: no
	// controlling terminal, no /dev/tty (the process group is the
	// session's, led by the program, as Setpgid would make it).
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	attr := cmd.SysProcAttr
	attr.Setsid, attr.Setpgid, attr.Pgid = true, false, 0
	attr.Ptrace = j.limits.any()
	started := make(chan error, 1) // the program started, and stopped if traced
	apply := make(chan error, 1)   // nil: let it go; else kill it
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := j.restrictThread(); err != nil {
			started <- err
			return
		}
		err := cmd.Start()
		if err != nil && attr.Ptrace && errors.Is(err, syscall.EPERM) {
			err = fmt.Errorf("%w (the program starts traced, so that its Limits are set before it runs, and tracing was refused: Yama's kernel.yama.ptrace_scope is 2 or more, or a seccomp profile refuses ptrace; set every field of Sandbox.Limits to -1 to run without bounds)", err)
		}
		if err == nil && attr.Ptrace {
			err = waitStopped(cmd.Process.Pid)
		}
		started <- err
		if err != nil || !attr.Ptrace {
			return
		}
		if err := <-apply; err != nil {
			cmd.Process.Kill()
			unix.PtraceDetach(cmd.Process.Pid)
			done <- err
			return
		}
		if err := unix.PtraceDetach(cmd.Process.Pid); err != nil {
			cmd.Process.Kill()
			done <- &limitError{fmt.Errorf("process: sandbox: letting the program go: %w", err)}
			return
		}
		done <- nil
	}()
	err := <-started
	if err != nil && attr.Ptrace && cmd.Process != nil {
		cmd.Process.Kill() // started but did not stop: not ours to trust
		cmd.Wait()
		return &limitError{err}
	}
	if err != nil || !attr.Ptrace {
		return err
	}
	j.applied, err = applyLimits(j.limits, cmd.Process.Pid, cg, false)
	apply <- err
	if err = <-done; err != nil {
		j.applied.release()
		j.applied = nil
		cmd.Wait()
	}
	return err
}

// waitStopped waits for a traced program to stop at its exec.
func waitStopped(pid int) error {
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, 0, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return fmt.Errorf("process: sandbox: waiting for the program to stop at its start: %w", err)
		case !ws.Stopped():
			return fmt.Errorf("process: sandbox: the program did not stop at its start (%v)", ws)
		}
		return nil
	}
}

// restrictThread applies the sandbox to the calling thread.
func (j *jail) restrictThread() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("process: sandbox: no_new_privs: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(j.ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("process: sandbox: Landlock: %w", errno)
	}
	return installFilter(j.network, j.writes)
}

// dropCapabilities empties the thread's capability bounding set and its
// capabilities, so that a program running as root gets none: execve
// gives root every capability left in the bounding set. An ordinary user
// may not change the bounding set, and needs not: without capabilities to
// start with, a program gains none under no_new_privs.
func dropCapabilities() error {
	if os.Geteuid() == 0 {
		for c := 0; c <= capLast(); c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("process: sandbox: dropping capability %d: %w", c, err)
			}
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("process: sandbox: capset: %w", err)
	}
	return nil
}

// capLast is the highest capability the kernel knows.
func capLast() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return unix.CAP_LAST_CAP
	}
	n := 0
	for _, c := range strings.TrimSpace(string(b)) {
		if c < '0' || c > '9' {
			return unix.CAP_LAST_CAP
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// installFilter installs a seccomp filter on the thread. It refuses
// socket(2) for Unix sockets, always: Landlock (to ABI 7) does not restrict
// connecting to a Unix socket by its path, so a program could reach any
// daemon of the host's that listens on one (a container engine's, the
// D-Bus buses, an SSH agent, one in the workspace) and have it act
// outside the sandbox; socketpair(2), which reaches nobody, stays. Without
// network it refuses every other socket too (Landlock restricts TCP only),
// and io_uring always, which can make sockets too; and the kernel keyring
// always, which is the user's (see alwaysDenied). For a program that may
// write nowhere it refuses the metadata changes Landlock cannot restrict
// (modes, owners, times, extended attributes), which a program could
// otherwise make to any file it can reach. Programs of another
// architecture (32-bit ones on a 64-bit kernel) could reach socketcall;
// every one of their system calls is refused instead.
func installFilter(network, writes bool) error {
	if auditArch == 0 {
		return nil // no filter on this architecture
	}
	deny := alwaysDenied()
	if !writes {
		deny = append(deny, metadataCalls...)
	}
	prog := seccompProgram(deny, network)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("process: sandbox: seccomp: %w", err)
	}
	runtime.KeepAlive(prog)
	return nil
}

// alwaysDenied are the system calls no sandboxed program may make:
// io_uring_setup (its rings make sockets and open files past the filter)
// and the kernel keyring's add_key, request_key and keyctl. A keyring is
// the user's, not a namespace's: a key the host added to the user keyring
// (aws-vault's keyctl backend, a Kerberos KEYRING: cache) would be
// readable through request_key and KEYCTL_READ.
func alwaysDenied() []uint32 {
	return []uint32{uint32(unix.SYS_IO_URING_SETUP), uint32(unix.SYS_ADD_KEY), uint32(unix.SYS_REQUEST_KEY), uint32(unix.SYS_KEYCTL)}
}

// seccompProgram assembles the filter: the system calls in deny fail with
// EACCES, and so does socket(2) for AF_UNIX, and, unless sockets, for every
// family.
func seccompProgram(deny []uint32, sockets bool) []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K

		offNr   = 0  // seccomp_data.nr
		offArch = 4  // seccomp_data.arch
		offArg0 = 16 // seccomp_data.args[0], its low half on little-endian machines
	)
	// Jumps go forward (BPF has no other kind) to one of the blocks at the
	// end, by label; the offsets are filled in once the blocks are placed.
	const (
		next = iota // the following instruction
		allow
		refuse // EACCES
		absent // ENOSYS: another architecture's call
		socket // look at socket(2)'s family
		inet   // socket(2) for a family but AF_UNIX, when allowed
	)
	type jump struct{ at, t, f int }
	var prog []unix.SockFilter
	var jumps []jump
	emit := func(code uint16, k uint32, t, f int) {
		jumps = append(jumps, jump{len(prog), t, f})
		prog = append(prog, unix.SockFilter{Code: code, K: k})
	}
	emit(ld, offArch, next, next)
	emit(jeq, auditArch, next, absent)
	emit(ld, offNr, next, next)
	emit(jge, x32Bit, absent, next)
	for _, nr := range deny {
		emit(jeq, nr, refuse, next)
	}
	emit(jeq, uint32(unix.SYS_SOCKET), socket, next)
	at := map[int]int{}
	at[allow] = len(prog)
	emit(ret, unix.SECCOMP_RET_ALLOW, next, next)
	at[refuse] = len(prog)
	emit(ret, uint32(unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES)), next, next)
	at[absent] = len(prog)
	emit(ret, uint32(unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS)), next, next)
	at[socket] = len(prog)
	if sockets {
		emit(ld, offArg0, next, next)
		emit(jeq, unix.AF_UNIX, next, inet)
	}
	emit(ret, uint32(unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES)), next, next)
	at[inet] = len(prog)
	emit(ret, unix.SECCOMP_RET_ALLOW, next, next)
	for _, j := range jumps {
		offset := func(label int) uint8 {
			if label == next {
				return 0
			}
			return uint8(at[label] - j.at - 1)
		}
		prog[j.at].Jt, prog[j.at].Jf = offset(j.t), offset(j.f)
	}
	return prog
}
