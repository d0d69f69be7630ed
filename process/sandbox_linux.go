package process

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DetectSandbox reports which [Sandbox] modes work on this machine, trying
// each once per process: bubblewrap by running a program in the
// namespaces Run would make, Landlock by asking the kernel its version.
func DetectSandbox() SandboxSupport { return detected() }

var detected = sync.OnceValue(func() SandboxSupport {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		bwrap = ""
	}
	return detectSandbox(bwrap)
})

// detectSandbox is DetectSandbox with the bubblewrap program given ("" for
// none), for tests.
func detectSandbox(bwrap string) SandboxSupport {
	var s SandboxSupport
	s.LandlockABI, s.Landlock = landlockVersion()
	switch {
	case bwrap == "":
		s.Bubblewrap = errors.New("bubblewrap is not installed (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)")
	default:
		if s.Bubblewrap = probeBubblewrap(bwrap); s.Bubblewrap == nil {
			s.bwrap = bwrap
		}
	}
	switch {
	case s.Bubblewrap == nil:
		s.Mode = SandboxBubblewrap
	case s.Landlock == nil:
		s.Mode = SandboxLandlock
	default:
		s.Mode = SandboxNone
	}
	return s
}

// probeBubblewrap runs a program in the namespaces a sandbox makes.
func probeBubblewrap(bwrap string) error {
	prog, err := exec.LookPath("true")
	if err != nil {
		prog = "/bin/sh"
	}
	args := append(bwrapBase(false), "--ro-bind", "/", "/", "--", prog)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bwrap, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = msg[:300]
		}
		return fmt.Errorf("bubblewrap (%s) cannot make a sandbox here: %v: %s", bwrap, err, msg)
	}
	return nil
}

// bwrapBase are the options of every bubblewrap sandbox: new namespaces of
// every kind (the network's only without network), a new session (no
// terminal to inject keystrokes into), death with Run's process (the
// sandbox's PID namespace, and so every process in it, dies with it), and
// no capabilities, which root would otherwise keep.
func bwrapBase(network bool) []string {
	args := []string{"--die-with-parent", "--new-session", "--unshare-all"}
	if network {
		args = append(args, "--share-net")
	}
	if os.Geteuid() == 0 {
		args = append(args, "--cap-drop", "ALL")
	}
	return args
}

// bwrapDevices are the device files a sandbox shows.
var bwrapDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"}

// jail is a sandbox built for one command.
type jail struct {
	mode    SandboxMode
	private string   // a directory of Run's own: the temporary directory, the masks
	tmp     string   // the program's temporary directory on the host; "" without Temp
	visible []string // the host paths the program can see, real
	bwrap   string
	args    []string // bubblewrap's options, before "--"
	ruleset int      // Landlock's, or -1
	seccomp *os.File // bubblewrap's seccomp filter, passed as file 3; nil without
	network bool
	writes  bool // the program may write somewhere
	limits  limitPlan
	applied *limitsApplied // what enforcing the limits made, once started
}

// sandboxPath is a path the sandbox names: as given, and with its links
// resolved.
type sandboxPath struct {
	given, real string
	dir         bool
}

// resolve keeps the paths that exist, with their links resolved; globs are
// expanded when glob is set.
func resolve(paths []string, glob bool) []sandboxPath {
	var out []sandboxPath
	add := func(p string) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return
		}
		fi, err := os.Stat(real)
		if err != nil {
			return
		}
		out = append(out, sandboxPath{given: filepath.Clean(p), real: real, dir: fi.IsDir()})
	}
	for _, p := range paths {
		if glob && strings.ContainsAny(p, "*?[") {
			matches, _ := filepath.Glob(p)
			for _, m := range matches {
				add(m)
			}
			continue
		}
		add(p)
	}
	return out
}

