package toolanthropic

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolbelt-go/tool"
)

// Requests returns the tool_use blocks of a message as requests for the
// registry, in the message's order.
func (a *Adapter[C]) Requests(msg *anthropic.Message) []tool.Request {
	if msg == nil {
		return nil
	}
	var reqs []tool.Request
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			req := a.x.Request(b.ID, b.Name, b.Input)
			req.Session = a.session
			reqs = append(reqs, req)
		}
	}
	return reqs
}

// Results returns the user message that answers a turn's tool calls: one
// tool_result block per result, in order, with is_error set for a failed
// call. Text, images (JPEG, PNG, GIF, WebP) and embedded PDFs and text
// files go as Anthropic's own blocks; anything else is named in brackets.
// Structured output with no text is given as its JSON. The result's host
// view (Status, Err) is never sent.
func Results(results []*tool.Result) anthropic.MessageParam {
	blocks := make([]anthropic.ContentBlockParamUnion, 0, len(results))
	for _, res := range results {
		b := &anthropic.ToolResultBlockParam{ToolUseID: res.CallID, Content: resultContent(res)}
		if res.IsError {
			b.IsError = anthropic.Bool(true)
		}
		blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: b})
	}
	return anthropic.NewUserMessage(blocks...)
}

// noOutput is what the model is told of a result with nothing in it.
const noOutput = "(the tool returned no output)"

// imageTypes are the image formats Anthropic's models read.
var imageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

func resultContent(res *tool.Result) []anthropic.ToolResultBlockParamContentUnion {
	var out []anthropic.ToolResultBlockParamContentUnion
	text := func(s string) {
		// Anthropic refuses empty text blocks.
		if s != "" {
			out = append(out, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: s}})
		}
	}
	for _, c := range res.Content {
		switch {
		case c.Type == tool.ContentText:
			text(c.Text)
		case c.Type == tool.ContentImage && slices.Contains(imageTypes, c.MIMEType):
			out = append(out, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
				Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
					Data: base64.StdEncoding.EncodeToString(c.Data), MediaType: anthropic.Base64ImageSourceMediaType(c.MIMEType)}}}})
		case c.Type == tool.ContentResource && c.Data != nil && c.MIMEType == "application/pdf":
			out = append(out, anthropic.ToolResultBlockParamContentUnion{OfDocument: &anthropic.DocumentBlockParam{
				Source: anthropic.DocumentBlockParamSourceUnion{OfBase64: &anthropic.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(c.Data)}},
				Title:  anthropic.String(c.URI)}})
		case c.Type == tool.ContentResource && c.Data == nil && c.Text != "":
			out = append(out, anthropic.ToolResultBlockParamContentUnion{OfDocument: &anthropic.DocumentBlockParam{
				Source: anthropic.DocumentBlockParamSourceUnion{OfText: &anthropic.PlainTextSourceParam{Data: c.Text}},
				Title:  anthropic.String(c.URI)}})
		default:
			text((&tool.Result{Content: []tool.Content{c}}).Text())
		}
	}
	if len(out) == 0 && len(res.Structured) > 0 {
		text(string(res.Structured))
	}
	if len(out) == 0 {
		text(noOutput)
	}
	return out
}

// Run runs one turn: it returns the messages to append to the conversation
// after the model's message msg, in the order the API wants them: msg
// itself, then one user message holding a tool_result for each of its
// tool_use blocks, run through the registry with CallBatch (reads in
// parallel, writes in order). Every call is answered, an unknown tool's or
// invalid arguments' too. A last tool_use block the reply's token limit
// cut off (see CutOff) is answered with an error and does not run. When
// msg has no tool_use block, the turn is over and only msg is returned.
func (a *Adapter[C]) Run(ctx context.Context, state C, msg *anthropic.Message) []anthropic.MessageParam {
	if msg == nil {
		return nil
	}
	out := []anthropic.MessageParam{msg.ToParam()}
	reqs := a.Requests(msg)
	if len(reqs) == 0 {
		return out
	}
	if !CutOff(msg) {
		return append(out, Results(a.reg.CallBatch(ctx, state, reqs, a.opts.Batch)))
	}
	last := reqs[len(reqs)-1]
	results := append(a.reg.CallBatch(ctx, state, reqs[:len(reqs)-1], a.opts.Batch), cutOffResult(last))
	return append(out, Results(results))
}

// CutOff reports whether msg's last tool_use block may be incomplete: the
// reply stopped at its token limit (max_tokens, or the model's context
// window) while that block was its last. Anthropic documents such a block
// as cut off: its input may lack what the model meant to write. Run
// answers it with an error, without running it; the blocks before it are
// whole and run.
func CutOff(msg *anthropic.Message) bool {
	if msg == nil || len(msg.Content) == 0 || msg.Content[len(msg.Content)-1].Type != "tool_use" {
		return false
	}
	return msg.StopReason == anthropic.StopReasonMaxTokens || msg.StopReason == anthropic.StopReasonModelContextWindowExceeded
}

func cutOffResult(req tool.Request) *tool.Result {
	return &tool.Result{CallID: req.ID, Tool: req.Name, Status: tool.StatusInvalid, IsError: true, Err: errCutOff,
		Content: []tool.Content{tool.TextContent("This call did not run: the reply reached its token limit while the call was being written, so its input may be incomplete. Make the call again, in full.")}}
}

var errCutOff = errors.New("toolanthropic: the reply stopped at its token limit inside this tool_use block")
