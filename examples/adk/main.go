// Command adk runs an agent of Google's Agent Development Kit
// (google.golang.org/adk) whose tools are a Toolbelt registry, offline: the
// model is scripted (ADK's model.LLM interface), everything else is ADK's
// own: llmagent, the runner, the in-memory session service, and the tool
// confirmation its UIs show. The model lists the notes, reads one with
// arguments the schema refuses (and gets the retry hint), then deletes an
// old one: a destructive call, which ADK asks the user to confirm before
// it runs.
//
//	go run ./examples/adk        # the user confirms the deletion
//	go run ./examples/adk -deny  # the user rejects it, with a reason
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	adktool "google.golang.org/adk/tool"
	"google.golang.org/adk/tool/toolconfirmation"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	"github.com/toolbelt-go/tool/tooladk"
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

// scripted is a model.LLM that answers each request with the next content
// of its script: what a real model (model/gemini) would say here.
type scripted struct {
	mu     sync.Mutex
	script []*genai.Content
}

func (m *scripted) Name() string { return "scripted" }

func (m *scripted) GenerateContent(context.Context, *model.LLMRequest, bool) iter.Seq2[*model.LLMResponse, error] {
	m.mu.Lock()
	next := genai.NewContentFromText("(the script is over)", genai.RoleModel)
	if len(m.script) > 0 {
		next, m.script = m.script[0], m.script[1:]
	}
	m.mu.Unlock()
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(&model.LLMResponse{Content: next, TurnComplete: true}, nil)
	}
}

func calls(fcs ...*genai.FunctionCall) *genai.Content {
	c := &genai.Content{Role: genai.RoleModel}
	for _, fc := range fcs {
		c.Parts = append(c.Parts, &genai.Part{FunctionCall: fc})
	}
	return c
}

func call(id, name string, args map[string]any) *genai.FunctionCall {
	return &genai.FunctionCall{ID: id, Name: name, Args: args}
}

func main() {
	deny := flag.Bool("deny", false, "reject the deletion instead of confirming it")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, !*deny); err != nil {
		fmt.Fprintln(os.Stderr, "adk:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, confirm bool) error {
	n := &notes{texts: map[string]string{"2023-todo": "buy milk", "ideas": "a registry inside ADK"}}
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: tool.NewMemoryRecordStore(0)})
	reg.MustAdd(n.tools()...)
	// Who answers approvals is the host's choice: here, ADK's user, through
	// ADK's own tool confirmation.
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooladk.Approver()}))
	tools := tooladk.New(reg, nil)
	for _, w := range tools.Warnings() {
		if w.Severity >= dialect.Lossy { // a tool sent in a weaker form, or left out
			fmt.Fprintln(out, "warning:", w)
		}
	}

	m := &scripted{script: []*genai.Content{
		calls(call("c1", "list_notes", map[string]any{}), call("c2", "read_note", map[string]any{"name": ""})),
		calls(call("c3", "read_note", map[string]any{"name": "2023-todo"})),
		calls(call("c4", "delete_note", map[string]any{"name": "2023-todo"})),
		genai.NewContentFromText("That is all for your notes.", genai.RoleModel),
	}}
	a, err := llmagent.New(llmagent.Config{Name: "notes_agent", Description: "Keeps notes tidy.", Model: m,
		Instruction: "Tidy up the user's notes.", Toolsets: []adktool.Toolset{tools}})
	if err != nil {
		return err
	}
	sessions := session.InMemoryService()
	r, err := runner.New(runner.Config{AppName: "notes", Agent: a, SessionService: sessions})
	if err != nil {
		return err
	}
	s, err := sessions.Create(ctx, &session.CreateRequest{AppName: "notes", UserID: "ana"})
	if err != nil {
		return err
	}

	fmt.Fprintln(out, "user: tidy up my notes")
	asked, err := turn(ctx, out, r, s.Session.ID(), genai.NewContentFromText("Tidy up my notes.", genai.RoleUser))
	if err != nil {
		return err
	}
	if asked == nil {
		return fmt.Errorf("ADK asked nothing before the deletion")
	}
	// What ADK's web UI shows, and the user's answer: a FunctionResponse to
	// the adk_request_confirmation call.
	var tc toolconfirmation.ToolConfirmation
	b, _ := json.Marshal(asked.Args["toolConfirmation"])
	_ = json.Unmarshal(b, &tc)
	fmt.Fprintln(out, "\nADK asks the user:")
	for line := range strings.Lines(tc.Hint) {
		if line = strings.TrimRight(line, "\n"); line != "" {
			line = "  " + line
		}
		fmt.Fprintln(out, line)
	}
	answer := map[string]any{"confirmed": confirm}
	if confirm {
		fmt.Fprintln(out, "user: confirms")
	} else {
		answer["payload"] = map[string]any{tooladk.AnswerFieldReason: "keep it, I still need milk"}
		fmt.Fprintln(out, "user: rejects it (keep it, I still need milk)")
	}
	_, err = turn(ctx, out, r, s.Session.ID(), &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID: asked.ID, Name: toolconfirmation.FunctionCallName, Response: answer}}}})
	if err != nil {
		return err
	}
	n.mu.Lock()
	left := slices.Sorted(maps.Keys(n.texts))
	n.mu.Unlock()
	fmt.Fprintf(out, "\nnotes left: %s\n", strings.Join(left, ", "))
	return nil
}

// turn runs one turn and prints its events; it returns the confirmation
// ADK asks for, if any.
func turn(ctx context.Context, out io.Writer, r *runner.Runner, sessionID string, msg *genai.Content) (*genai.FunctionCall, error) {
	var asked *genai.FunctionCall
	for ev, err := range r.Run(ctx, "ana", sessionID, msg, agent.RunConfig{}) {
		if err != nil {
			return nil, err
		}
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			switch {
			case p.FunctionCall != nil && p.FunctionCall.Name == toolconfirmation.FunctionCallName:
				asked = p.FunctionCall
			case p.FunctionCall != nil:
				args, _ := json.Marshal(p.FunctionCall.Args)
				fmt.Fprintf(out, "\nmodel calls %s %s\n", p.FunctionCall.Name, args)
			case p.FunctionResponse != nil:
				fmt.Fprintf(out, "  %s answers: %s\n", p.FunctionResponse.Name, indent(p.FunctionResponse.Response))
			case p.Text != "":
				fmt.Fprintf(out, "\nmodel: %s\n", p.Text)
			}
		}
	}
	return asked, nil
}

func indent(resp map[string]any) string {
	for _, k := range []string{"output", "error"} {
		if v, ok := resp[k]; ok {
			s, isText := v.(string)
			if !isText {
				b, _ := json.Marshal(v)
				s = string(b)
			}
			return k + ": " + strings.ReplaceAll(s, "\n", "\n    ")
		}
	}
	b, _ := json.Marshal(resp)
	return string(b)
}