// build makes the sandbox for a program that runs in dir.
func (s *Sandbox) build(dir string) (_ *jail, err error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	mode := s.Mode
	if mode == SandboxAuto {
		sup := DetectSandbox()
		if mode = sup.Mode; mode == SandboxNone {
			return nil, sup.Err()
		}
	}
	j := &jail{mode: mode, ruleset: -1, network: s.Network, writes: s.Temp || len(s.Write) > 0, limits: s.Limits.plan()}
	if j.limits.any() {
		cgroupV1() // found now, from a thread /proc/self is readable from
	}
	if j.private, err = os.MkdirTemp("", "toolbelt-sandbox-"); err != nil {
		return nil, fmt.Errorf("process: sandbox: %w", err)
	}
	defer func() {
		if err != nil {
			j.release()
		}
	}()
	if s.Temp {
		j.tmp = filepath.Join(j.private, "tmp")
		if err := os.Mkdir(j.tmp, 0o700); err != nil {
			return nil, fmt.Errorf("process: sandbox: %w", err)
		}
	}
	system := s.System
	if system == nil {
		system = DefaultSystemPaths
	}
	systemDeny := s.SystemDeny
	if systemDeny == nil {
		systemDeny = DefaultSystemDeny
	}
	sp := sandboxPaths{
		system:   resolveSystem(system),
		read:     resolve(s.Read, false),
		write:    resolve(s.Write, false),
		readOnly: resolve(s.ReadOnly, false),
		deny:     append(readable(resolve(systemDeny, true)), resolve(s.Deny, false)...),
	}
	for _, list := range [][]sandboxPath{sp.system, sp.read, sp.write} {
		for _, p := range list {
			j.visible = append(j.visible, p.real)
		}
	}
	if j.tmp != "" {
		j.visible = append(j.visible, j.tmp)
	}
	if dir != "" {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || !j.sees(real) {
			return nil, fmt.Errorf("process: sandbox: the working directory %s is not among the paths the sandbox shows", dir)
		}
	}
	switch mode {
	case SandboxBubblewrap:
		err = j.buildBubblewrap(sp, dir)
	case SandboxLandlock:
		err = j.buildLandlock(sp)
	}
	if err != nil {
		return nil, err
	}
	return j, nil
}

type sandboxPaths struct {
	system, read, write, readOnly, deny []sandboxPath
}

// readable keeps the system paths to hide that the program could read:
// one its user may not read (/etc/shadow, to a user other than root) the
// kernel keeps from it already, and hiding it would cost a mount
// (bubblewrap) or a rule per entry of its directory (Landlock). Root reads
// them all, its capabilities dropped or not: they are its own files.
func readable(paths []sandboxPath) []sandboxPath {
	if os.Geteuid() == 0 {
		return paths
	}
	return slices.DeleteFunc(paths, func(p sandboxPath) bool {
		return unix.Faccessat(unix.AT_FDCWD, p.real, unix.R_OK, unix.AT_EACCESS) != nil
	})
}

// resolveSystem is resolve for system paths, keeping symbolic links as
// they are (merged /usr: /bin is a link to usr/bin).
func resolveSystem(paths []string) []sandboxPath {
	var out []sandboxPath
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			out = append(out, resolve([]string{p}, false)...)
			continue
		}
		out = append(out, sandboxPath{given: p, real: p, dir: fi.IsDir()})
	}
	return out
}

// sees reports whether the program can see the host path real.
func (j *jail) sees(real string) bool {
	return slices.ContainsFunc(j.visible, func(v string) bool { return within(v, real) })
}

// env returns the program's environment in the sandbox: TMPDIR names its
// temporary directory, or is dropped when it has none (the host's is
// not there).
func (j *jail) env(env []string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(e string) bool { return strings.HasPrefix(e, "TMPDIR=") })
	switch {
	case j.tmp != "" && j.mode == SandboxBubblewrap:
		out = append(out, "TMPDIR=/tmp")
	case j.tmp != "":
		out = append(out, "TMPDIR="+j.tmp)
	}
	return out
}

// program returns the path and arguments that start the program in the
// sandbox.
func (j *jail) program(path string, args []string) (string, []string, error) {
	if !strings.Contains(path, "/") {
		found, err := exec.LookPath(path)
		if err != nil {
			return "", nil, err
		}
		path = found
	}
	if filepath.IsAbs(path) {
		if real, err := filepath.EvalSymlinks(path); err == nil && !j.sees(real) {
			return "", nil, fmt.Errorf("%s: %w: it is outside the paths the sandbox shows", path, fs.ErrNotExist)
		}
	}
	if j.mode != SandboxBubblewrap {
		return path, args, nil
	}
	return j.bwrap, slices.Concat(j.args, []string{"--", path}, args), nil
}

