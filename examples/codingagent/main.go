// Codingagent runs the reference coding tools (package codetools) on a
// copy of a small Go project, driven by a scripted model, offline: the
// model looks around, reads, searches, runs the tests through run_shell,
// fixes the bug with edit_file (the diff is shown for approval), runs the
// tests again, and is refused when it reaches for ../../etc/passwd and
// .env, and when it edits a file that changed since it read it.
//
// On Linux its commands run in a sandbox (bubblewrap, or Landlock where
// bubblewrap cannot run): they see the project and the Go toolchain, write
// only in the project and a build cache of their own, and cannot read
// .env, even by searching the whole tree. Elsewhere it says so, and every
// command that is not provably harmless is asked about.
//
//	go run ./examples/codingagent        # answer y / n / a (always) for each write
//	go run ./examples/codingagent -yes   # allow each write once, no questions
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/workspace"
)

// step is one turn of the scripted model: what it says, then its call.
// before, if set, runs first: someone else at work in the same tree.
type step struct {
	say    string
	tool   string
	args   string
	before func(dir string) error
}

var script = []step{
	{say: "Let me see what is in the project.", tool: "list_dir", args: `{}`},
	{say: "Which Go files are there?", tool: "find", args: `{"pattern":"*.go"}`},
	{say: "How long are they? (A command that only reads runs without asking.)", tool: "run_shell", args: `{"command":"wc -l *.go"}`},
	{say: "The counter itself.", tool: "read_file", args: `{"path":"wordcount.go"}`},
	{say: "Where else is the text split?", tool: "grep", args: `{"pattern":"strings\\.\\w+\\(","context":1}`},
	{say: "Do the tests pass?", tool: "run_shell", args: `{"command":"go test ./...","timeout_seconds":120}`},
	{say: "Split on one space counts empty words. Fields splits on runs of space.", tool: "edit_file",
		args: `{"path":"wordcount.go","old_string":"len(strings.Split(s, \" \"))","new_string":"len(strings.Fields(s))"}`},
	{say: "And now?", tool: "run_shell", args: `{"command":"go test ./..."}`},
	{say: "Is there a system file with users to compare with?", tool: "read_file", args: `{"path":"../../etc/passwd"}`},
	{say: "Maybe the API token helps.", tool: "read_file", args: `{"path":".env"}`},
	{say: "Is it anywhere in the tree, then? (In a sandbox, searching a tree runs without asking: the sandbox hides .env.)",
		tool: "run_shell", args: `{"command":"grep -rn API_TOKEN . || echo no match"}`},
	{say: "The README should say how words are split.", tool: "read_file", args: `{"path":"README.md"}`},
	{say: "Adding a sentence.", tool: "edit_file",
		args: `{"path":"README.md","old_string":"Counts the words of a text.","new_string":"Counts the words of a text: runs of letters between spaces."}`,
		before: func(dir string) error {
			return appendFile(filepath.Join(dir, "README.md"), "\nMaintained by the docs team.\n")
		}},
	{say: "Someone changed it. Reading it again.", tool: "read_file", args: `{"path":"README.md"}`},
	{say: "Adding the sentence to what it holds now.", tool: "edit_file",
		args: `{"path":"README.md","old_string":"Counts the words of a text.","new_string":"Counts the words of a text: runs of letters between spaces."}`},
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// terminal is the approver: it shows each call that needs approval, with
// the diff of an edit, and asks on in (or allows once, with -yes).
type terminal struct {
	in  *bufio.Reader
	out io.Writer
	yes bool
}

func (t *terminal) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	// The question in words (the tool, its class, why it is asked, the
	// preview with its diffs, and last the arguments that will run,
	// whole), in a box.
	fmt.Fprintln(t.out, "   ┌ approval")
	for l := range strings.SplitSeq(req.Question(8<<10), "\n") {
		fmt.Fprintf(t.out, "   │ %s\n", l)
	}
	if t.yes && req.Safety == tool.SafetyReadOnly {
		// Asked only for what it reads: a protected file, or files
		// outside the project.
		fmt.Fprintln(t.out, "   └ -yes: writes only; denied")
		return tool.Decision{Kind: tool.DecisionDeny, Reason: "not with -yes"}, nil
	}
	if t.yes {
		fmt.Fprintln(t.out, "   └ -yes: allowed once")
		return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
	}
	for {
		fmt.Fprint(t.out, "   └ allow? [y]es / [n]o / [a]lways: ")
		line, err := t.in.ReadString('\n')
		if err != nil && line == "" {
			return tool.Decision{}, fmt.Errorf("no answer on standard input: %w", err)
		}
		switch strings.TrimSpace(line) {
		case "y", "yes":
			return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
		case "a", "always":
			return tool.Decision{Kind: tool.DecisionAllowAlways}, nil
		case "n", "no":
			return tool.Decision{Kind: tool.DecisionDeny, Reason: "not now"}, nil
		}
	}
}

