package promises

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolbelt-go/tool"
)

// world is one host as it builds its registry: two replicas sharing a
// store set and a keyring (a resumed call may land on either), one shell
// tool that records what it ran, the approver the host chose, and the
// person behind it.
type world struct {
	t        *testing.T
	a, b     *tool.Registry[struct{}]
	session  string
	person   *person
	mu       sync.Mutex
	commands []string
	// elsewhere counts the questions a frontend's own mechanism (an MCP
	// client's elicitation or input request) was asked.
	elsewhere atomic.Int32
	// clientChosen says the host chose the MCP client as its approver.
	clientChosen bool
	// einoChosen says the host chose Eino's interrupt as its approver.
	einoChosen bool
	// adkChosen says the host chose ADK's tool confirmation as its
	// approver.
	adkChosen bool
	// resend says whatever relays the person's answers (the host's code,
	// a task's frontend, the page's form) sends each again, late.
	resend bool
	// moved says the workspace changed while the person read: every write
	// now goes through a link that leads outside it, and is asked about
	// every time.
	moved atomic.Bool
	store *storeSet
	// dir is the workspace run_shell runs in, "" for the stand-in shell.
	dir string
}

var sessions atomic.Int64

func newWorld(t *testing.T, s *storeSet, sb sandboxKind, ap approverKind, fe frontend, a answer) *world {
	t.Helper()
	w := &world{t: t, session: fmt.Sprintf("conv-%d", sessions.Add(1)), person: &person{first: a}, clientChosen: ap.viaClient,
		einoChosen: ap.viaEino, adkChosen: ap.viaADK}
	if sb.real() {
		w.dir = newWorkspace(t)
	}
	approver := ap.approver(t, w, s)
	build := func() *tool.Registry[struct{}] {
		reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: s.keys, Records: s.records})
		approval := tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.DenyDestructivePolicy(), Approver: approver, Store: s.approvals})
		if sb.real() {
			reg.MustAdd(sb.runShell(t, w.dir))
			reg.Use(approval, w.recorder())
		} else {
			reg.MustAdd(w.shell())
			reg.Use(approval)
		}
		return reg
	}
	w.a, w.b = build(), build()
	w.store = s
	return w
}

type shellArgs struct {
	Command string `json:"command" jsonschema:"minLength=1"`
}

// shell is the one tool: it runs nothing, and records the command it was
// handed. ls and cat read; rm deletes (and is asked about every time);
// anything else writes, and chmod is asked about every time.
func (w *world) shell() tool.AnyTool {
	return tool.WithApprovalHooks(tool.New(tool.Definition{Name: "shell", Description: "Runs a command.", Safety: tool.SafetyMutating, Task: tool.TaskMay},
		func(_ context.Context, in shellArgs) (string, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.commands = append(w.commands, in.Command)
			return "ran " + in.Command, nil
		}), tool.ApprovalHooks[shellArgs]{
		Classify: classify,
		Require: func(in shellArgs) tool.Requirement {
			switch {
			case classify(in) == tool.SafetyDestructive:
				return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "deletes files"}
			case strings.HasPrefix(in.Command, "chmod "):
				return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "changes who may use files"}
			case w.moved.Load() && classify(in) == tool.SafetyMutating:
				return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "writes through a link that leads outside the workspace"}
			}
			return tool.Requirement{}
		},
	})
}

func classify(in shellArgs) tool.Safety {
	switch first, _, _ := strings.Cut(in.Command, " "); first {
	case "ls", "cat":
		return tool.SafetyReadOnly
	case "rm":
		return tool.SafetyDestructive
	}
	return tool.SafetyMutating
}

// ran is what the tool ran, in order.
func (w *world) ran() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.commands...)
}

// answer is what a person answers: a decision, with an edit's command.
type answer struct {
	kind    tool.DecisionKind
	reason  string
	command string // for an edit
}

func allow() answer             { return answer{kind: tool.DecisionAllowOnce} }
func deny(reason string) answer { return answer{kind: tool.DecisionDeny, reason: reason} }
func edit(command string) answer {
	return answer{kind: tool.DecisionEdit, command: command}
}

func (a answer) decision() tool.Decision {
	d := tool.Decision{Kind: a.kind, Reason: a.reason}
	if a.kind == tool.DecisionEdit {
		d.Args = json.RawMessage(fmt.Sprintf(`{"command":%q}`, a.command))
	}
	return d
}

// person answers approvals as the scenario says: the first question with
// its answer, any later one (their own edit, shown again with its class)
// with then, or "allow once". It keeps what it was shown.
type person struct {
	mu    sync.Mutex
	first answer
	then  *answer
	// meanwhile, if set, happens while the person reads the first
	// question.
	meanwhile func()
	seen      []string
}

// answer records the command shown, in shown (the arguments, or a text
// that holds them), and returns the answer to it.
func (p *person) answer(shown string) answer {
	var in shellArgs
	if i := strings.Index(shown, `{"command":`); i >= 0 {
		_ = json.NewDecoder(strings.NewReader(shown[i:])).Decode(&in)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, in.Command)
	switch {
	case len(p.seen) == 1:
		if p.meanwhile != nil {
			p.meanwhile()
		}
		return p.first
	case p.then != nil:
		return *p.then
	}
	return allow()
}

// asked is how many questions the person was asked.
func (p *person) asked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.seen)
}

// shown reports whether the person was shown command, or typed it.
func (p *person) shown(command string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.seen {
		if s == command {
			return true
		}
	}
	return p.first.kind == tool.DecisionEdit && p.first.command == command
}

func ptr(a answer) *answer { return &a }
