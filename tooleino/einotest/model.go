// Package einotest runs an Eino agent offline, to test tools through it as
// net/http/httptest does for HTTP handlers: a [Model] is a chat model
// (Eino's model.ToolCallingChatModel) that answers each request with the
// next turn the test scripts (tool calls, or an answer), refuses what a
// provider's API refuses (a tool call left unanswered, an answer for a call
// never made), and records every request; [Run] drives one turn of a
// ChatModelAgent under Eino's Runner, answering the approval questions it
// is interrupted with and resuming it.
//
//	m := einotest.NewModel(
//		einotest.Calls(einotest.Call{ID: "call-1", Name: "weather", Arguments: `{"city":"Lisbon"}`}),
//		einotest.Text("It is sunny in Lisbon."),
//	)
//	// give m to adk.ChatModelAgentConfig.Model, run; then look at m.Requests()
package einotest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Call is one tool call the model makes.
type Call struct {
	ID, Name, Arguments string
}

// Turn is one reply of the model: tool calls, text, or a reply made from
// the request ([Func]).
type Turn struct {
	msg *schema.Message
	f   func(Request) Turn
}

// Calls is a reply that makes calls, at once (one assistant message).
func Calls(calls ...Call) Turn {
	tcs := make([]schema.ToolCall, len(calls))
	for i, c := range calls {
		tcs[i] = schema.ToolCall{ID: c.ID, Type: "function", Function: schema.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
	}
	return Turn{msg: schema.AssistantMessage("", tcs)}
}

// Text is a reply that answers in text, and so ends the agent's turn.
func Text(s string) Turn { return Turn{msg: schema.AssistantMessage(s, nil)} }

// Func is a reply made from the request it answers: to call read_output
// with the cursor a result gave, say.
func Func(f func(Request) Turn) Turn { return Turn{f: f} }

// Request is one request the model answered (or refused).
type Request struct {
	// Messages are the messages it was given, in order.
	Messages []*schema.Message
	// Tools are the tools it was given (what Eino binds with WithTools).
	Tools []*schema.ToolInfo
	// Outputs are the tool results it carries: the tool messages after
	// the last assistant message, in order.
	Outputs []Output
	// Refused is why the model refused it, if it did.
	Refused string
}

// Output is one tool result, as the model reads it.
type Output struct {
	CallID, Name, Text string
}

// Model is a scripted chat model. The copies WithTools makes share its
// script and its record, so that the agent's bound model and the test's
// are one. It is safe for concurrent use.
type Model struct {
	tools []*schema.ToolInfo
	s     *script
}

type script struct {
	mu    sync.Mutex
	turns []Turn
	next  int
	reqs  []Request
}

// NewModel returns a model that answers its requests with turns, in
// order; past the last it refuses.
func NewModel(turns ...Turn) *Model {
	return &Model{s: &script{turns: turns}}
}

// Requests returns every request the model answered or refused, in order.
func (m *Model) Requests() []Request {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	return slices.Clone(m.s.reqs)
}

// Outputs returns every tool result the model was given, over all its
// requests, in order.
func (m *Model) Outputs() []Output {
	var outs []Output
	for _, r := range m.Requests() {
		outs = append(outs, r.Outputs...)
	}
	return outs
}

// Generate answers with the next turn of the script.
func (m *Model) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	req := Request{Messages: slices.Clone(input), Tools: m.tools, Outputs: outputs(input)}
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	msg, err := m.reply(req)
	if err != nil {
		req.Refused = err.Error()
	}
	m.s.reqs = append(m.s.reqs, req)
	return msg, err
}

func (m *Model) reply(req Request) (*schema.Message, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	if m.s.next >= len(m.s.turns) {
		return nil, errors.New("einotest: the model's script has no more turns")
	}
	t := m.s.turns[m.s.next]
	m.s.next++
	for t.f != nil {
		t = t.f(req)
	}
	if t.msg == nil {
		return nil, errors.New("einotest: a scripted turn has no reply")
	}
	msg := *t.msg
	return &msg, nil
}

// Stream answers with the next turn of the script, in one chunk.
func (m *Model) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// WithTools returns a copy of the model that is given tools.
func (m *Model) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &Model{tools: slices.Clone(tools), s: m.s}, nil
}

// outputs are the tool messages after the last assistant message.
func outputs(input []*schema.Message) []Output {
	var outs []Output
	for i := len(input) - 1; i >= 0 && input[i].Role != schema.Assistant; i-- {
		if m := input[i]; m.Role == schema.Tool {
			outs = append(outs, Output{CallID: m.ToolCallID, Name: m.ToolName, Text: m.Content})
		}
	}
	slices.Reverse(outs)
	return outs
}

// check refuses what a provider refuses: a call of an assistant message
// answered by no tool message, or answered twice, and a tool message that
// answers no call.
func check(req Request) error {
	open := map[string]bool{}
	for _, m := range req.Messages {
		switch m.Role {
		case schema.Assistant:
			for id := range open {
				return fmt.Errorf("einotest: the tool call %q was not answered", id)
			}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		case schema.Tool:
			if !open[m.ToolCallID] {
				return fmt.Errorf("einotest: a tool message answers %q, which is no call waiting for its result", m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		default:
			for id := range open {
				return fmt.Errorf("einotest: the tool call %q was not answered", id)
			}
		}
	}
	for id := range open {
		return fmt.Errorf("einotest: the tool call %q was not answered", id)
	}
	return nil
}
