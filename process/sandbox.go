package process

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Sandbox confines a [Command] to part of the file system, on Linux: the
// program and everything it starts may read only the system directories,
// Read and Write; write only in Write (and a private temporary directory
// with Temp); neither read nor write Deny; and reach the network only with
// Network. The kernel enforces it, whatever the program does: a path the
// sandbox hides does not exist for it, a write it does not allow fails.
//
// Two mechanisms enforce it; [Sandbox.Mode] chooses, and by default Run
// uses the stronger one the machine offers ([DetectSandbox]):
//
//   - [SandboxBubblewrap] runs the program under bwrap (the bubblewrap
//     package), in namespaces of its own: a mount namespace holding only
//     the allowed paths, Deny and ReadOnly bind-mounted over with empty
//     read-only files and directories, no network interfaces but loopback
//     unless Network, no Unix sockets (by a seccomp filter: a daemon may
//     listen in the workspace, and with Network the host's network
//     namespace holds its abstract ones, an X server's, a container
//     shim's; socket pairs stay), no kernel keyring, a PID namespace (it
//     sees and signals only its own processes; /proc shows only them), a
//     read-only /dev (a program that may write has a /dev/shm of its own,
//     beside its temporary directory), a session of its own (no
//     terminal), no capabilities. Everything the sandbox promises holds.
//   - [SandboxLandlock] restricts the program with Landlock (Linux 5.13 and
//     later) and a seccomp filter: reads, writes and program execution
//     only where allowed, TCP (Landlock) and every socket (seccomp) refused
//     without Network, Unix sockets refused always (Landlock does not
//     restrict connecting to one by its path, which would reach the host's
//     daemons; socket pairs stay), no kernel keyring (seccomp), signals to
//     processes outside the sandbox refused (Landlock ABI 6), /proc
//     without the processes' directories (not even the program's own:
//     /proc/self/status cannot be read, /proc/self/exe and /dev/stdin
//     still work), a session of its own and no /dev/tty, no capabilities. Landlock only
//     grants, so a denied path inside an allowed directory is hidden by
//     granting its siblings one by one: that works for paths under Read,
//     not under Write (a file the program creates in such a directory would
//     be unreadable), so Deny and ReadOnly paths under Write are not
//     enforced in this mode; a Deny file under Write with other names (a
//     hard link, to a file outside perhaps, which a write through this name
//     would change) makes Run fail instead. Nor does Landlock restrict
//     changes of a file's metadata (mode, times, owner, extended
//     attributes): for a program that may write nowhere the seccomp filter
//     refuses them; one that may write can change the mode and times of
//     files it can reach, outside Write too.
//
// Paths are absolute; a path that does not exist is left out. Symbolic
// links in them are resolved when the sandbox is built.
//
// A Sandbox is read, never changed, by Run: one value may serve many
// commands at once.
type Sandbox struct {
	// Read lists files and directories the program may read and run
	// programs from, besides System: a toolchain, a module cache.
	Read []string
	// Write lists directories the program may read, write and run
	// programs from: the workspace of a command allowed to change it.
	Write []string
	// Deny lists paths under the others that the program may neither read
	// nor write: with bubblewrap they read as empty and cannot be
	// changed, removed or renamed. Files that appear there after the
	// program starts are not covered.
	Deny []string
	// ReadOnly lists paths under Write that the program may read but not
	// change (with bubblewrap only; see the type's documentation).
	ReadOnly []string
	// Temp gives the program a private, empty temporary directory that it
	// may write, removed when Run returns: at /tmp with bubblewrap, and
	// named by TMPDIR in its environment in both modes. Without Temp, a
	// program that only reads has no writable directory at all.
	Temp bool
	// Network lets the program reach the network. Off, only loopback
	// (bubblewrap's own, empty) or socket pairs (Landlock) remain.
	Network bool
	// System lists the directories every program needs to run, readable
	// and executable. Nil means [DefaultSystemPaths].
	System []string
	// SystemDeny lists the files under System that hold the machine's
	// secrets; globs (*) are expanded. Nil means [DefaultSystemDeny].
	SystemDeny []string
	// Mode chooses the mechanism. Zero, [SandboxAuto], means the strongest
	// this machine offers; Run fails when none is.
	Mode SandboxMode
	// Limits bound what the program and everything it starts may use:
	// processes, memory, the size of a file written. The zero value
	// means the defaults, enforced where this machine can (see [Limits]).
	Limits Limits
}

