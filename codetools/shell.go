package codetools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// Said to the model about the sandbox, so that it understands a refused
// write or a missing file.
const (
	sandboxedDescription = `
Commands run in a sandbox: they see the workspace and the system's programs, nothing else of the user's; protected files (.env, keys, credentials) read as empty; a command that only reads cannot write anything, and one allowed to write can write only in the workspace and in TMPDIR, and in .git only when it runs git alone (run git add and git commit on their own, not after other programs); %s. A "read-only file system" or "permission denied" error comes from the sandbox: do not try to get around it.`
	landlockDescription = `
Commands run in a sandbox: they see the workspace and the system's programs, nothing else of the user's; a command that only reads cannot write anything, nor read protected files (.env, keys, credentials), and one allowed to write can write only in the workspace and in TMPDIR; %s. A "permission denied" error comes from the sandbox: do not try to get around it.`
)

// errShellTimeout is the cause of a command stopped by its own timeout.
var errShellTimeout = errors.New("run_shell: the command's timeout passed")

func (ts *Toolset) runShell() tool.AnyTool {
	desc := fmt.Sprintf(runShellDescription, int(ts.opts.ShellTimeout/time.Second))
	if ts.sandbox != process.SandboxNone {
		net := "no network"
		if ts.opts.Sandbox != nil && ts.opts.Sandbox.Network {
			net = "commands that are not read-only may use the network"
		}
		if ts.sandbox == process.SandboxLandlock {
			desc += fmt.Sprintf(landlockDescription, net)
		} else {
			desc += fmt.Sprintf(sandboxedDescription, net)
		}
	}
	def := tool.Definition{Name: "run_shell", Title: "Run a shell command", Description: desc,
		Safety: tool.SafetyMutating,
		// The command's own timeout stops it first; the call's limit is a
		// backstop above the largest it may ask for.
		Timeout: MaxShellTimeout + 30*time.Second}
	t := tool.New(def, func(ctx context.Context, in RunShellArgs) (string, error) {
		return ts.shell(ctx, in)
	})
	return tool.WithApprovalHooks(t, tool.ApprovalHooks[RunShellArgs]{
		Classify: func(in RunShellArgs) tool.Safety { return ts.classify(in.Command).safety },
		Require:  func(in RunShellArgs) tool.Requirement { return ts.requirement(ts.classify(in.Command)) },
		Describe: func(ctx context.Context, in RunShellArgs) (tool.Preview, error) {
			// Why it is asked is the requirement's reason; the preview
			// shows what will run, and how it is confined.
			title := "Run a command in the workspace (timeout " + ts.timeout(in).String() + ")"
			switch {
			case ts.sandbox == process.SandboxNone:
				title += ", with your rights: no sandbox"
			case ts.classify(in.Command).safety == tool.SafetyReadOnly:
				title += ", sandboxed, read-only"
			default:
				title += ", sandboxed, writing only in the workspace"
			}
			return tool.Preview{Title: title, Summary: "$ " + in.Command}, nil
		},
	})
}

// classify reads a command line against this toolset's workspace rules:
// a path is checked as read_file would check it, links followed.
func (ts *Toolset) classify(command string) shellVerdict {
	r := rules{look: ts.ws.Lookup, linked: ts.ws.HardLinked}
	if ts.sandbox == process.SandboxNone {
		r.gitRuns = func(dir string) string { return repoRunsPrograms(filepath.Join(ts.ws.Dir(), filepath.FromSlash(dir))) }
	}
	return classifyShell(command, r)
}

// requirement turns a verdict into how the call must be approved.
func (ts *Toolset) requirement(v shellVerdict) tool.Requirement {
	req := shellRequirement(v, ts.sandbox != process.SandboxNone)
	if ts.sandbox == process.SandboxLandlock && v.safety != tool.SafetyReadOnly && req.Mode != tool.RequireDefault {
		req.Reason += " (the Landlock sandbox here does not hide protected files from a command that writes; bubblewrap would)"
	}
	return req
}

