package codetools

import (
	"errors"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/workspace"
)

// Defaults of [Options].
const (
	DefaultShellTimeout   = 2 * time.Minute  // run_shell without timeout_seconds
	MaxShellTimeout       = 10 * time.Minute // the most timeout_seconds may ask for
	DefaultMaxShellOutput = 1 << 20          // kept of stdout, and of stderr, per command
	DefaultMaxRemembered  = 1000             // files whose last-read content is remembered
	DefaultMaxWalk        = 100_000          // entries find and grep visit per call
)

// Options configure a [Toolset]. A nil *Options means the defaults.
type Options struct {
	// Shell is the program, with its first arguments, that run_shell runs
	// a command line with; the line is the last argument. Nil means
	// {"sh", "-c"}.
	Shell []string
	// Env is the environment of run_shell's commands. Nil means
	// [process.MinimalEnv] (PATH, HOME, the locale and the like, none of
	// the host's tokens and keys) plus TERM=dumb and NO_COLOR=1. Add to
	// it with process.MinimalEnv("GOPATH"); pass os.Environ() to give the
	// commands everything.
	Env []string
	// ShellTimeout bounds a command whose call gives no timeout_seconds.
	// Zero means [DefaultShellTimeout]; the model may ask for up to
	// [MaxShellTimeout].
	ShellTimeout time.Duration
	// MaxShellOutput caps what is kept of a command's stdout, and of its
	// stderr: the head and the tail, the middle counted. Zero means
	// [DefaultMaxShellOutput]. The registry's output cap then cuts what
	// the model sees in one answer; with a spill store, it reads the rest
	// with read_output.
	MaxShellOutput int
	// MaxRemembered bounds how many files the toolset remembers the model
	// has read, least recently used first out. A file forgotten must be
	// read again before it is edited. Zero means [DefaultMaxRemembered].
	MaxRemembered int
	// MaxWalk bounds the files and directories find and grep visit in
	// one call. Zero means [DefaultMaxWalk].
	MaxWalk int
	// Sandbox says how run_shell's commands are confined. Nil means the
	// strongest sandbox this machine offers (on Linux: bubblewrap, else
	// Landlock), built for each command from the workspace's rules, with
	// no network; see [SandboxOptions] and [Toolset.Sandbox].
	Sandbox *SandboxOptions
}

// SandboxOptions configure run_shell's sandbox (see [process.Sandbox] for
// what each mode enforces).
type SandboxOptions struct {
	// Mode chooses the mechanism. Zero, process.SandboxAuto, is the
	// strongest this machine offers. process.SandboxNone runs commands
	// unconfined, with the host's rights, even where a sandbox is
	// available (in a container that is itself the sandbox): the approval
	// check then asks about every command it cannot prove harmless.
	Mode process.SandboxMode
	// Network lets commands that are not read-only reach the network.
	Network bool
	// Read lists more paths commands may read, absolute: a toolchain
	// outside the system directories (GOROOT under a home directory), a
	// module cache.
	Read []string
	// Write lists more directories commands allowed to write may write,
	// absolute: a build cache. Give commands a cache of their own rather
	// than the person's: a command could put an entry there that a later
	// build outside the sandbox would use.
	Write []string
	// Limits bound each command's processes, memory and file size. The
	// zero value means process.Limits' defaults, enforced where the
	// machine can ([process.SandboxSupport.Bounds]); a bound set here that
	// the machine cannot enforce makes every command fail.
	Limits process.Limits
}

// Toolset is the reference coding tools, bound to one workspace:
// read_file, list_dir, find, grep, edit_file, write_file and run_shell.
//
// Its tools remember, per session and file, what the model last read or
// wrote, so that edit_file and write_file refuse to change a file that
// changed since, or that this session's model never saw; see the package
// documentation.
//
// A Toolset is safe for concurrent use.
type Toolset struct {
	ws         *workspace.Workspace
	opts       Options
	reads      *readLog
	tools      []tool.Definer
	sandbox    process.SandboxMode // what confines run_shell's commands
	sandboxErr error               // why not a sandbox, or not the one asked for
}

// New returns the toolset for ws. The workspace stays the caller's to
// close, after the toolset's last call.
func New(ws *workspace.Workspace, opts *Options) *Toolset {
	ts := &Toolset{ws: ws}
	if opts != nil {
		ts.opts = *opts
	}
	o := &ts.opts
	if len(o.Shell) == 0 {
		o.Shell = []string{"sh", "-c"}
	}
	if o.Env == nil {
		o.Env = minimalEnv()
	}
	if o.ShellTimeout <= 0 {
		o.ShellTimeout = DefaultShellTimeout
	}
	o.ShellTimeout = min(o.ShellTimeout, MaxShellTimeout)
	if o.MaxShellOutput <= 0 {
		o.MaxShellOutput = DefaultMaxShellOutput
	}
	if o.MaxRemembered <= 0 {
		o.MaxRemembered = DefaultMaxRemembered
	}
	if o.MaxWalk <= 0 {
		o.MaxWalk = DefaultMaxWalk
	}
	ts.sandbox, ts.sandboxErr = chooseSandbox(o.Sandbox)
	ts.reads = newReadLog(o.MaxRemembered)
	ts.tools = []tool.Definer{
		ts.readFile(), ts.listDir(), ts.find(), ts.grep(), ts.editFile(), ts.writeFile(), ts.runShell(),
	}
	return ts
}

// chooseSandbox decides, once, what confines the commands.
func chooseSandbox(o *SandboxOptions) (process.SandboxMode, error) {
	want := process.SandboxAuto
	if o != nil {
		want = o.Mode
	}
	if want == process.SandboxNone {
		return process.SandboxNone, errors.New("codetools: the sandbox is off (Options.Sandbox.Mode is SandboxNone)")
	}
	sup := process.DetectSandbox()
	switch {
	case want == process.SandboxAuto:
		return sup.Mode, sup.Err()
	case want == process.SandboxBubblewrap && sup.Bubblewrap != nil:
		return want, fmt.Errorf("codetools: the bubblewrap sandbox asked for is not available, so no command will run: %w", sup.Bubblewrap)
	case want == process.SandboxLandlock && sup.Landlock != nil:
		return want, fmt.Errorf("codetools: the Landlock sandbox asked for is not available, so no command will run: %w", sup.Landlock)
	}
	return want, nil
}

// Sandbox returns what confines run_shell's commands here: a mode, and,
// with [process.SandboxNone], why (the machine offers none, or the options
// turned it off). With no sandbox, commands run with the host's rights and
// the approval check asks about every one it cannot prove harmless. A
// sandbox asked for by name that the machine lacks is returned with the
// error: every command then fails, rather than running unconfined.
//
// A host shows this to the person, once, at start.
func (ts *Toolset) Sandbox() (process.SandboxMode, error) { return ts.sandbox, ts.sandboxErr }

// Tools returns the toolset's tools, for Registry.Add. They need no host
// state: any registry takes them.
func (ts *Toolset) Tools() []tool.Definer { return append([]tool.Definer(nil), ts.tools...) }

// Workspace returns the workspace the tools work in.
func (ts *Toolset) Workspace() *workspace.Workspace { return ts.ws }

// Forget clears the memory of what the model has read, so that every file
// must be read again before it is changed: for a host that drops earlier
// turns from the conversation (the model no longer has what it read).
func (ts *Toolset) Forget() { ts.reads.clear() }

// minimalEnv is process.MinimalEnv with output meant for a reader, not a
// terminal: no colours, no cursor movement.
func minimalEnv() []string {
	return append([]string{"TERM=dumb", "NO_COLOR=1"}, process.MinimalEnv()...)
}
