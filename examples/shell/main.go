//go:build unix

// Shell shows tools that run programs. run_shell runs a shell command under
// a time limit the model chooses: when the command outlives it, the shell
// and every process it started (here, sleeps in the background, in a
// subshell and in a session of their own) are stopped, and the model is
// told the limit. The command sees PATH, HOME and the like, not the host's
// secrets. count_lines exposes an existing program, wc, as a tool: the
// model's validated arguments become its command line. Last, a command
// runs in a sandbox (Linux): it reads the directory it is given, and
// neither writes there nor sees the host's home.
//
//	go run ./examples/shell
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
)

// ShellArgs are the arguments of run_shell.
type ShellArgs struct {
	Command        string  `json:"command" jsonschema:"description=A POSIX shell command line"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"description=Stop the command after this many seconds (default 10),minimum=0.1,maximum=60"`
}

func runShell() tool.AnyTool {
	// The tool's own Timeout is above any limit the model may ask for:
	// the command's Timeout stops the program first, and the call ends
	// TimedOut with the limit named.
	return tool.New(tool.Definition{Name: "run_shell", Description: "Runs a shell command and returns its output.",
		Safety: tool.SafetyDestructive, Timeout: 2 * time.Minute},
		func(ctx context.Context, in ShellArgs) (string, error) {
			limit := 10 * time.Second
			if in.TimeoutSeconds > 0 {
				limit = time.Duration(in.TimeoutSeconds * float64(time.Second))
			}
			// Env is nil: the command gets process.MinimalEnv(), not the
			// host's API keys.
			res, err := process.Run(ctx, process.Command{Path: "sh", Args: []string{"-c", in.Command},
				Timeout: limit, KillGrace: 200 * time.Millisecond})
			if err != nil {
				return "", err // a timeout becomes a TimedOut result that names the limit
			}
			out := strings.TrimRight(res.Stdout, "\n")
			if res.ExitCode != 0 {
				out += fmt.Sprintf("\n(exit status %d) %s", res.ExitCode, res.Stderr)
			}
			return out, nil
		})
}

func countLines(dir string) tool.AnyTool {
	return process.NewCLI(process.CLI{
		Definition: tool.Definition{Name: "count_lines", Description: "Counts the lines of files.", Safety: tool.SafetyReadOnly,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"files":{"type":"array","items":{"type":"string"},"minItems":1}},
				"required":["files"],"additionalProperties":false}`)},
		Path: "wc", Args: []string{"-l"}, Dir: dir, Mode: process.ArgsAsFlags, Positional: []string{"files"},
	})
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	dir, err := os.MkdirTemp("", "shell-example")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for name, lines := range map[string]int{"a.txt": 3, "b.txt": 5} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("line\n", lines)), 0o644); err != nil {
			return err
		}
	}
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(runShell(), countLines(dir))
	call := func(name, args string) *tool.Result {
		return r.Call(ctx, struct{}{}, tool.Request{ID: "c", Name: name, Args: json.RawMessage(args)})
	}

	fmt.Fprintln(w, "== run_shell: a quick command")
	res := call("run_shell", `{"command":"echo hello from $0; exit 3"}`)
	fmt.Fprintf(w, "[%s] %s\n", res.Status, res.Text())

	fmt.Fprintln(w, "\n== run_shell: the host's secrets stay with the host")
	os.Setenv("EXAMPLE_API_KEY", "sk-example")
	defer os.Unsetenv("EXAMPLE_API_KEY")
	res = call("run_shell", `{"command":"echo \"API key: ${EXAMPLE_API_KEY:-not set}\""}`)
	fmt.Fprintf(w, "[%s] %s\n", res.Status, res.Text())

	fmt.Fprintln(w, "\n== run_shell: a command that outlives the one second it was given")
	start := time.Now()
	pidFile := filepath.Join(dir, "pids")
	script := fmt.Sprintf("sleep 60 & echo $! >> %[1]s; (sleep 60 & echo $! >> %[1]s; wait) & "+
		"(setsid sleep 60 & echo $! >> %[1]s) & sleep 60", pidFile)
	args, _ := json.Marshal(ShellArgs{Command: script, TimeoutSeconds: 1})
	res = call("run_shell", string(args))
	fmt.Fprintf(w, "[%s] after %.1fs: %s\n", res.Status, time.Since(start).Seconds(), res.Text())
	// The command wrote the PIDs of its background sleeps to a file before
	// it was stopped: check that none of them survived.
	pids, err := os.ReadFile(pidFile)
	if err != nil {
		return err
	}
	for _, f := range strings.Fields(string(pids)) {
		pid, _ := strconv.Atoi(f)
		fmt.Fprintf(w, "background sleep: %s\n", aliveOrGone(pid))
	}

	fmt.Fprintln(w, "\n== count_lines: wc as a tool")
	res = call("count_lines", `{"files":["a.txt","b.txt"]}`)
	fmt.Fprintf(w, "[%s]\n%s", res.Status, res.Text())
	res = call("count_lines", `{"files":["missing.txt"]}`)
	fmt.Fprintf(w, "[%s] %s\n", res.Status, res.Text())

	fmt.Fprintln(w, "\n== a command in a sandbox: the directory, read-only, and nothing of the host's")
	if sup := process.DetectSandbox(); sup.Mode == process.SandboxNone {
		fmt.Fprintf(w, "no sandbox on this machine: %v\n", sup.Err())
		return nil
	}
	out, err := process.Run(ctx, process.Command{Path: "sh", Dir: dir, Sandbox: &process.Sandbox{Read: []string{dir}},
		Args: []string{"-c", `wc -l < a.txt; echo x > new.txt 2>/dev/null || echo "cannot write here"
			ls "$HOME" >/dev/null 2>&1 || echo "cannot see the home directory"`}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "[%s sandbox]\n%s", out.Sandbox, out.Stdout)
	return nil
}

func aliveOrGone(pid int) string {
	// Signal 0 checks that the process exists. A zombie still exists until
	// its parent (here init, once it was orphaned) reaps it: give it time.
	for range 200 {
		if syscall.Kill(pid, 0) != nil {
			return "gone"
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "STILL RUNNING (pid " + strconv.Itoa(pid) + ")"
}
