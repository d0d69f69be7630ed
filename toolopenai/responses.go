package toolopenai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolbelt-go/tool"
)

// ResponseTools returns the registry's tools as Responses API function
// tools, for responses.ResponseNewParams.Tools.
func (a *Adapter[C]) ResponseTools() []responses.ToolUnionParam {
	tools := a.x.Tools()
	out := make([]responses.ToolUnionParam, 0, len(tools))
	for _, e := range tools {
		fn := &responses.FunctionToolParam{Name: e.Name, Parameters: a.params.of(e.Schema), Strict: openai.Bool(e.Target.Strict())}
		if e.Description != "" {
			fn.Description = openai.String(e.Description)
		}
		out = append(out, responses.ToolUnionParam{OfFunction: fn})
	}
	return out
}

// ResponseRequests returns the function_call items of a response as
// requests for the registry, in the response's order.
func (a *Adapter[C]) ResponseRequests(resp *responses.Response) []tool.Request {
	if resp == nil {
		return nil
	}
	var calls []call
	for _, item := range resp.Output {
		if item.Type == "function_call" {
			fc := item.AsFunctionCall()
			calls = append(calls, call{id: fc.CallID, name: fc.Name, args: []byte(fc.Arguments)})
		}
	}
	return a.requests(calls)
}

// ResponseResults returns one function_call_output item per result, in
// order. A result with images (PNG, JPEG, WebP, GIF) or an embedded PDF is
// sent as a list of input_text, input_image and input_file parts; any
// other as text.
func ResponseResults(results []*tool.Result) []responses.ResponseInputItemUnionParam {
	out := make([]responses.ResponseInputItemUnionParam, 0, len(results))
	for _, res := range results {
		item := &responses.ResponseInputItemFunctionCallOutputParam{CallID: openai.String(res.CallID), Output: responseOutput(res)}
		out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: item})
	}
	return out
}

func responseOutput(res *tool.Result) responses.ResponseInputItemFunctionCallOutputOutputUnionParam {
	media := false
	for _, c := range res.Content {
		media = media || sendsImage(c) || sendsFile(c)
	}
	if !media {
		return responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(resultText(res))}
	}
	var parts responses.ResponseFunctionCallOutputItemListParam
	for _, c := range res.Content {
		switch {
		case sendsImage(c):
			parts = append(parts, responses.ResponseFunctionCallOutputItemUnionParam{
				OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: openai.String(dataURL(c))}})
		case sendsFile(c):
			parts = append(parts, responses.ResponseFunctionCallOutputItemUnionParam{
				OfInputFile: &responses.ResponseInputFileContentParam{FileData: openai.String(dataURL(c)), Filename: openai.String(fileName(c))}})
		default:
			if t := blockText(c); t != "" {
				parts = append(parts, responses.ResponseFunctionCallOutputItemParamOfInputText(t))
			}
		}
	}
	return responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: parts}
}

// RunResponse runs one turn: it runs every function call of resp through
// the registry with CallBatch (reads in parallel, writes in order) and
// returns one function_call_output item per call, in order, for the next
// request's input, with PreviousResponseID set to resp.ID. With
// Options.Stateless (store: false) the items of resp's output come first,
// to be appended to the input the conversation already has. Every call is
// answered, an unknown tool's or invalid arguments' too; a call whose
// item's status is not "completed" (cut off by the reply's token limit) is
// answered with an error and does not run. It returns nil when resp has
// no function calls: the turn is over.
func (a *Adapter[C]) RunResponse(ctx context.Context, state C, resp *responses.Response) []responses.ResponseInputItemUnionParam {
	reqs := a.ResponseRequests(resp)
	if len(reqs) == 0 {
		return nil
	}
	// A call whose item is not completed (the reply's token limit cut it
	// off) is answered without running: its arguments may be partial.
	done := make([]*tool.Result, len(reqs))
	run := make([]tool.Request, 0, len(reqs))
	i := 0
	for _, item := range resp.Output {
		if item.Type != "function_call" {
			continue
		}
		if st := item.AsFunctionCall().Status; st != "" && st != responses.ResponseFunctionToolCallStatusCompleted {
			done[i] = incompleteResult(reqs[i], string(st))
		} else {
			run = append(run, reqs[i])
		}
		i++
	}
	ran := a.reg.CallBatch(ctx, state, run, a.opts.Batch)
	for i := range done {
		if done[i] == nil {
			done[i], ran = ran[0], ran[1:]
		}
	}
	results := ResponseResults(done)
	if !a.opts.Stateless {
		return results
	}
	return append(ResponseInput(resp), results...)
}

func incompleteResult(req tool.Request, status string) *tool.Result {
	return &tool.Result{CallID: req.ID, Tool: req.Name, Status: tool.StatusInvalid, IsError: true,
		Err:     fmt.Errorf("%w (status %q)", ErrIncompleteCall, status),
		Content: []tool.Content{tool.TextContent("This call did not run: the reply ended before the call was complete, so its arguments may be partial. Make the call again, in full.")}}
}

// ErrIncompleteCall is the host-side cause of a Responses API function
// call that RunResponse answered without running: its item's status was
// not "completed" (the reply's token limit cut it off).
var ErrIncompleteCall = errors.New("toolopenai: the function call is incomplete")

// ResponseInput returns the output items of resp as input items, for a
// conversation the API does not store (store: false): the next request's
// input must carry them, reasoning and function calls included, before
// the outputs that answer its calls.
func ResponseInput(resp *responses.Response) []responses.ResponseInputItemUnionParam {
	if resp == nil {
		return nil
	}
	out := make([]responses.ResponseInputItemUnionParam, 0, len(resp.Output))
	for _, item := range resp.Output {
		var in responses.ResponseInputItemUnionParam
		// The input union reads an output item's own JSON: each kind of
		// output item is also a kind of input item.
		if err := json.Unmarshal([]byte(item.RawJSON()), &in); err == nil {
			out = append(out, in)
		}
	}
	return out
}