// Limits bound the resources of one sandboxed command, so that a fork
// bomb, a runaway allocation or a file that fills the disk costs the
// command, not the machine. Each field is zero for its default, positive
// for a bound of the host's, negative for none.
//
// A default is enforced where this machine can; a bound the host set,
// where it cannot, makes Run fail instead ([SandboxSupport.Bounds] says
// what holds where):
//
//   - Processes: the pids controller of the command's cgroup (cgroup v2,
//     where the host's cgroup delegates it; or cgroup v1, where its pids
//     hierarchy is writable), else, under bubblewrap for a user other than
//     root, RLIMIT_NPROC in the sandbox's user namespace (where it counts
//     the sandbox's processes only). Root is exempt from RLIMIT_NPROC, and
//     under Landlock it counts all of the user's processes: neither bounds
//     a command without a cgroup.
//   - Memory: the memory controller of the command's cgroup (v2 or v1),
//     for all its processes together, and RLIMIT_DATA for each process
//     everywhere (its heap and writable mappings; not what it reserves
//     without using).
//   - FileSize: RLIMIT_FSIZE, per file: a write past it fails (EFBIG) and
//     the writer gets SIGXFSZ. Many files each under it can still fill a
//     disk; only a quota or a size-limited mount bounds them together.
//
// The limits are set before the program's first instruction: on the
// sandbox's first process, which bubblewrap holds (--block-fd) until they
// are, or on the program stopped at its exec (ptrace) under Landlock.
type Limits struct {
	// Processes bounds the processes (and threads) alive at once. Zero
	// means [DefaultMaxProcesses].
	Processes int
	// Memory bounds the memory the command uses, in bytes. Zero means
	// half of this machine's memory.
	Memory int64
	// FileSize bounds the size of a file the command writes, in bytes.
	// Zero means [DefaultMaxFileSize].
	FileSize int64
}

// Bounds says how Run bounds a sandboxed command's [Limits] in one mode
// on this machine: for each limit, the mechanism, or "" where nothing
// bounds it (a default is then not enforced, and a bound the host sets
// makes Run fail).
type Bounds struct {
	Processes string // "cgroup v2 pids", "cgroup v1 pids", "RLIMIT_NPROC in the sandbox's user namespace"
	Memory    string // "cgroup v2 memory, and RLIMIT_DATA per process", …
	FileSize  string // "RLIMIT_FSIZE, per file"
}

// Defaults of [Limits].
const (
	// DefaultMaxProcesses bounds a sandboxed command's processes and
	// threads: a build's, a test suite's, not a fork bomb's.
	DefaultMaxProcesses = 1024
	// DefaultMaxFileSize bounds a file a sandboxed command writes: 1 GiB.
	DefaultMaxFileSize = 1 << 30
)

// DefaultSystemPaths are the directories a sandboxed program may read and
// run programs from when [Sandbox.System] is nil: programs, libraries and
// their configuration, as the Filesystem Hierarchy Standard lays them out,
// and the package prefixes of Nix and Homebrew on Linux.
var DefaultSystemPaths = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/nix/store", "/run/current-system", "/home/linuxbrew/.linuxbrew",
}

// DefaultSystemDeny are the files under [DefaultSystemPaths] a sandboxed
// program may not read when [Sandbox.SystemDeny] is nil: the "top secret"
// and cloud-credential entries of Firejail 0.9.80's disable-common.inc
// that lie in system directories, with the private keys and credentials
// that Linux services keep in /etc (TLS and VPN keys, Wi-Fi passwords,
// Kerberos keytabs, cluster admin configurations).
var DefaultSystemDeny = []string{
	// Firejail 0.9.80, etc/inc/disable-common.inc.
	"/etc/shadow", "/etc/shadow-", "/etc/shadow+", "/etc/gshadow", "/etc/gshadow-", "/etc/gshadow+",
	"/etc/passwd-", "/etc/passwd+", "/etc/group-", "/etc/group+",
	"/etc/ssh", "/etc/sudoers*", "/etc/sudo*.conf", "/etc/doas.conf",
	"/etc/davfs2/secrets", "/etc/msmtprc", "/etc/boto.cfg",
	// Service keys and credentials.
	"/etc/ssl/private", "/etc/pki/tls/private", "/etc/letsencrypt", "/etc/krb5.keytab",
	"/etc/NetworkManager/system-connections", "/etc/wpa_supplicant", "/etc/wireguard", "/etc/openvpn",
	"/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets", "/etc/ipsec.secrets", "/etc/mysql/debian.cnf",
	"/etc/kubernetes", "/etc/rancher", "/etc/docker", "/etc/containers/auth.json", "/etc/ceph",
	"/etc/libvirt/secrets", "/etc/security/opasswd",
}