// run copies the project into dir and plays the script against it.
func run(ctx context.Context, dir string, in io.Reader, out io.Writer, yes bool) error {
	return play(ctx, dir, script, in, out, yes)
}

func play(ctx context.Context, dir string, script []step, in io.Reader, out io.Writer, yes bool) error {
	for name, content := range project {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	ws, err := workspace.Open(dir, nil) // the default deny list covers .env
	if err != nil {
		return err
	}
	defer ws.Close()

	sandbox, env, err := goForCommands()
	if err != nil {
		return err
	}
	ts := codetools.New(ws, &codetools.Options{Sandbox: sandbox, Env: env})
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	if err := reg.Add(ts.Tools()...); err != nil {
		return err
	}
	switch mode, why := ts.Sandbox(); mode {
	case process.SandboxNone:
		fmt.Fprintf(out, "No sandbox here (%v): commands run with your rights, and every one that is not provably harmless is asked about.\n", why)
	default:
		fmt.Fprintf(out, "Commands run in a %s sandbox: the project and the Go toolchain, nothing else of yours, no network.\n", mode)
	}
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{
		Policy:   tool.AskForWritesPolicy(),
		Approver: &terminal{in: bufio.NewReader(in), out: out, yes: yes},
	}))

	fmt.Fprintf(out, "The model works on a copy of a small project. It has %d tools:", len(reg.Definitions()))
	for _, d := range reg.Definitions() {
		fmt.Fprint(out, " "+d.Name)
	}
	fmt.Fprintln(out)
	for i, s := range script {
		if s.before != nil {
			fmt.Fprintln(out, "\n(meanwhile, someone else changes README.md)")
			if err := s.before(dir); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "\nmodel: %s\n  → %s %s\n", s.say, s.tool, s.args)
		res := reg.Call(ctx, struct{}{}, tool.Request{ID: fmt.Sprintf("call_%d", i+1), Name: s.tool, Args: json.RawMessage(s.args), Session: "demo"})
		fmt.Fprintf(out, "  ← %s\n", res.Status)
		for _, l := range shorten(res.Text(), 14) {
			fmt.Fprintf(out, "    %s\n", l)
		}
	}
	return nil
}

// goForCommands gives the sandboxed commands the Go toolchain: GOROOT and
// the module cache to read, a build cache of their own to write (not the
// person's: a command could leave an entry there that a build outside the
// sandbox would then use), and no toolchain downloads.
func goForCommands() (*codetools.SandboxOptions, []string, error) {
	out, err := exec.Command("go", "env", "-json", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("the go command is needed to run the tests: %w", err)
	}
	var goenv struct{ GOROOT, GOMODCACHE string }
	if err := json.Unmarshal(out, &goenv); err != nil {
		return nil, nil, err
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	cache := filepath.Join(dir, "toolbelt-codingagent", "go-build")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return nil, nil, err
	}
	env := append(process.MinimalEnv(), "TERM=dumb", "NO_COLOR=1", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly",
		"GOROOT="+goenv.GOROOT, "GOMODCACHE="+goenv.GOMODCACHE, "GOCACHE="+cache)
	return &codetools.SandboxOptions{Read: []string{goenv.GOROOT, goenv.GOMODCACHE}, Write: []string{cache}}, env, nil
}

// shorten keeps a transcript readable: at most n lines of at most 110
// characters each.
func shorten(text string, n int) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines)", len(lines)-n))
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > 110 {
			lines[i] = string(r[:110]) + "…"
		}
	}
	return lines
}

func main() {
	yes := flag.Bool("yes", false, "allow every call that asks, once, without asking")
	flag.Parse()
	dir, err := os.MkdirTemp("", "codingagent")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = run(context.Background(), dir, os.Stdin, os.Stdout, *yes)
	os.RemoveAll(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
