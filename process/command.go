package process

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
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
	// Path is the program: a path, or a name looked up in PATH.
	Path string
	// Args are its arguments, without the program name.
	Args []string
	// Dir is the working directory; empty means the host's.
	Dir string
	// Env is the environment; nil means the host's.
	Env []string
	// Stdin is the program's standard input. Nil gives it end of file at
	// once, so a program waiting for input does not hang the call.
	Stdin io.Reader
	// MaxOutputBytes caps what is kept of stdout and of stderr, each: the
	// head and the tail, the rest counted (see [HeadTailBuffer]). The
	// program is never blocked on a full pipe. Zero means
	// [tool.DefaultMaxOutputBytes].
	MaxOutputBytes int
	// KillGrace is how long the program has to exit after the terminate
	// signal before it and its descendants are killed. Zero means
	// [DefaultKillGrace]. Keep it below the registry's Grace, so the tool
	// returns before the pipeline gives up on it.
	KillGrace time.Duration
	// PipeWait is how long, after the program exits, its descendants may
	// keep its output pipes open (to finish writing) before they are
	// killed. Zero means [DefaultPipeWait].
	PipeWait time.Duration
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
	// TimedOut is set when the context's deadline stopped the program;
	// Canceled when a cancellation did.
	TimedOut, Canceled bool
	// PipesHeld is set when descendants kept the output pipes open after
	// the program exited; they were killed, and output they wrote later
	// is lost.
	PipesHeld bool
}

// ErrStopped is the cause Run returns, wrapped with the
// context's cause, when the call ended before the program did.
var ErrStopped = errors.New("the command was stopped")

// treeMarkerEnv starts the name of the environment variable that marks
// every process a command starts, so the processes can be found even when
// they leave the process group. Each command's variable has its own name
// (the prefix and a random ID), so a command run by a process that is
// itself marked carries both marks and is found by either sweep.
const treeMarkerEnv = "TOOLBELT_PROCESS_TREE_"

// Run runs c until it exits or ctx is done, whichever comes first,
// and returns what happened. It never leaves a process behind on purpose:
//
//   - The program starts in its own process group (on Windows, its own
//     process tree), with standard input at end of file unless c.Stdin is set.
//   - When ctx is done, the group is sent SIGTERM, then SIGKILL after
//     KillGrace. On Windows the tree is killed with taskkill.
//   - When the program exits, whatever it left running in its group is
//     killed too: the call's processes do not outlive the call. Descendants
//     holding the output pipes get PipeWait to finish first.
//   - On Linux, every process is also marked in its environment, and a
//     descendant that left the group (setsid, a double fork) is found in
//     /proc by its mark and killed the same way.
//
// What it cannot reach: on other systems than Linux, a descendant that
// starts its own session or process group; on Linux, one that also clears
// its environment. Run such programs in a container or a cgroup.
//
// The error is nil when the program ran to its end, whatever its exit
// status; it reports a program that could not start, and, wrapping
// [ErrStopped] and the context's cause, a program stopped because
// ctx was done (the result is filled in then too).
func Run(ctx context.Context, c Command) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tool: %s not started: %w", c.Path, context.Cause(ctx))
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
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir, cmd.Stdin = c.Dir, c.Stdin
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], tree.marker+"=1")
	tree.prepare(cmd)

	// The pipes are the program's own files: Wait then returns when the
	// program exits, whoever else holds them, and the readers here decide
	// how long to wait for the rest.
	stdout, stderr := NewHeadTailBuffer(limit), NewHeadTailBuffer(limit)
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("tool: %s: %w", c.Path, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("tool: %s: %w", c.Path, err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("tool: %s could not start: %w", c.Path, err)
	}
	tree.started(cmd.Process)

	var readers sync.WaitGroup
	readers.Go(func() { io.Copy(stdout, outR) })
	readers.Go(func() { io.Copy(stderr, errR) })
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	res := &Result{}
	stopped := false
	select {
	case <-exited:
	case <-ctx.Done():
		stopped = true
		tree.signal(false)
		select {
		case <-exited:
		case <-time.After(grace):
			tree.signal(true)
			<-exited
		}
	}

	// The program is gone. Descendants still holding its pipes get
	// PipeWait to finish; then everything left of the tree is killed, and
	// pipes still held open after that (by a process out of reach) are
	// closed on our side.
	select {
	case <-drained:
	case <-time.After(pipeWait):
		res.PipesHeld = true
	}
	tree.signal(true)
	select {
	case <-drained:
	case <-time.After(100 * time.Millisecond):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()

	res.Duration = time.Since(start)
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.Signal = exitSignal(cmd.ProcessState)
	res.Stdout, res.StdoutDropped = stdout.String(), stdout.Dropped()
	res.Stderr, res.StderrDropped = stderr.String(), stderr.Dropped()
	if stopped {
		cause := context.Cause(ctx)
		res.TimedOut = errors.Is(cause, context.DeadlineExceeded)
		res.Canceled = !res.TimedOut
		return res, fmt.Errorf("tool: %s: %w: %w", c.Path, ErrStopped, cause)
	}
	return res, nil
}

// processTree is the set of processes one command started.
type processTree struct {
	marker string // the name of its environment variable
	proc   *os.Process
}

func newProcessTree() (*processTree, error) {
	var id [12]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("tool: no randomness for the process mark: %w", err)
	}
	return &processTree{marker: treeMarkerEnv + hex.EncodeToString(id[:])}, nil
}

func (t *processTree) started(p *os.Process) { t.proc = p }