// start starts cmd in the sandbox, in the tree's cgroup when it has one.
func (j *jail) start(cmd *exec.Cmd, tree *processTree) error {
	cg := ""
	if tree.cg != nil {
		cg = tree.cg.dir
	}
	if j.mode == SandboxLandlock {
		return j.startLandlocked(cmd, cg)
	}
	if j.seccomp != nil {
		if _, err := j.seccomp.Seek(0, io.SeekStart); err != nil {
			return err
		}
		cmd.ExtraFiles = []*os.File{j.seccomp} // file 3, as --seccomp says
	}
	if !j.limits.any() {
		return cmd.Start()
	}
	// Bubblewrap writes its sandbox's first process's PID to --info-fd,
	// and that process waits, its mounts made, for a byte on --block-fd
	// before it starts the program: the limits are set in between.
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		return err
	}
	defer blockW.Close()
	cmd.ExtraFiles = append(cmd.ExtraFiles, infoW, blockR) // as j.args say
	err = cmd.Start()
	infoW.Close()
	blockR.Close()
	if err != nil {
		return err
	}
	pid := 0
	stop := func(err error) error {
		// The sandbox's first process is the first of its PID namespace:
		// killed, it takes the namespace with it. It dies before the
		// byte it waits for is sent, or the pipe closed (which would let
		// it go on): the program never starts.
		if pid == 0 {
			pid = childOf(cmd.Process.Pid)
		}
		if pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	pid, err = readChildPID(infoR)
	if err != nil {
		return stop(&limitError{fmt.Errorf("process: sandbox: bubblewrap did not say its sandbox's PID: %w", err)})
	}
	if j.applied, err = applyLimits(j.limits, pid, cg, bwrapCountsProcesses(j.bwrap)); err != nil {
		return stop(err)
	}
	if _, err := blockW.Write([]byte{1}); err != nil {
		return stop(&limitError{fmt.Errorf("process: sandbox: %w", err)})
	}
	return nil
}

