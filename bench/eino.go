package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooleino"
)

// openEino calls InvokableRun of a tool made by utils.InferTool: the
// arguments string decoded into the struct with sonic, the function, the
// result encoded with sonic. InferTool reads the same struct tags as
// Toolbelt for the schema it shows the model, but never validates arguments
// against it: a wrong type fails the decode, nothing else is checked.
func openEino() (func([]byte) call, func(), error) {
	t, err := utils.InferTool(toolName, toolDesc, search)
	if err != nil {
		return nil, nil, err
	}
	prepare := func(args []byte) call {
		s := string(args) // eino takes the model's arguments as a string
		return func(ctx context.Context, text *string) (bool, error) {
			out, err := t.InvokableRun(ctx, s)
			if text != nil {
				*text = out
				if err != nil {
					*text = err.Error()
				}
			}
			return err != nil, nil
		}
	}
	return prepare, func() {}, nil
}

// openTooleino calls InvokableRun of the registry's search tool as
// tooleino gives it to Eino: the arguments string handed to Registry.Call
// (preflight, the schema, the pipeline), the result's text returned. A
// refused call answers with the retry hint and no error, as tooleino does
// so that Eino's run goes on: whether the function ran says which it was.
func openTooleino() (func([]byte) call, func(), error) {
	t, err := tooleinoSearch()
	if err != nil {
		return nil, nil, err
	}
	prepare := func(args []byte) call {
		s := string(args)
		return func(ctx context.Context, text *string) (bool, error) {
			var ran bool
			out, err := t.InvokableRun(context.WithValue(ctx, ranKey{}, &ran), s)
			if err != nil {
				return false, err
			}
			if text != nil {
				*text = out
			}
			return !ran, nil
		}
	}
	return prepare, func() {}, nil
}

// tooleinoSearch is the registry's search tool, given to Eino by tooleino.
func tooleinoSearch() (einotool.InvokableTool, error) {
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(tool.New(tool.Definition{Name: toolName, Description: toolDesc}, searchRan)); err != nil {
		return nil, err
	}
	ts, err := tooleino.New(reg, nil).Tools()
	if err != nil {
		return nil, err
	}
	t, ok := ts[0].(einotool.InvokableTool)
	if len(ts) != 1 || !ok {
		return nil, fmt.Errorf("tooleino: %d tools, the first a %T", len(ts), ts[0])
	}
	return t, nil
}

// ranKey keys the flag that searchRan sets: the function ran.
type ranKey struct{}

// searchRan is search, telling the caller it ran.
func searchRan(ctx context.Context, in searchArgs) (searchOut, error) {
	if ran, ok := ctx.Value(ranKey{}).(*bool); ok {
		*ran = true
	}
	return search(ctx, in)
}

// errRunEnded is a call that ended the agent's run with an error: the
// model is never answered (the EndsRun outcome).
var errRunEnded = errors.New("the tool's error ended the agent's run")

// openEinoFlow runs one turn of an Eino agent per call, through Eino's own
// Runner: an adk ChatModelAgent whose model (scripted, offline) answers the
// user's message with the tool call, the ReAct graph runs the tool in its
// ToolsNode and gives the result back to the model, which ends the turn.
// With toolbelt the tool is the registry's search tool through tooleino;
// without, Eino's InferTool over the same function. A tool error (InferTool's
// decode failure) ends the run, as Eino does.
func openEinoFlow(toolbelt bool) func() (func([]byte) call, func(), error) {
	return func() (func([]byte) call, func(), error) {
		var (
			t   einotool.InvokableTool
			err error
		)
		if toolbelt {
			t, err = tooleinoSearch()
		} else {
			t, err = utils.InferTool(toolName, toolDesc, searchRan)
		}
		if err != nil {
			return nil, nil, err
		}
		ctx := context.Background()
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "bench", Description: "the search tool's agent", Model: einoScripted{},
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []einotool.BaseTool{t}}},
		})
		if err != nil {
			return nil, nil, err
		}
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
		input := []adk.Message{schema.UserMessage("search")}
		prepare := func(args []byte) call {
			s := string(args)
			return func(ctx context.Context, text *string) (bool, error) {
				var ran bool
				ctx = context.WithValue(context.WithValue(ctx, argsKey{}, s), ranKey{}, &ran)
				var out *string
				events := runner.Run(ctx, input)
				for {
					ev, ok := events.Next()
					if !ok {
						break
					}
					if ev.Err != nil {
						if text != nil {
							*text = ev.Err.Error()
						}
						return true, errRunEnded
					}
					if ev.Output != nil && ev.Output.MessageOutput != nil {
						if m := ev.Output.MessageOutput.Message; m != nil && m.Role == schema.Tool && m.ToolCallID == "1" {
							out = &m.Content
						}
					}
				}
				if out == nil {
					return false, errors.New("eino: the turn gave the model no result of the call")
				}
				if text != nil {
					*text = *out
				}
				return !ran, nil
			}
		}
		return prepare, func() {}, nil
	}
}

// argsKey keys the arguments the scripted model calls the tool with.
type argsKey struct{}

// einoScripted is the model of the flow: it answers the user's message with
// the call (its arguments from the context, as the model wrote them), and
// the tool's result with a text that ends the turn.
type einoScripted struct{}

func (einoScripted) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if len(in) > 0 && in[len(in)-1].Role == schema.Tool {
		return schema.AssistantMessage("done", nil), nil
	}
	args, _ := ctx.Value(argsKey{}).(string)
	return schema.AssistantMessage("", []schema.ToolCall{{ID: "1", Type: "function",
		Function: schema.FunctionCall{Name: toolName, Arguments: args}}}), nil
}

func (m einoScripted) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m einoScripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}
