// Approval shows human-in-the-loop approval in a terminal. A scripted
// "model" edits a file, lists a directory and runs a destructive command;
// before each call that needs it, the program shows the question
// (tool.ApprovalRequest.Question: a preview, a diff for the edit, and the
// arguments that will run) and asks y / n / always / edit on standard
// input.
//
//	go run ./examples/approval        # answer the questions
//	go run ./examples/approval -yes   # allow everything once, no questions
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolbelt-go/tool"
)

// EditArgs are the arguments of edit_file.
type EditArgs struct {
	Path    string `json:"path" jsonschema:"description=File to change"`
	Content string `json:"content" jsonschema:"description=The new content of the whole file"`
}

// ShellArgs are the arguments of shell.
type ShellArgs struct {
	Command string `json:"command" jsonschema:"description=Command line to run,minLength=1"`
}

// project is the workspace the tools act on.
type project struct{ files map[string]string }

func (p *project) tools() []tool.Definer {
	edit := tool.New(tool.Definition{Name: "edit_file", Title: "Edit a file", Description: "Replaces the content of a file.", Safety: tool.SafetyMutating},
		func(_ context.Context, in EditArgs) (string, error) {
			p.files[in.Path] = in.Content
			return "wrote " + in.Path, nil
		})
	edit = tool.WithApprovalHooks(edit, tool.ApprovalHooks[EditArgs]{
		Describe: func(_ context.Context, in EditArgs) (tool.Preview, error) {
			return tool.Preview{Title: "Edit " + in.Path, Edits: []tool.Edit{{Path: in.Path, Old: p.files[in.Path], New: in.Content}}}, nil
		},
	})
	shell := tool.New(tool.Definition{Name: "shell", Description: "Runs a command in the workspace (simulated here).", Safety: tool.SafetyMutating},
		func(_ context.Context, in ShellArgs) (string, error) {
			return "(simulated) ran: " + in.Command, nil
		})
	shell = tool.WithApprovalHooks(shell, tool.ApprovalHooks[ShellArgs]{
		Classify: func(in ShellArgs) tool.Safety {
			switch strings.Fields(in.Command)[0] {
			case "ls", "cat":
				return tool.SafetyReadOnly
			case "rm":
				return tool.SafetyDestructive
			}
			return tool.SafetyUnspecified
		},
		Require: func(in ShellArgs) tool.Requirement {
			if strings.HasPrefix(in.Command, "rm ") {
				return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "deletes files; asked every time"}
			}
			return tool.Requirement{}
		},
		Describe: func(_ context.Context, in ShellArgs) (tool.Preview, error) {
			return tool.Preview{Title: "Run a command", Summary: "$ " + in.Command}, nil
		},
	})
	return []tool.Definer{edit, shell}
}

// script is what the model "says".
var script = []tool.Request{
	{ID: "call_1", Name: "edit_file", Args: []byte(`{"path":"main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hello, world\")\n}\n"}`)},
	{ID: "call_2", Name: "shell", Args: []byte(`{"command":"ls -la"}`)}, // read-only: runs without asking
	{ID: "call_3", Name: "shell", Args: []byte(`{"command":"rm -rf build"}`)},
	{ID: "call_4", Name: "edit_file", Args: []byte(`{"path":"README.md","content":"# demo\n"}`)},
}

// terminal asks on in and writes to out.
type terminal struct {
	in  *bufio.Reader
	out io.Writer
	yes bool
}

func (t *terminal) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	// The question in words: the tool, its class, why it is asked, the
	// tool's preview (a diff for the edit), and last the arguments that
	// will run, whole.
	fmt.Fprintf(t.out, "\n== %s\n%s\n", req.CallID, req.Question(8<<10))
	if t.yes {
		fmt.Fprintln(t.out, "   -yes: allowed once")
		return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
	}
	choices := "[y]es / [n]o / [a]lways / [e]dit"
	if req.Requirement.Mode == tool.RequireAskAlways {
		choices = "[y]es / [n]o / [e]dit" // "always" is never remembered for these
	}
	for {
		fmt.Fprintf(t.out, "   allow? %s: ", choices)
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
			fmt.Fprint(t.out, "   reason for the model (optional): ")
			reason, _ := t.in.ReadString('\n')
			return tool.Decision{Kind: tool.DecisionDeny, Reason: strings.TrimSpace(reason)}, nil
		case "e", "edit":
			fmt.Fprintf(t.out, "   current arguments: %s\n   new arguments (JSON, one line): ", req.Args)
			args, _ := t.in.ReadString('\n')
			return tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(strings.TrimSpace(args))}, nil
		}
	}
}

func run(ctx context.Context, in io.Reader, out io.Writer, yes bool) error {
	p := &project{files: map[string]string{"main.go": "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}}
	r := tool.NewRegistry[struct{}](nil)
	if err := r.Add(p.tools()...); err != nil {
		return err
	}
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{
		Policy:   tool.AskForWritesPolicy(),
		Approver: &terminal{in: bufio.NewReader(in), out: out, yes: yes},
	}))
	for _, req := range script {
		res := r.Call(ctx, struct{}{}, req)
		fmt.Fprintf(out, "-> %s %s [%s]: %s\n", req.ID, req.Name, res.Status, res.Text())
	}
	return nil
}

func main() {
	yes := flag.Bool("yes", false, "allow every call once without asking")
	flag.Parse()
	if err := run(context.Background(), os.Stdin, os.Stdout, *yes); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
