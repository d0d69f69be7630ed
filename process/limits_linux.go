package process

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// limitPlan is a sandbox's Limits resolved against the defaults: the
// bounds to enforce (0 for none) and which of them the host set itself,
// which Run must enforce or fail.
type limitPlan struct {
	procs, mem, fsize int64
	needProcs         bool // Processes set by the host: enforced, or Run fails
	needAny           bool // some limit set by the host
}

func (l Limits) plan() limitPlan {
	var p limitPlan
	switch {
	case l.Processes > 0:
		p.procs, p.needProcs, p.needAny = int64(l.Processes), true, true
	case l.Processes == 0:
		p.procs = DefaultMaxProcesses
	}
	switch {
	case l.Memory > 0:
		p.mem, p.needAny = l.Memory, true
	case l.Memory == 0:
		p.mem = halfTheMemory()
	}
	switch {
	case l.FileSize > 0:
		p.fsize, p.needAny = l.FileSize, true
	case l.FileSize == 0:
		p.fsize = DefaultMaxFileSize
	}
	return p
}

// any reports whether a bound is to be enforced.
func (p limitPlan) any() bool { return p.procs > 0 || p.mem > 0 || p.fsize > 0 }

// halfTheMemory is the default memory bound: half of this machine's.
var halfTheMemory = sync.OnceValue(func() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 4 << 30
	}
	return int64(si.Totalram) * int64(max(si.Unit, 1)) / 2
})

// Bounds reports how Run bounds [Limits] in mode here (see [Limits]).
func (s SandboxSupport) Bounds(mode SandboxMode) Bounds {
	if mode == SandboxAuto {
		mode = s.Mode
	}
	if mode != SandboxBubblewrap && mode != SandboxLandlock {
		return Bounds{}
	}
	b := Bounds{Memory: "RLIMIT_DATA per process", FileSize: "RLIMIT_FSIZE, per file"}
	v2 := cgroupControllers()
	v1 := cgroupV1()
	switch {
	case v2["pids"]:
		b.Processes = "cgroup v2 pids"
	case v1["pids"] != "":
		b.Processes = "cgroup v1 pids"
	case mode == SandboxBubblewrap && bwrapCountsProcesses(s.bwrap):
		b.Processes = "RLIMIT_NPROC in the sandbox's user namespace"
	}
	switch {
	case v2["memory"]:
		b.Memory = "cgroup v2 memory, and RLIMIT_DATA per process"
	case v1["memory"] != "":
		b.Memory = "cgroup v1 memory, and RLIMIT_DATA per process"
	}
	return b
}

// bwrapCountsProcesses reports whether RLIMIT_NPROC, set on bubblewrap's
// sandbox, counts the sandbox's processes only: it is counted per user
// and user namespace, bubblewrap makes one unless it is setuid, and root
// is exempt from it.
func bwrapCountsProcesses(bwrap string) bool {
	if os.Geteuid() == 0 || bwrap == "" {
		return false
	}
	fi, err := os.Stat(bwrap)
	return err == nil && fi.Mode()&os.ModeSetuid == 0
}

// cgroupControllers returns the controllers a command's cgroup (v2) has:
// those its parent, the host's cgroup, enables for its children.
func cgroupControllers() map[string]bool {
	parent := cgroupParent()
	if v1Off.Load() {
		return nil // tests: no cgroup limits at all
	}
	if parent == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, c := range strings.Fields(string(b)) {
		out[c] = true
	}
	return out
}

var (
	v1Once sync.Once
	v1Dirs map[string]string // controller ("pids", "memory") -> the host's cgroup v1 directory, writable
	v1Off  atomic.Bool       // set by tests that exercise a machine without
)

// cgroupV1 returns the host's writable cgroup v1 directories of the pids
// and memory controllers, where the machine mounts them (hybrid cgroups,
// as systemd set up before cgroup v2 alone): a command's cgroups are made
// there when its cgroup v2 lacks them.
func cgroupV1() map[string]string {
	v1Once.Do(func() {
		v1Dirs = findCgroupV1("/proc/self/cgroup", "/proc/self/mountinfo")
		for _, d := range v1Dirs {
			removeLeftovers(d)
		}
	})
	if v1Off.Load() {
		return nil
	}
	return v1Dirs
}

