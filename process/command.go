package process

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/toolbelt-go/tool"
)

// Command is a program a tool runs for one call, under the call's context:
// when the call is cancelled or times out, the program and everything it
// started are stopped, and [Run] returns.
type Command struct {
	// Path is the program: a path, or a name looked up in the host's PATH.
	Path string
	// Args are its arguments, without the program name.
	Args []string
	// Dir is the working directory; empty means the host's.
	Dir string
	// Env is the environment, as "NAME=value" entries. Nil means
	// [MinimalEnv]: the host's PATH, HOME, locale and a few more, and none
	// of its other variables (unlike exec.Cmd, which passes them all). Pass
	// os.Environ() to hand the program the host's whole environment.
	Env []string
	// Stdin is the program's standard input. Nil gives it end of file at
	// once, so a program waiting for input does not hang the call. An
	// *os.File is handed to the program as it is; any other reader is
	// copied to it through a pipe, and Run does not wait for the copying:
	// when the program exits or ctx is done first, the pipe is closed, and
	// Stdin too if it is an io.Closer. A reader whose Read blocks and
	// cannot be closed keeps one goroutine until the Read returns.
	Stdin io.Reader
	// Timeout, when positive, stops the program that long after Run is
	// called, as a deadline on ctx would, and names the limit in the
	// error ("ran longer than its 5s time limit"): for a tool that takes
	// its time limit from its arguments.
	Timeout time.Duration
	// MaxOutputBytes caps what is kept of stdout and of stderr, each: the
	// head and the tail, the rest counted (see [HeadTailBuffer]). The
	// program is never blocked on a full pipe. Zero means
	// [tool.DefaultMaxOutputBytes].
	MaxOutputBytes int
	// KillGrace is how long the program and its descendants have to exit
	// after the terminate signal before they are killed. Zero means
	// [DefaultKillGrace]. Keep it below the registry's Grace, so the tool
	// returns before the pipeline gives up on it.
	KillGrace time.Duration
	// PipeWait is how long, after the program exits, its descendants may
	// keep its output pipes open (to finish writing) before they are
	// killed. Zero means [DefaultPipeWait].
	PipeWait time.Duration
	// Sandbox, when set, confines the program and everything it starts
	// to the paths and network it allows, on Linux; see [Sandbox]. Run
	// fails, running nothing, when the sandbox cannot be made (another
	// system, a kernel without Landlock and no usable bubblewrap): check
	// [DetectSandbox] first to decide what to do then.
	Sandbox *Sandbox
}

// DefaultKillGrace is the time between the terminate signal and the kill.
const DefaultKillGrace = time.Second

// DefaultPipeWait is how long descendants may hold the pipes after the
// program exits.
const DefaultPipeWait = 250 * time.Millisecond

// Result is what happened to a [Command].
type Result struct {
	// ExitCode is the program's exit status, or -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the program ("killed",
	// "terminated"), if one did.
	Signal string
	// Stdout and Stderr are what the program wrote, cut to the head and
	// tail when it wrote more than MaxOutputBytes.
	Stdout, Stderr string
	// StdoutDropped and StderrDropped count the bytes cut.
	StdoutDropped, StderrDropped int64
	// Duration is from start to the end of the last output.
	Duration time.Duration
	// TimedOut is set when a deadline (ctx's, or Timeout) stopped the
	// program; Canceled when a cancellation did.
	TimedOut, Canceled bool
	// PipesHeld is set when descendants kept the output pipes open after
	// the program exited, until they were killed; output they would have
	// written later is lost.
	PipesHeld bool
	// Sandbox is the mode that confined the program: SandboxNone without
	// [Command.Sandbox]. Under bubblewrap, a program a signal ended is
	// seen as the exit status 128 plus the signal's number, as a shell
	// reports it, and reported as that signal.
	Sandbox SandboxMode
}