// SandboxMode is a way of enforcing a [Sandbox].
type SandboxMode uint8

const (
	// SandboxAuto, in [Sandbox.Mode], asks for the strongest mode this
	// machine offers.
	SandboxAuto SandboxMode = iota
	// SandboxNone is no sandbox: nothing but the user's own rights
	// confines the program. [DetectSandbox] reports it where neither
	// mode works; a Sandbox cannot ask for it.
	SandboxNone
	// SandboxLandlock is Landlock with a seccomp filter; see [Sandbox].
	SandboxLandlock
	// SandboxBubblewrap is bubblewrap's namespaces; see [Sandbox].
	SandboxBubblewrap
)

func (m SandboxMode) String() string {
	switch m {
	case SandboxAuto:
		return "auto"
	case SandboxNone:
		return "none"
	case SandboxLandlock:
		return "landlock"
	case SandboxBubblewrap:
		return "bubblewrap"
	}
	return fmt.Sprintf("SandboxMode(%d)", m)
}

// HidesDeniedFromWriters reports whether the mode hides [Sandbox.Deny]
// and enforces [Sandbox.ReadOnly] under [Sandbox.Write] too, not only
// under Read: bubblewrap does, Landlock cannot.
func (m SandboxMode) HidesDeniedFromWriters() bool { return m == SandboxBubblewrap }

// SandboxSupport is what this machine offers for a [Sandbox].
type SandboxSupport struct {
	// Mode is the strongest mode that works here, SandboxNone if none.
	Mode SandboxMode
	// Bubblewrap says why bubblewrap cannot be used (not installed, or
	// it cannot make namespaces: unprivileged user namespaces are off, or
	// a container's seccomp profile refuses them); nil when it can.
	Bubblewrap error
	// Landlock says why Landlock cannot be used (another system, a kernel
	// without it or with it off); nil when it can.
	Landlock error
	// LandlockABI is the Landlock version the kernel offers, 0 without.
	// Before 4, only seccomp keeps the network off; before 6, a program
	// may signal processes outside the sandbox.
	LandlockABI int

	bwrap string // the bubblewrap program that worked
}

// Err returns why no sandbox is available, or nil when one is.
func (s SandboxSupport) Err() error {
	if s.Mode != SandboxNone {
		return nil
	}
	return fmt.Errorf("process: no sandbox available: %w", errors.Join(s.Bubblewrap, s.Landlock))
}

// maxSandboxPaths bounds the paths one sandbox names, so that a tree with
// countless protected files makes a clear error rather than a command line
// the kernel refuses.
const maxSandboxPaths = 8192

// check refuses a sandbox Run cannot build, before anything is made.
func (s *Sandbox) check() error {
	if s.Mode == SandboxNone || s.Mode > SandboxBubblewrap {
		return fmt.Errorf("process: Sandbox.Mode %v: pass no Sandbox to run a command unconfined", s.Mode)
	}
	n := 0
	for _, list := range [][]string{s.Read, s.Write, s.Deny, s.ReadOnly, s.System, s.SystemDeny} {
		for _, p := range list {
			if !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
				return fmt.Errorf("process: sandbox path %q is not absolute", p)
			}
		}
		n += len(list)
	}
	if n > maxSandboxPaths {
		return fmt.Errorf("process: the sandbox names %d paths, more than %d; deny or allow whole directories instead", n, maxSandboxPaths)
	}
	return nil
}

// within reports whether path is dir or inside it (both clean and
// absolute).
func within(dir, path string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}
