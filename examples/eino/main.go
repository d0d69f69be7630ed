// Command eino runs an agent of CloudWeGo Eino (github.com/cloudwego/eino)
// whose tools are a Toolbelt registry, offline: the model is scripted
// (Eino's model.ToolCallingChatModel interface), everything else is Eino's
// own: the adk ChatModelAgent, the Runner, its checkpoints, and the
// interrupt and resume its UIs show. The model lists the notes, reads one
// with arguments the schema refuses (and gets the retry hint), then deletes
// an old one: a destructive call, which interrupts the run with the
// question; the run is resumed from its checkpoint with the user's answer.
//
//	go run ./examples/eino        # the user allows the deletion
//	go run ./examples/eino -deny  # the user denies it, with a reason
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	"github.com/toolbelt-go/tool/tooleino"
)

// NoteArgs are the arguments of read_note and delete_note.
type NoteArgs struct {
	Name string `json:"name" jsonschema:"description=The note's name,minLength=1"`
}

// notes is what the tools act on.
type notes struct {
	mu    sync.Mutex
	texts map[string]string
}

func (n *notes) tools() []tool.Definer {
	list := tool.New(tool.Definition{Name: "list_notes", Description: "Lists the notes.", Safety: tool.SafetyReadOnly},
		func(context.Context, struct{}) ([]string, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			return slices.Sorted(maps.Keys(n.texts)), nil
		})
	read := tool.New(tool.Definition{Name: "read_note", Description: "Reads a note.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in NoteArgs) (string, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			text, ok := n.texts[in.Name]
			if !ok {
				return "", tool.Errorf("there is no note named %q", in.Name)
			}
			return text, nil
		})
	del := tool.New(tool.Definition{Name: "delete_note", Description: "Deletes a note for good.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in NoteArgs) (string, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			delete(n.texts, in.Name)
			return "deleted " + in.Name, nil
		})
	return []tool.Definer{list, read, del}
}

// scripted is an Eino chat model that answers each request with the next
// message of its script: what a real model (eino-ext's OpenAI, Claude,
// Gemini, Ollama…) would say here.
type scripted struct {
	mu     sync.Mutex
	script []*schema.Message
}

func (m *scripted) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.script) == 0 {
		return schema.AssistantMessage("(the script is over)", nil), nil
	}
	next := m.script[0]
	m.script = m.script[1:]
	return next, nil
}

func (m *scripted) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// WithTools returns the model itself: the script does not depend on the
// tools it is shown.
func (m *scripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

func calls(cs ...schema.ToolCall) *schema.Message { return schema.AssistantMessage("", cs) }

func call(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

// store keeps the run's checkpoints: a host keeps them where any of its
// processes can resume the run (a database, Redis).
type store struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *store) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *store) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}

func main() {
	deny := flag.Bool("deny", false, "deny the deletion instead of allowing it")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, !*deny); err != nil {
		fmt.Fprintln(os.Stderr, "eino:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, allow bool) error {
	n := &notes{texts: map[string]string{"2023-todo": "buy milk", "ideas": "a registry inside Eino"}}
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: tool.NewMemoryRecordStore(0)})
	reg.MustAdd(n.tools()...)
	// Who answers approvals is the host's choice: here, the user behind
	// Eino's interrupt and resume.
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooleino.Approver()}))
	adapter := tooleino.New(reg, &tooleino.Options[struct{}]{Target: dialect.OpenAI})
	for _, w := range adapter.Warnings() {
		if w.Severity >= dialect.Lossy { // a tool sent in a weaker form, or left out
			fmt.Fprintln(out, "warning:", w)
		}
	}
	tools, err := adapter.Tools()
	if err != nil {
		return err
	}

	m := &scripted{script: []*schema.Message{
		calls(call("c1", "list_notes", `{}`), call("c2", "read_note", `{"name":""}`)),
		calls(call("c3", "read_note", `{"name":"2023-todo"}`)),
		calls(call("c4", "delete_note", `{"name":"2023-todo"}`)),
		schema.AssistantMessage("That is all for your notes.", nil),
	}}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "notes_agent", Description: "Keeps notes tidy.", Instruction: "Tidy up the user's notes.", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools, UnknownToolsHandler: adapter.UnknownTool,
			ExecuteSequentially: true}}, // the calls of one reply one after the other, for a printout in order
	})
	if err != nil {
		return err
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &store{m: map[string][]byte{}}})

	// The conversation: its checkpoint, and the session of its calls.
	const conversation = "notes-1"
	ctx = tooleino.WithSession(ctx, conversation)
	fmt.Fprintln(out, "user: tidy up my notes")
	asked, err := show(out, runner.Query(ctx, "Tidy up my notes.", adk.WithCheckPointID(conversation)))
	if err != nil {
		return err
	}
	if len(asked) != 1 {
		return fmt.Errorf("the run was interrupted with %d questions, want the deletion's", len(asked))
	}

	// What Eino's UI shows (the interrupt's Info), and the user's answer: the
	// resume data of the question's interrupt.
	q := asked[0].Question
	fmt.Fprintf(out, "\nEino asks the user: allow %s to run %s? It is %s.\n", q.Request.DisplayName, q.Request.ArgsText, q.Request.Safety)
	answer := tool.Decision{Kind: tool.DecisionAllowOnce}
	if allow {
		fmt.Fprintln(out, "user: allows it")
	} else {
		answer = tool.Decision{Kind: tool.DecisionDeny, Reason: "keep it, I still need milk"}
		fmt.Fprintln(out, "user: denies it (keep it, I still need milk)")
	}
	events, err := runner.ResumeWithParams(ctx, conversation, &adk.ResumeParams{Targets: map[string]any{asked[0].ID: answer}})
	if err != nil {
		return err
	}
	if _, err := show(out, events); err != nil {
		return err
	}
	n.mu.Lock()
	left := slices.Sorted(maps.Keys(n.texts))
	n.mu.Unlock()
	fmt.Fprintf(out, "\nnotes left: %s\n", strings.Join(left, ", "))
	return nil
}

// show prints a run's events; it returns the approval questions the run
// was interrupted with, if any.
func show(out io.Writer, events *adk.AsyncIterator[*adk.AgentEvent]) ([]tooleino.Asked, error) {
	var asked []tooleino.Asked
	for {
		ev, ok := events.Next()
		if !ok {
			return asked, nil
		}
		if ev.Err != nil {
			return nil, ev.Err
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			asked = tooleino.Questions(ev.Action.Interrupted.InterruptContexts)
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil {
			return nil, err
		}
		if msg == nil {
			return nil, errors.New("an event without its message")
		}
		for _, c := range msg.ToolCalls {
			fmt.Fprintf(out, "\nmodel calls %s %s\n", c.Function.Name, c.Function.Arguments)
		}
		switch {
		case msg.Role == schema.Tool:
			fmt.Fprintf(out, "  %s answers: %s\n", msg.ToolName, strings.ReplaceAll(msg.Content, "\n", "\n    "))
		case msg.Content != "":
			fmt.Fprintf(out, "\nmodel: %s\n", msg.Content)
		}
	}
}
