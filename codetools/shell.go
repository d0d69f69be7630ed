package codetools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/workspace"
)

// RunShellArgs are the arguments of run_shell.
type RunShellArgs struct {
	Command        string `json:"command" jsonschema:"minLength=1,maxLength=16384" jsonschema_description:"The command line, in POSIX shell syntax (pipes, &&, redirections)"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=600" jsonschema_description:"Stop the command after this many seconds"`
}

// Validate refuses a command line that is only blanks, in preflight.
func (a RunShellArgs) Validate() error {
	if strings.TrimSpace(a.Command) == "" {
		return &tool.Error{Message: "command is blank", Hint: "give the command line to run"}
	}
	return nil
}

const runShellDescription = `Runs a command line with sh in the workspace root and answers with its exit code and output (stdout, then stderr). Use it to build, run tests and use git; to read and search files, read_file, grep, find and list_dir are better.
Commands that only read run at once; others are shown to the user first, and destructive ones (rm, git reset --hard, > file) every time. Standard input is empty, so nothing interactive works. timeout_seconds (default %d, at most 600) stops the command and everything it started.`

// errShellTimeout is the cause of a command stopped by its own timeout.
var errShellTimeout = errors.New("run_shell: the command's timeout passed")

func (ts *Toolset) runShell() tool.AnyTool {
	def := tool.Definition{Name: "run_shell", Title: "Run a shell command",
		Description: fmt.Sprintf(runShellDescription, int(ts.opts.ShellTimeout/time.Second)),
		Safety:      tool.SafetyMutating,
		// The command's own timeout stops it first; the call's limit is a
		// backstop above the largest it may ask for.
		Timeout: MaxShellTimeout + 30*time.Second}
	t := tool.New(def, func(ctx context.Context, in RunShellArgs) (string, error) {
		return ts.shell(ctx, in)
	})
	return tool.WithApprovalHooks(t, tool.ApprovalHooks[RunShellArgs]{
		Classify: func(in RunShellArgs) tool.Safety { return ts.classify(in.Command).safety },
		Require:  func(in RunShellArgs) tool.Requirement { return shellRequirement(ts.classify(in.Command)) },
		Describe: func(ctx context.Context, in RunShellArgs) (tool.Preview, error) {
			// Why it is asked is the requirement's reason; the preview
			// shows what will run.
			return tool.Preview{Title: "Run a command in the workspace (timeout " + ts.timeout(in).String() + ")", Summary: "$ " + in.Command}, nil
		},
	})
}

// classify reads a command line against this toolset's workspace rules.
func (ts *Toolset) classify(command string) shellVerdict {
	return classifyShell(command, func(p string) bool {
		_, err := ts.ws.Check(p, workspace.Read)
		return err == nil
	})
}

// shellRequirement turns a verdict into how the call must be approved:
// "allow always" covers the same commands only (a scope per command name),
// never a destructive command or one the check could not follow.
func shellRequirement(v shellVerdict) tool.Requirement {
	reads := ""
	if len(v.reads) > 0 {
		reads = "reads outside the workspace or protected files: " + strings.Join(v.reads, ", ")
	}
	switch {
	case v.safety == tool.SafetyDestructive:
		return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "may lose data: " + strings.Join(v.reasons, "; ") + "; asked every time"}
	case v.unparsed != "":
		return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "the safety check cannot follow this command (" + v.unparsed + "); asked every time"}
	case v.safety == tool.SafetyReadOnly && reads == "":
		return tool.Requirement{}
	case v.safety == tool.SafetyReadOnly:
		return tool.Requirement{Mode: tool.RequireScoped, Reason: reads, Scope: "read " + strings.Join(v.reads, ", ")}
	}
	reason, scope := strings.Join(v.reasons, "; "), strings.Join(v.scope, ", ")
	if reads != "" {
		reason += "; " + reads
		scope += " | read " + strings.Join(v.reads, ", ")
	}
	return tool.Requirement{Mode: tool.RequireScoped, Reason: reason, Scope: scope}
}

func (ts *Toolset) timeout(in RunShellArgs) time.Duration {
	if in.TimeoutSeconds > 0 {
		return min(time.Duration(in.TimeoutSeconds)*time.Second, MaxShellTimeout)
	}
	return ts.opts.ShellTimeout
}

func (ts *Toolset) shell(ctx context.Context, in RunShellArgs) (string, error) {
	limit := ts.timeout(in)
	cctx, cancel := context.WithTimeoutCause(ctx, limit, errShellTimeout)
	defer cancel()
	sh := ts.opts.Shell
	res, err := process.Run(cctx, process.Command{
		Path: sh[0], Args: append(append([]string(nil), sh[1:]...), in.Command),
		Dir: ts.ws.Dir(), Env: ts.opts.Env, MaxOutputBytes: ts.opts.MaxShellOutput,
	})
	switch {
	case err == nil:
		return shellOutput(res), nil
	case ctx.Err() != nil:
		return "", err // the call itself was cancelled or timed out: the pipeline says so
	case res != nil && errors.Is(context.Cause(cctx), errShellTimeout):
		return "", &tool.Error{
			Message: fmt.Sprintf("the command did not finish within its %v timeout and was stopped, with everything it started.\n%s", limit, shellOutput(res)),
			Hint:    "give it a larger timeout_seconds (at most 600), or run something that finishes sooner",
		}
	}
	return "", &tool.Error{Message: "the shell could not be started", Internal: true, Cause: err}
}

// shellOutput renders a finished command for the model.
func shellOutput(res *process.Result) string {
	var b strings.Builder
	switch {
	case res.Signal != "":
		fmt.Fprintf(&b, "Killed by a signal (%s) after %s.\n", res.Signal, res.Duration.Round(time.Millisecond))
	default:
		fmt.Fprintf(&b, "Exit code %d, after %s.\n", res.ExitCode, res.Duration.Round(time.Millisecond))
	}
	if res.PipesHeld {
		b.WriteString("(Programs it started in the background kept running after it ended; they were stopped.)\n")
	}
	if res.Stdout == "" && res.Stderr == "" {
		b.WriteString("(no output)\n")
	}
	if res.Stdout != "" {
		b.WriteString("--- stdout\n" + res.Stdout)
		if !strings.HasSuffix(res.Stdout, "\n") {
			b.WriteByte('\n')
		}
	}
	if res.Stderr != "" {
		b.WriteString("--- stderr\n" + res.Stderr)
		if !strings.HasSuffix(res.Stderr, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
