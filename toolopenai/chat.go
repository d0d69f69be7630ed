package toolopenai

import (
	"context"
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolbelt-go/tool"
)

// ChatTools returns the registry's tools as Chat Completions tools, for
// openai.ChatCompletionNewParams.Tools.
func (a *Adapter[C]) ChatTools() []openai.ChatCompletionToolUnionParam {
	tools := a.x.Tools()
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(tools))
	for _, e := range tools {
		fn := shared.FunctionDefinitionParam{Name: e.Name, Parameters: a.params.of(e.Schema)}
		if e.Description != "" {
			fn.Description = openai.String(e.Description)
		}
		if a.opts.Strict {
			fn.Strict = openai.Bool(e.Target.Strict())
		}
		out = append(out, openai.ChatCompletionFunctionTool(fn))
	}
	return out
}

// ChatRequests returns the tool calls of a Chat Completions message as
// requests for the registry, in the message's order. A custom tool's call
// is included with its input as a JSON string, so that it too is answered.
func (a *Adapter[C]) ChatRequests(msg openai.ChatCompletionMessage) []tool.Request {
	calls := make([]call, 0, len(msg.ToolCalls))
	for _, tc := range msg.ToolCalls {
		switch tc.Type {
		case "custom":
			input, _ := json.Marshal(tc.Custom.Input)
			calls = append(calls, call{id: tc.ID, name: tc.Custom.Name, args: input})
		default:
			calls = append(calls, call{id: tc.ID, name: tc.Function.Name, args: []byte(tc.Function.Arguments)})
		}
	}
	return a.requests(calls)
}

// ChatResults returns one tool message per result, in order, each
// answering the call whose ID the result carries. Chat Completions' tool
// messages hold text only: an image is named in brackets (the Responses
// API takes images; see ResponseResults). Tool errors are told in the
// text, as the registry wrote them.
func ChatResults(results []*tool.Result) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(results))
	for _, res := range results {
		out = append(out, openai.ToolMessage(resultText(res), res.CallID))
	}
	return out
}

// RunChat runs one turn: it returns the messages to append to the
// conversation after the model's message msg, in the order the API wants
// them: msg itself, then one tool message for each of its tool calls, run
// through the registry with CallBatch (reads in parallel, writes in order).
// Every call is answered, an unknown tool's or invalid arguments' too.
// When msg has no tool calls, the turn is over and only msg is returned.
func (a *Adapter[C]) RunChat(ctx context.Context, state C, msg openai.ChatCompletionMessage) []openai.ChatCompletionMessageParamUnion {
	out := []openai.ChatCompletionMessageParamUnion{msg.ToParam()}
	reqs := a.ChatRequests(msg)
	if len(reqs) == 0 {
		return out
	}
	return append(out, ChatResults(a.reg.CallBatch(ctx, state, reqs, a.opts.Batch))...)
}