// childOf returns a child of the process pid, 0 when it has none.
func childOf(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// readChildPID reads bubblewrap's --info-fd, a JSON object whose
// "child-pid" is the PID of the sandbox's first process, in the host's
// PID namespace. Bubblewrap closes the pipe once it is written; an early
// end is a sandbox that failed to start.
func readChildPID(r io.Reader) (int, error) {
	var info struct {
		ChildPID int `json:"child-pid"`
	}
	if err := json.NewDecoder(io.LimitReader(r, 64<<10)).Decode(&info); err != nil {
		return 0, err
	}
	if info.ChildPID <= 0 {
		return 0, errors.New("no child-pid")
	}
	return info.ChildPID, nil
}

// exitSignal reads the status bubblewrap passes on for a program a signal
// ended, 128 plus the signal's number, as a shell reports it.
func (j *jail) exitSignal(code int) (syscall.Signal, bool) {
	if j.mode != SandboxBubblewrap || code <= 128 || code > 128+64 {
		return 0, false
	}
	return syscall.Signal(code - 128), true
}

// release removes what build made.
func (j *jail) release() {
	j.applied.release()
	if j.ruleset >= 0 {
		syscall.Close(j.ruleset)
		j.ruleset = -1
	}
	if j.seccomp != nil {
		j.seccomp.Close()
		j.seccomp = nil
	}
	if j.private != "" {
		os.RemoveAll(j.private)
	}
}

func (j *jail) buildBubblewrap(sp sandboxPaths, dir string) error {
	sup := DetectSandbox()
	if sup.Bubblewrap != nil {
		return fmt.Errorf("process: sandbox: %w", sup.Bubblewrap)
	}
	j.bwrap = sup.bwrap
	empty := filepath.Join(j.private, "empty")
	emptyDir := filepath.Join(j.private, "empty.d")
	if err := os.WriteFile(empty, nil, 0o444); err != nil {
		return fmt.Errorf("process: sandbox: %w", err)
	}
	if err := os.Mkdir(emptyDir, 0o555); err != nil {
		return fmt.Errorf("process: sandbox: %w", err)
	}

	// Every mount comes after the mounts of the directories above it
	// (bubblewrap mounts in order); at one path, a deny mask last.
	type mount struct {
		op, src, dst string
		rank         int
	}
	var mounts []mount
	bound := func(dst string) bool {
		return slices.ContainsFunc(mounts, func(m mount) bool { return m.op != "--symlink" && within(m.dst, dst) && m.dst != dst })
	}
	bind := func(op string, p sandboxPath, rank int) {
		mounts = append(mounts, mount{op, p.real, p.real, rank})
	}
	for _, p := range sp.system {
		if p.given != p.real {
			// A link such as /bin -> usr/bin is made again as a link.
			if target, err := os.Readlink(p.given); err == nil {
				mounts = append(mounts, mount{"--symlink", target, p.given, 0})
			}
			continue
		}
		bind("--ro-bind", p, 0)
	}
	if j.tmp != "" {
		mounts = append(mounts, mount{"--bind", j.tmp, "/tmp", 0})
	}
	for _, p := range sp.read {
		bind("--ro-bind", p, 1)
	}
	for _, p := range sp.write {
		bind("--bind", p, 1)
	}
	for _, p := range sp.readOnly {
		if j.sees(p.real) {
			bind("--ro-bind", p, 2)
		}
	}
	for _, p := range sp.deny {
		if !j.sees(p.real) {
			continue // not there anyway
		}
		src := empty
		if p.dir {
			src = emptyDir
		}
		mounts = append(mounts, mount{"--ro-bind", src, p.real, 3})
	}
	// A path given through a link (a workspace under /var/run) is reached
	// through the same link inside.
	for _, list := range [][]sandboxPath{sp.read, sp.write} {
		for _, p := range list {
			if p.given != p.real && !bound(p.given) && !j.sees(p.given) {
				mounts = append(mounts, mount{"--symlink", p.real, p.given, 4})
			}
		}
	}
	depth := func(p string) int { return strings.Count(p, "/") }
	slices.SortStableFunc(mounts, func(a, b mount) int {
		if d := depth(a.dst) - depth(b.dst); d != 0 {
			return d
		}
		return a.rank - b.rank
	})
	// A program that may write nowhere has no socket at all (the seccomp
	// filter below): it shares the host's network namespace, which costs
	// nothing to make, and sees only its configuration (/proc/net), as
	// under Landlock. Another has a namespace of its own, with its own
	// loopback, unless Network.
	args := bwrapBase(j.network || !j.writes)
	// A /dev of its own, read-only, with the devices programs use: not
	// bubblewrap's --dev, a writable tmpfs of half the memory (/dev/shm
	// included) with a terminal and pseudo-terminals, whose six bind
	// mounts cost more than the rest of the sandbox. A program that may
	// write gets a /dev/shm in its private directory, as its /tmp.
	args = append(args, "--tmpfs", "/dev")
	for _, d := range bwrapDevices {
		args = append(args, "--dev-bind", d, d)
	}
	args = append(args, "--symlink", "/proc/self/fd", "/dev/fd", "--symlink", "/proc/self/fd/0", "/dev/stdin",
		"--symlink", "/proc/self/fd/1", "/dev/stdout", "--symlink", "/proc/self/fd/2", "/dev/stderr", "--proc", "/proc")
	if j.tmp != "" {
		shm := filepath.Join(j.private, "shm")
		if err := os.Mkdir(shm, 0o700); err != nil {
			return fmt.Errorf("process: sandbox: %w", err)
		}
		args = append(args, "--bind", shm, "/dev/shm")
	}
	args = append(args, "--remount-ro", "/dev")
	for _, m := range mounts {
		args = append(args, m.op, m.src, m.dst)
	}
	// The sandbox's own root, where bubblewrap made the mount points,
	// is read-only too: a command writes only where it may.
	args = append(args, "--remount-ro", "/")
	// A seccomp filter, in every sandbox: no Unix sockets (socket pairs
	// stay), which would reach a daemon listening in the workspace or, with
	// the host's network namespace, its abstract sockets (an X server's, a
	// container shim's, a D-Bus bus's), which no mount hides; no kernel
	// keyring, which is the user's, not the namespace's; no io_uring.
	// Other sockets are the network namespace's business, for a program
	// that may write: its own loopback without Network, the host's with
	// it; one that may not has none.
	if auditArch != 0 {
		f, err := os.Create(filepath.Join(j.private, "seccomp"))
		if err != nil {
			return fmt.Errorf("process: sandbox: %w", err)
		}
		j.seccomp = f
		if _, err := f.Write(seccompBytes(seccompProgram(alwaysDenied(), j.network || j.writes))); err != nil {
			return fmt.Errorf("process: sandbox: %w", err)
		}
		args = append(args, "--seccomp", "3")
	}
	if j.limits.any() {
		// The files start makes, after the seccomp filter's.
		fd := 3
		if j.seccomp != nil {
			fd = 4
		}
		args = append(args, "--info-fd", strconv.Itoa(fd), "--block-fd", strconv.Itoa(fd+1))
	}
	if dir != "" {
		real, _ := filepath.EvalSymlinks(dir) // checked by build
		args = append(args, "--chdir", real)
	}
	j.args = args
	return nil
}

// seccompBytes lays out a filter as the kernel reads it (struct
// sock_filter, in the machine's byte order), for bubblewrap's --seccomp.
func seccompBytes(prog []unix.SockFilter) []byte {
	b := make([]byte, 0, 8*len(prog))
	for _, f := range prog {
		b = binary.NativeEndian.AppendUint16(b, f.Code)
		b = append(b, f.Jt, f.Jf)
		b = binary.NativeEndian.AppendUint32(b, f.K)
	}
	return b
}