// shellRequirement turns a verdict into how the call must be approved:
// "allow always" covers the same commands only, as the person saw them
// (program and subcommand, behind their wrappers), never a destructive
// command or one the check could not follow. Reads of named paths outside
// the workspace's rules are asked about; reads the check cannot see (a
// whole tree, a pattern) only without a sandbox, which hides protected
// files from a command that reads.
func shellRequirement(v shellVerdict, sandboxed bool) tool.Requirement {
	reads := v.named
	if !sandboxed {
		reads = append(slices.Clip(reads), v.unseen...)
	}
	readReason := ""
	if len(reads) > 0 {
		readReason = "reads outside the workspace or protected files: " + strings.Join(reads, ", ")
		if sandboxed {
			readReason += " (the sandbox shows a command only the workspace's allowed files and the system's own)"
		}
	}
	switch {
	case v.safety == tool.SafetyDestructive:
		return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "may lose data: " + strings.Join(v.reasons, "; ") + "; asked every time"}
	case v.unknown != "":
		return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "the safety check cannot follow this command (" + v.unknown + "); asked every time"}
	case v.safety == tool.SafetyReadOnly && readReason == "":
		return tool.Requirement{}
	case v.safety == tool.SafetyReadOnly:
		return tool.Requirement{Mode: tool.RequireScoped, Reason: readReason, Scope: "reads: " + strings.Join(reads, ", ")}
	case len(v.scope) == 0:
		return tool.Requirement{Mode: tool.RequireAskAlways, Reason: strings.Join(v.reasons, "; ") + "; asked every time"}
	}
	reason, scope := strings.Join(v.reasons, "; "), strings.Join(v.scope, ", ")
	if readReason != "" {
		reason += "; " + readReason
		scope += " | reads: " + strings.Join(reads, ", ")
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
	sb, done, err := ts.shellSandbox(ctx, in.Command)
	var refused *tool.Error
	switch {
	case errors.As(err, &refused):
		return "", refused
	case err != nil && ctx.Err() != nil:
		return "", &tool.Error{Message: "the command was not run: it waited for the other commands running in the workspace, and its time ran out", Cause: err}
	case err != nil:
		return "", &tool.Error{Message: "the command was not run: its sandbox could not be made", Internal: true, Cause: err}
	}
	defer done()
	limit := ts.timeout(in)
	cctx, cancel := context.WithTimeoutCause(ctx, limit, errShellTimeout)
	defer cancel()
	sh := ts.opts.Shell
	res, err := process.Run(cctx, process.Command{
		Path: sh[0], Args: append(append([]string(nil), sh[1:]...), in.Command),
		Dir: ts.ws.Dir(), Env: ts.opts.Env, MaxOutputBytes: ts.opts.MaxShellOutput, Sandbox: sb,
	})
	notes := done() // the command has ended: what it left is looked at
	switch {
	case err == nil:
		return shellOutput(res, notes), nil
	case ctx.Err() != nil:
		return "", err // the call itself was cancelled or timed out: the pipeline says so
	case res != nil && errors.Is(context.Cause(cctx), errShellTimeout):
		return "", &tool.Error{
			Message: fmt.Sprintf("the command did not finish within its %v timeout and was stopped, with everything it started.\n%s", limit, shellOutput(res, notes)),
			Hint:    "give it a larger timeout_seconds (at most 600), or run something that finishes sooner",
		}
	}
	return "", &tool.Error{Message: "the shell could not be started", Internal: true, Cause: err}
}

// shellSandbox prepares the sandbox a command runs in, from the
// workspace's rules and the class the approval saw: a read-only command
// may write nothing; another may write where the workspace allows (the
// repositories too when it runs version control alone), and reach the
// network if the host allows it. It holds the workspace until done is
// called, after the command: no other command of the workspace's changes
// the tree meanwhile. Nil without a sandbox.
func (ts *Toolset) shellSandbox(ctx context.Context, command string) (_ *process.Sandbox, done func() []string, err error) {
	if ts.sandbox == process.SandboxNone {
		return nil, func() []string { return nil }, nil
	}
	v := ts.classify(command)
	access := workspace.Read
	if v.safety != tool.SafetyReadOnly {
		access = workspace.Write
	}
	prep, err := ts.ws.Prepare(ctx, access, &workspace.PrepareOptions{VersionControl: v.versionControlOnly(), Mode: ts.sandbox})
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			prep.Done()
		}
	}()
	sb := prep.Sandbox()
	sb.Mode = ts.sandbox
	if ts.sandbox == process.SandboxLandlock && access == workspace.Write && slices.ContainsFunc(sb.Deny, hardLinked) {
		// process.Run would refuse it too: Landlock cannot hide the file
		// from a command that writes, and a write through this name
		// changes it wherever its other names are.
		return nil, nil, &tool.Error{
			Message: "the command was not run: the workspace holds a protected file with other names (a hard link, perhaps to a file outside the workspace), which the sandbox here (Landlock) cannot keep a command that writes from changing",
			Hint:    "run only commands that read, or ask the user to replace the hard links with copies (or to install bubblewrap)",
		}
	}
	if o := ts.opts.Sandbox; o != nil {
		sb.Limits = o.Limits
		sb.Read = append(sb.Read, o.Read...)
		if access == workspace.Write {
			sb.Write = append(sb.Write, o.Write...)
			sb.Network = o.Network
		} else {
			sb.Read = append(sb.Read, o.Write...)
		}
	}
	return sb, prep.Done, nil
}

// hardLinked reports whether the host path p is a regular file with more
// than one name.
func hardLinked(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular() && workspace.HardLinks(fi) > 1
}

// shellOutput renders a finished command for the model, with what the
// workspace did after it.
func shellOutput(res *process.Result, notes []string) string {
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
	for _, n := range notes {
		b.WriteString("Note: " + n + ".\n")
	}
	return b.String()
}