// findCgroupV1 reads this process's cgroup v1 paths and the mounts of the
// pids and memory hierarchies.
func findCgroupV1(cgroupFile, mountinfoFile string) map[string]string {
	data, err := os.ReadFile(cgroupFile)
	if err != nil {
		return nil
	}
	paths := map[string]string{}
	for line := range strings.Lines(string(data)) {
		parts := strings.SplitN(strings.TrimRight(line, "\n"), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" || c == "memory" {
				paths[c] = parts[2]
			}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	f, err := os.Open(mountinfoFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, fs := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 6 || len(fs) < 3 || fs[0] != "cgroup" {
			continue
		}
		for _, o := range strings.Split(fs[2], ",") {
			p, want := paths[o]
			if !want || out[o] != "" {
				continue
			}
			root, mnt := unescapeMount(fields[3]), unescapeMount(fields[4])
			rel, ok := strings.CutPrefix(p, root)
			if !ok && root != "/" {
				continue
			}
			if root == "/" {
				rel = p
			}
			dir := filepath.Join(mnt, rel)
			if syscall.Access(dir, 2 /* W_OK */) == nil {
				out[o] = dir
			}
		}
	}
	return out
}

// limitsApplied is what enforcing a command's limits made: cgroup v1
// directories to remove when it ends.
type limitsApplied struct {
	v1 []string
}

// applyLimits bounds the process pid, which has not run the program yet
// (stopped, or blocked by bubblewrap), and what it starts: in the
// command's cgroup v2 (cg, "" without) where it has the controllers, else
// in cgroup v1 directories of its own, and by resource limits. nproc says
// whether RLIMIT_NPROC counts the command's processes apart.
func applyLimits(p limitPlan, pid int, cg string, nproc bool) (*limitsApplied, error) {
	la := &limitsApplied{}
	procsBound, memBound := false, false
	if cg != "" && !v1Off.Load() {
		if p.procs > 0 && os.WriteFile(filepath.Join(cg, "pids.max"), []byte(strconv.FormatInt(p.procs, 10)), 0) == nil {
			procsBound = true
		}
		if p.mem > 0 && os.WriteFile(filepath.Join(cg, "memory.max"), []byte(strconv.FormatInt(p.mem, 10)), 0) == nil {
			memBound = true
		}
	}
	v1 := cgroupV1()
	for _, c := range []struct {
		controller, file string
		value            int64
		done             *bool
	}{{"pids", "pids.max", p.procs, &procsBound}, {"memory", "memory.limit_in_bytes", p.mem, &memBound}} {
		parent := v1[c.controller]
		if c.value <= 0 || *c.done || parent == "" {
			continue
		}
		dir := takeV1(parent)
		if dir == "" {
			continue
		}
		la.v1 = append(la.v1, dir)
		if os.WriteFile(filepath.Join(dir, c.file), []byte(strconv.FormatInt(c.value, 10)), 0) != nil {
			continue
		}
		if os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0) == nil {
			*c.done = true
		}
	}
	set := func(resource int, v int64) error {
		if v <= 0 {
			return nil
		}
		lim := unix.Rlimit{Cur: uint64(v), Max: uint64(v)}
		return unix.Prlimit(pid, resource, &lim, nil)
	}
	errs := []error{set(unix.RLIMIT_FSIZE, p.fsize), set(unix.RLIMIT_DATA, p.mem), set(unix.RLIMIT_CORE, 0)}
	if p.procs > 0 && !procsBound && nproc {
		// The sandbox's own first processes (bubblewrap's init, the
		// program) count too.
		if errs = append(errs, set(unix.RLIMIT_NPROC, p.procs+2)); errs[len(errs)-1] == nil {
			procsBound = true
		}
	}
	if err := errors.Join(errs...); err != nil {
		la.release()
		return nil, &limitError{fmt.Errorf("process: sandbox: setting the command's resource limits: %w", err)}
	}
	if p.needProcs && !procsBound {
		la.release()
		return nil, &limitError{errNoProcessBound}
	}
	return la, nil
}

var errNoProcessBound = errors.New("process: sandbox: Limits.Processes cannot be enforced here: no pids cgroup (cgroup v2 delegated to the host, or a writable cgroup v1 pids hierarchy), and RLIMIT_NPROC would count more than the command's processes (the user is root, or the sandbox has no user namespace of its own); leave it zero for the default, enforced where it can be")

// limitError is a command that started but could not be bounded, and was
// stopped: not a failure to start into a cgroup, which Run would try again
// without one.
type limitError struct{ err error }

func (e *limitError) Error() string { return e.err.Error() }
func (e *limitError) Unwrap() error { return e.err }

// release gives the cgroup v1 directories back, once the command's
// processes are gone: any left (one that escaped the tree's sweeps) are
// killed first.
func (la *limitsApplied) release() {
	if la == nil {
		return
	}
	for _, dir := range la.v1 {
		empty := false
		for range 100 {
			data, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			pids := strings.Fields(string(data))
			if len(pids) == 0 {
				empty = true
				break
			}
			for _, f := range pids {
				if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			time.Sleep(time.Millisecond)
		}
		giveBackV1(dir, empty)
	}
	la.v1 = nil
}

// The cgroup v1 directories are kept for the next command, in a pool:
// making and removing a memory cgroup costs milliseconds (its removal
// waits for the kernel to let its charges go), more than the rest of a
// Landlock sandbox. One is reused only empty; the limits are written for
// each command. Their names say whose they are, for the next host to
// remove them if this one dies.
var v1Pool struct {
	sync.Mutex
	free map[string][]string // parent -> free directories
}

// maxV1Pool bounds the free directories kept per hierarchy.
const maxV1Pool = 16

func takeV1(parent string) string {
	v1Pool.Lock()
	if l := v1Pool.free[parent]; len(l) > 0 {
		dir := l[len(l)-1]
		v1Pool.free[parent] = l[:len(l)-1]
		v1Pool.Unlock()
		return dir
	}
	v1Pool.Unlock()
	var id [8]byte
	rand.Read(id[:])
	dir := filepath.Join(parent, cgroupPrefix+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(id[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return ""
	}
	return dir
}

func giveBackV1(dir string, empty bool) {
	parent := filepath.Dir(dir)
	v1Pool.Lock()
	defer v1Pool.Unlock()
	if empty && len(v1Pool.free[parent]) < maxV1Pool {
		if v1Pool.free == nil {
			v1Pool.free = map[string][]string{}
		}
		v1Pool.free[parent] = append(v1Pool.free[parent], dir)
		return
	}
	if err := syscall.Rmdir(dir); err != nil && !errors.Is(err, syscall.ENOENT) {
		stale.Lock()
		stale.dirs = append(stale.dirs, dir)
		stale.Unlock()
	}
}
