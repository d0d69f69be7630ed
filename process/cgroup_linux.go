package process

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Each command runs in a cgroup v2 of its own, where the host may make
// one: a child of the host's own cgroup, named "toolbelt-<host PID>-<random>".
// The program is started inside it (clone3 with CLONE_INTO_CGROUP, so no
// descendant is ever outside it), and at the end the whole cgroup is killed
// (cgroup.kill) and removed. Nothing a descendant does to its session,
// process group, environment or title takes it out of the cgroup; only
// writing to a cgroup.procs file does, which needs the rights to the
// cgroup tree (root, or the owner of a delegated subtree).
//
// The host's cgroup keeps its processes: cgroup v2's no-internal-processes
// rule binds only cgroups with controllers enabled for their children, and
// a cgroup holding a process (the host) has none, so children without
// controllers can be added beside it. A host that is itself a command of
// another host (its cgroup is "toolbelt-…") nests its cgroups inside, and
// the outer cgroup.kill reaches them.

// cgroupPrefix starts the name of every command's cgroup.
const cgroupPrefix = "toolbelt-"

var (
	cgroupOnce sync.Once
	cgroupBase string // the host's cgroup directory, "" when unusable
	// cgroupOff is set when cgroups turned out not to work here (the
	// kernel or a seccomp filter refused clone3 into a cgroup, or mkdir was
	// refused), and by tests that exercise the fallback.
	cgroupOff atomic.Bool
)

// cgroupParent returns the directory in which a command's cgroup is made,
// or "" to use the fallback.
func cgroupParent() string {
	if cgroupOff.Load() {
		return ""
	}
	cgroupOnce.Do(func() {
		cgroupBase = findCgroup("/proc/self/cgroup", "/proc/self/mountinfo")
		if cgroupBase != "" {
			removeLeftovers(cgroupBase)
		}
	})
	return cgroupBase
}

// findCgroup returns the directory of this process's cgroup v2, when it is
// mounted and writable; "" otherwise (cgroup v1 only, no mount, read-only,
// not ours).
func findCgroup(cgroupFile, mountinfoFile string) string {
	data, err := os.ReadFile(cgroupFile)
	if err != nil {
		return ""
	}
	var path string
	for line := range strings.Lines(string(data)) {
		if p, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "0::"); ok {
			path = p
		}
	}
	if !strings.HasPrefix(path, "/") || strings.HasSuffix(path, " (deleted)") {
		return ""
	}
	f, err := os.Open(mountinfoFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		root, mnt, ok := cgroup2Mount(sc.Text())
		if !ok {
			continue
		}
		rel, ok := strings.CutPrefix(path, root)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/") && root != "/") {
			continue
		}
		dir := filepath.Join(mnt, rel)
		if syscall.Access(dir, 2 /* W_OK */) == nil {
			return dir
		}
	}
	return ""
}

// cgroup2Mount reads one line of /proc/self/mountinfo and returns the
// root and mount point of a read-write cgroup2 mount.
func cgroup2Mount(line string) (root, mnt string, ok bool) {
	pre, post, found := strings.Cut(line, " - ")
	if !found {
		return "", "", false
	}
	f, g := strings.Fields(pre), strings.Fields(post)
	if len(f) < 6 || len(g) < 1 || g[0] != "cgroup2" {
		return "", "", false
	}
	for _, o := range strings.Split(f[5], ",") {
		if o == "ro" {
			return "", "", false
		}
	}
	return unescapeMount(f[3]), unescapeMount(f[4]), true
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// removeLeftovers removes the empty cgroups left by hosts that died (a
// crash, SIGKILL) before removing them. Cgroups that still hold processes
// are left alone: what runs there may be another host's command, and the
// name says whose (the PID), for an operator to kill with cgroup.kill.
func removeLeftovers(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		owner, ok := cgroupOwner(e.Name())
		if !ok || !e.IsDir() || owner == os.Getpid() {
			continue
		}
		if err := syscall.Kill(owner, 0); !errors.Is(err, syscall.ESRCH) {
			continue // the owner lives (or the PID was taken again)
		}
		dir := filepath.Join(base, e.Name())
		if !populated(dir) {
			removeTree(dir)
		}
	}
}

// cgroupOwner reads the host PID from a command cgroup's name.
func cgroupOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, cgroupPrefix)
	if !ok {
		return 0, false
	}
	pid, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