// Run runs c until it exits or ctx is done, whichever comes first,
// and returns what happened. No process it started outlives it:
//
//   - On Linux, where the host may create cgroups (cgroup v2, delegated or
//     as root), the program starts inside a cgroup of its own, and at the
//     end everything in it is killed (cgroup.kill) and the cgroup removed.
//     A descendant cannot leave it by starting a session, forking twice,
//     clearing its environment or rewriting its title.
//   - Everywhere, the program also starts in its own process group (on
//     Windows, its own process tree), and without a cgroup every process
//     is marked in its environment: on Linux, descendants that left the
//     group are found in /proc by the mark, or by a parent that has it, and
//     killed the same way.
//   - When ctx is done, the tree is sent SIGTERM, then SIGKILL after
//     KillGrace. On Windows it is ended with taskkill.
//   - When the program exits, what it left running is killed: the call's
//     processes do not outlive the call. Descendants holding the output
//     pipes get PipeWait to finish first.
//
// Without a cgroup, what escapes is a descendant that leaves the process
// group and loses its mark (a cleared environment, or a process title
// written over it) after its parent exited (a daemon's double
// fork); on macOS and the BSDs, any descendant that leaves the process
// group; on Windows, one whose parent exited. The package documentation's
// Guarantees say it per platform.
//
// The error is nil when the program ran to its end, whatever its exit
// status. Otherwise it is a *[tool.Error] whose message the model may see
// (it names the program by its base name, never its path, arguments or
// environment) and whose cause has the details: for a command that could
// not start, or whose ctx was done before it started; and, wrapping
// [ErrStopped] and the context's cause, for a program stopped because ctx
// was done, with the result filled in then too. A stop by a deadline is
// StatusTimedOut and wraps context.DeadlineExceeded; a cancellation is
// StatusCanceled.
func Run(ctx context.Context, c Command) (*Result, error) {
	name := displayName(c.Path)
	if err := c.check(name); err != nil {
		return nil, err
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout, &timeLimit{c.Timeout})
		defer cancel()
	}
	if ctx.Err() != nil {
		return nil, notStartedError(ctx, name, c.Path)
	}
	limit := c.MaxOutputBytes
	if limit <= 0 {
		limit = tool.DefaultMaxOutputBytes
	}
	grace, pipeWait := c.KillGrace, c.PipeWait
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	if pipeWait <= 0 {
		pipeWait = DefaultPipeWait
	}

	tree, err := newProcessTree()
	if err != nil {
		return nil, err
	}
	env := c.Env
	if env == nil {
		env = MinimalEnv()
	}
	var j *jail
	if c.Sandbox != nil {
		if j, err = c.Sandbox.build(c.Dir); err != nil {
			return nil, sandboxError(name, c.Path, err)
		}
		defer j.release()
		env = j.env(env)
	}
	env = append(env[:len(env):len(env)], tree.marker+"=1")
	path, args, run := c.Path, c.Args, (*exec.Cmd).Start
	if j != nil {
		if path, args, err = j.program(c.Path, c.Args); err != nil {
			return nil, startError(name, c.Path, err)
		}
		run = func(cmd *exec.Cmd) error { return j.start(cmd, tree) }
	}

	// The pipes are the program's own files: Wait then returns when the
	// program exits, whoever else holds them, and the readers here decide
	// how long to wait for the rest.
	p, err := newPipes(c.Stdin)
	if err != nil {
		return nil, startError(name, c.Path, err)
	}
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(path, args...)
		cmd.Dir, cmd.Env = c.Dir, env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = p.in.stdin(), p.outW, p.errW
		return cmd
	}
	start := time.Now()
	cmd, err := tree.start(newCmd, run)
	p.started(err == nil)
	if err != nil {
		return nil, startError(name, c.Path, err)
	}

	stdout, stderr := NewHeadTailBuffer(limit), NewHeadTailBuffer(limit)
	var readers sync.WaitGroup
	readers.Go(func() { io.Copy(stdout, p.outR) })
	readers.Go(func() { io.Copy(stderr, p.errR) })
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()

	res := &Result{}
	stopped := false
	select {
	case <-exited:
		p.in.stop()
		// Descendants still holding the pipes get PipeWait to finish.
		if !closedWithin(pipeWait, drained) {
			res.PipesHeld = true
		}
	case <-ctx.Done():
		stopped = true
		// The grace is for the whole tree: the program and the
		// descendants holding its output get it to finish, from now.
		graceEnd := time.NewTimer(grace)
		p.in.stop()
		tree.signal(false)
		if !closedBy(graceEnd.C, exited, drained) {
			res.PipesHeld = isClosed(exited)
		}
		graceEnd.Stop()
	}

	// Whatever is left of the tree is killed; pipes still held open after
	// that (by a process out of reach) are closed on our side.
	tree.signal(true)
	<-exited
	if !closedWithin(100*time.Millisecond, drained) {
		p.outR.Close()
		p.errR.Close()
		<-drained
	}
	p.outR.Close()
	p.errR.Close()
	tree.release()

	res.Duration = time.Since(start)
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.Signal = exitSignal(cmd.ProcessState)
	res.Sandbox = SandboxNone
	if j != nil {
		res.Sandbox = j.mode
		if sig, ok := j.exitSignal(res.ExitCode); ok && res.Signal == "" {
			res.ExitCode, res.Signal = -1, sig.String()
		}
	}
	res.Stdout, res.StdoutDropped = stdout.String(), stdout.Dropped()
	res.Stderr, res.StderrDropped = stderr.String(), stderr.Dropped()
	if stopped {
		err := stoppedError(ctx, name, c.Path, res.Duration)
		res.TimedOut = errors.Is(err, context.DeadlineExceeded)
		res.Canceled = !res.TimedOut
		return res, err
	}
	return res, nil
}

// pipes are a command's standard input, output and error.
type pipes struct {
	in         *stdinFeed
	outR, outW *os.File
	errR, errW *os.File
}

func newPipes(stdin io.Reader) (*pipes, error) {
	p := &pipes{}
	var err error
	if p.in, err = newStdinFeed(stdin); err != nil {
		return nil, err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.in.failed()
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.in.failed()
		p.outR.Close()
		p.outW.Close()
		return nil, err
	}
	return p, nil
}

// started closes the program's ends of the pipes, which it has its own
// copies of, and all of them when it did not start.
func (p *pipes) started(ok bool) {
	p.outW.Close()
	p.errW.Close()
	if ok {
		p.in.started()
		return
	}
	p.in.failed()
	p.outR.Close()
	p.errR.Close()
}

// closedWithin reports whether every channel is closed within d.
func closedWithin(d time.Duration, chans ...<-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	return closedBy(t.C, chans...)
}

// closedBy reports whether every channel is closed before deadline fires.
func closedBy(deadline <-chan time.Time, chans ...<-chan struct{}) bool {
	for _, ch := range chans {
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
	return true
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
