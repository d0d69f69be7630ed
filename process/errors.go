package process

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toolbelt-go/tool"
)

// ErrStopped is wrapped, with the context's cause, in the error Run
// returns when the call ended before the program did.
var ErrStopped = errors.New("the command was stopped")

// The errors of Run are *tool.Error values: their Message, which the model
// sees when a tool returns the error, names the program by its base name
// only and quotes no argument or variable; their Cause, for the host, has
// the path and the underlying error.

// timeLimit is the context cause when [Command.Timeout] stops a program.
type timeLimit struct{ limit time.Duration }

func (e *timeLimit) Error() string { return "its " + e.limit.String() + " time limit passed" }

// Is reports whether target is context.DeadlineExceeded, so the usual
// check for a timeout sees one.
func (e *timeLimit) Is(target error) bool { return target == context.DeadlineExceeded }

// displayName is how the model is told which program it was: the base
// name, not where the host keeps it.
func displayName(path string) string {
	if path == "" || strings.ContainsRune(path, 0) {
		return "the program"
	}
	return filepath.Base(path)
}

// check refuses a command that cannot start, before anything is made for
// it. A NUL byte cannot be passed to a program: the kernel reads each
// argument up to the first one.
func (c *Command) check(name string) error {
	if c.Path == "" {
		return errors.New("process: Command.Path is empty")
	}
	nul := func(what string) error {
		return &tool.Error{Message: what + " contains a NUL character (\\u0000), which cannot be passed to a program; remove it",
			Cause: fmt.Errorf("process: %s: %s contains a NUL byte", c.Path, what)}
	}
	if strings.ContainsRune(c.Path, 0) {
		return nul("the program name")
	}
	for i, a := range c.Args {
		if strings.ContainsRune(a, 0) {
			return nul(fmt.Sprintf("argument %d of %s", i+1, name))
		}
	}
	if strings.ContainsRune(c.Dir, 0) {
		return nul("the working directory of " + name)
	}
	for i, e := range c.Env {
		if strings.ContainsRune(e, 0) {
			return nul(fmt.Sprintf("environment entry %d of %s", i+1, name))
		}
	}
	if c.Dir != "" {
		fi, err := os.Stat(c.Dir)
		if err == nil && !fi.IsDir() {
			err = syscall.ENOTDIR
		}
		if err != nil {
			return &tool.Error{Message: name + " could not be started: its working directory does not exist or is not a directory",
				Cause: fmt.Errorf("process: %s could not start: working directory: %w", c.Path, err)}
		}
	}
	return nil
}

// startError reports a program that could not start, with the reason but
// not the path.
func startError(name, path string, err error) error {
	reason := "it could not be started"
	var errno syscall.Errno
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		reason = "no such program"
	case errors.Is(err, fs.ErrPermission):
		reason = "permission denied"
	case errors.As(err, &errno):
		reason = errno.Error()
	}
	return &tool.Error{Message: name + " could not be started: " + reason,
		Cause: fmt.Errorf("process: %s could not start: %w", path, err)}
}

// sandboxError reports a command whose sandbox could not be made: the
// model is told the command did not run, the host why.
func sandboxError(name, path string, err error) error {
	return &tool.Error{Message: name + " was not started: its sandbox could not be made",
		Cause: fmt.Errorf("process: %s not started: %w", path, err)}
}

// notStartedError reports a command whose context ended before it started.
func notStartedError(ctx context.Context, name, path string) error {
	e := &tool.Error{Status: tool.StatusCanceled, Message: name + " was not started: the call was cancelled",
		Cause: fmt.Errorf("process: %s not started: %w", path, ctxError(ctx))}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		e.Status, e.Message = tool.StatusTimedOut, name+" was not started: its time limit had passed"
	}
	return e
}

// stoppedError reports a program stopped because ctx ended, naming the
// time limit when there was one: the command's Timeout, or the tool's
// (a [tool.TimeoutError] cause). A timeout is StatusTimedOut, for a tool
// whose own context is not done but that returns this error, as a shell
// tool taking its timeout from an argument does.
func stoppedError(ctx context.Context, name, path string, ran time.Duration) error {
	cause := context.Cause(ctx)
	e := &tool.Error{Status: tool.StatusTimedOut, Cause: fmt.Errorf("process: %s: %w: %w", path, ErrStopped, ctxError(ctx))}
	var tl *timeLimit
	var te *tool.TimeoutError
	switch {
	case errors.As(cause, &tl):
		e.Message = fmt.Sprintf("%s ran longer than its %v time limit and was stopped", name, tl.limit)
	case errors.As(cause, &te) && te.Idle:
		e.Message = fmt.Sprintf("%s was stopped: the call reported no progress for %v", name, te.Limit)
	case errors.As(cause, &te):
		e.Message = fmt.Sprintf("%s ran longer than its %v time limit and was stopped", name, te.Limit)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		e.Message = fmt.Sprintf("%s was stopped when its deadline passed, after running %v", name, roundRan(ran))
	default:
		e.Status, e.Message = tool.StatusCanceled, name+" was stopped because the call was cancelled"
	}
	return e
}

// ctxError is the error of a done ctx: its cause, and ctx.Err() too when
// the cause is another error, so that errors.Is finds context.Canceled or
// context.DeadlineExceeded whatever the cause.
func ctxError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if err := ctx.Err(); !errors.Is(cause, err) {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return cause
}

func roundRan(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