// cgroup is one command's cgroup.
type cgroup struct {
	dir string
	fd  int // open on dir until the program has started, for CgroupFD
}

// newCgroup makes a command's cgroup, or returns nil to use the fallback.
func newCgroup() *cgroup {
	parent := cgroupParent()
	if parent == "" {
		return nil
	}
	retryStale()
	var id [8]byte
	rand.Read(id[:])
	dir := filepath.Join(parent, cgroupPrefix+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(id[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOENT) {
			cgroupOff.Store(true) // not ours to write after all
		}
		return nil
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		syscall.Rmdir(dir)
		return nil
	}
	return &cgroup{dir: dir, fd: fd}
}

// started closes the directory, which the kernel needs no more.
func (g *cgroup) started() {
	if g.fd >= 0 {
		syscall.Close(g.fd)
		g.fd = -1
	}
}

// signal sends sig to every process in the cgroup and the cgroups below it
// (a nested host's). SIGKILL goes through cgroup.kill, which the kernel
// applies to forks in flight too, and signal then waits for the cgroup to
// be empty.
func (g *cgroup) signal(sig syscall.Signal) {
	if sig != syscall.SIGKILL {
		g.each(func(pid int) { syscall.Kill(pid, sig) })
		return
	}
	if err := os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		// Before Linux 5.14 there is no cgroup.kill: kill what is there
		// until nothing is. A process forking meanwhile has its child
		// found on the next pass.
		for range 100 {
			if g.each(func(pid int) { syscall.Kill(pid, syscall.SIGKILL) }) == 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	g.waitEmpty(2 * time.Second)
}

// each calls fn for every process in the cgroup tree, and returns how many
// there were.
func (g *cgroup) each(fn func(pid int)) int {
	n := 0
	filepath.WalkDir(g.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		for f := range bytes.FieldsSeq(data) {
			if pid, err := strconv.Atoi(string(f)); err == nil && pid > 0 {
				fn(pid)
				n++
			}
		}
		return nil
	})
	return n
}

// waitEmpty waits, at most limit, until no process is left in the cgroup
// tree. Killed processes leave it as they exit (zombies do not count). The
// kernel reports each change of cgroup.events to inotify, so the wait
// costs no polling (fifty commands stopping at once would otherwise spend
// the CPU their processes need to exit).
func (g *cgroup) waitEmpty(limit time.Duration) bool {
	if !populated(g.dir) {
		return true
	}
	deadline := time.Now().Add(limit)
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return g.pollEmpty(deadline)
	}
	f := os.NewFile(uintptr(fd), "inotify") // pollable: nonblocking
	defer f.Close()
	if _, err := syscall.InotifyAddWatch(fd, filepath.Join(g.dir, "cgroup.events"), syscall.IN_MODIFY); err != nil {
		return g.pollEmpty(deadline)
	}
	f.SetReadDeadline(deadline)
	var buf [4096]byte
	for populated(g.dir) { // checked after the watch is set: no change is missed
		if _, err := f.Read(buf[:]); err != nil {
			return !populated(g.dir)
		}
	}
	return true
}

// pollEmpty is waitEmpty without inotify.
func (g *cgroup) pollEmpty(deadline time.Time) bool {
	pause := 100 * time.Microsecond
	for populated(g.dir) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
	return true
}

// populated reports whether a process is left in the cgroup tree at dir.
func populated(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err != nil {
		return false // gone
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "populated "); ok {
			return strings.TrimSpace(v) != "0"
		}
	}
	return false
}

// remove removes the cgroup once it is empty. One that cannot be removed
// yet (a process stuck in the kernel, in uninterruptible sleep) is kept in
// a list and tried again when the next command starts.
func (g *cgroup) remove() {
	g.started()
	if !removeTree(g.dir) {
		stale.Lock()
		stale.dirs = append(stale.dirs, g.dir)
		stale.Unlock()
	}
}

var stale struct {
	sync.Mutex
	dirs []string
}

func retryStale() {
	stale.Lock()
	defer stale.Unlock()
	kept := stale.dirs[:0]
	for _, d := range stale.dirs {
		if !removeTree(d) {
			kept = append(kept, d)
		}
	}
	stale.dirs = kept
}

// removeTree removes a cgroup and the cgroups below it, deepest first, and
// reports whether it is gone.
func removeTree(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeTree(filepath.Join(dir, e.Name()))
		}
	}
	err := syscall.Rmdir(dir)
	return err == nil || errors.Is(err, syscall.ENOENT)
}
