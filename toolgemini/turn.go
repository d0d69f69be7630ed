package toolgemini

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
)

// idPrefix starts the IDs Requests makes for calls that came without one.
const idPrefix = "toolgemini:"

// Requests returns the FunctionCall parts of the response's first
// candidate as requests for the registry, in order. Gemini may send a call
// without an ID: such a call gets one, "toolgemini:<response>:<n>", from
// the response's ID and the call's position, the same for the same
// response (a retried turn is answered from its records, when the registry
// keeps them). A response without an ID gets a random key instead, new on
// each call of Requests: a key made from the calls alone would be the same
// for a later turn that makes the same calls, and records would answer
// that turn with the old results without running anything. Results leaves
// those IDs out again, so Gemini matches the answers to the calls by
// position and name, as it does for calls without IDs.
//
// The SDK decodes the arguments into a map: they are encoded again as
// JSON, keys sorted. The API carries numbers as 64-bit floats: see
// Refused for the integers that may have changed on the way.
func (a *Adapter[C]) Requests(resp *genai.GenerateContentResponse) []tool.Request {
	content := firstContent(resp)
	if content == nil {
		return nil
	}
	var reqs []tool.Request
	key := ""
	for _, p := range content.Parts {
		if p == nil || p.FunctionCall == nil {
			continue
		}
		fc := p.FunctionCall
		args, err := json.Marshal(fc.Args)
		if err != nil {
			args = nil // unreachable for a decoded response; preflight reads it as {}
		}
		id := fc.ID
		if id == "" {
			if key == "" {
				key = responseKey(resp)
			}
			id = idPrefix + key + ":" + strconv.Itoa(len(reqs))
		}
		req := a.x.Request(id, fc.Name, args)
		req.Session = a.session
		reqs = append(reqs, req)
	}
	return reqs
}

// Refused returns the result that answers req without running it, or nil
// when req may run. Gemini's API carries every number as a 64-bit float,
// so an integer of magnitude 2^53 or more may reach the adapter changed by
// a few units; where the tool's schema takes an integer, the call is
// answered with an error that says so rather than run with a number the
// model did not write. Run asks it of every call; ask it yourself before
// running a request from Requests some other way.
func (a *Adapter[C]) Refused(req tool.Request) *tool.Result {
	err := a.x.CheckPrecision(req)
	if err == nil {
		return nil
	}
	return &tool.Result{CallID: req.ID, Tool: req.Name, Status: tool.StatusInvalid, IsError: true, Err: err,
		Content: []tool.Content{tool.TextContent("Error: " + err.Error())}}
}

func firstContent(resp *genai.GenerateContentResponse) *genai.Content {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return nil
	}
	return resp.Candidates[0].Content
}

// responseKey names a response for the IDs of its calls: its ID, or,
// without one, a random key (see Requests for why not a hash).
func responseKey(resp *genai.GenerateContentResponse) string {
	if resp.ResponseID != "" && !strings.Contains(resp.ResponseID, ":") {
		return resp.ResponseID
	}
	return rand.Text()
}

// Results returns the content that answers a turn's calls: one
// FunctionResponse part per request and result, in order, with the name
// the model called (the tool's, or the one it was sent under when Gemini
// refuses the tool's) and, when the call had one, its ID. A successful result is
// {"output": …}, structured output as JSON and otherwise text; a failed
// one is {"error": "<text>"}. Images (PNG, JPEG, WebP) and embedded PDFs go
// along as the response's parts, which Gemini 3 models read; other blocks
// are named in brackets. The result's host view (Status, Err) is never sent.
func (a *Adapter[C]) Results(reqs []tool.Request, results []*tool.Result) *genai.Content {
	parts := make([]*genai.Part, 0, len(results))
	for i, res := range results {
		name, id := res.Tool, res.CallID
		if i < len(reqs) {
			name, id = reqs[i].Name, reqs[i].ID
		}
		name = a.x.SentName(name) // the name the model called
		if strings.HasPrefix(id, idPrefix) {
			id = ""
		}
		fr := &genai.FunctionResponse{ID: id, Name: name}
		fr.Response, fr.Parts = response(res)
		parts = append(parts, &genai.Part{FunctionResponse: fr})
	}
	return &genai.Content{Role: genai.RoleUser, Parts: parts}
}

// noOutput is what the model is told of a result with nothing in it.
const noOutput = "(the tool returned no output)"

// mediaTypes are what a FunctionResponse carries as parts.
var mediaTypes = []string{"image/png", "image/jpeg", "image/webp", "application/pdf"}

func response(res *tool.Result) (map[string]any, []*genai.FunctionResponsePart) {
	var texts []string
	var media []*genai.FunctionResponsePart
	for _, c := range res.Content {
		if c.Binary() && slices.Contains(mediaTypes, c.MIMEType) && (c.Type == tool.ContentImage || c.Type == tool.ContentResource) {
			media = append(media, genai.NewFunctionResponsePartFromBytes(c.Data, c.MIMEType))
			continue
		}
		if t := (&tool.Result{Content: []tool.Content{c}}).Text(); t != "" {
			texts = append(texts, t)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		if text == "" {
			text = "the tool failed"
		}
		return map[string]any{"error": text}, media
	}
	if len(res.Structured) > 0 {
		dec := json.NewDecoder(bytes.NewReader(res.Structured))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			return map[string]any{"output": v}, media
		}
	}
	if text == "" && len(media) == 0 {
		text = noOutput
	}
	return map[string]any{"output": text}, media
}

// Run runs one turn: it returns the contents to append to the conversation
// after the response resp, in the order the API wants them: the model's
// content (with its thought signatures, which Gemini 3 needs back), then
// one user content with a FunctionResponse for each of its function calls,
// run through the registry with CallBatch (reads in parallel, writes in
// order). Every call is answered, an unknown tool's or invalid arguments'
// too. When resp has no function call, the turn is over and only the
// model's content is returned; with no candidate, nothing.
func (a *Adapter[C]) Run(ctx context.Context, state C, resp *genai.GenerateContentResponse) []*genai.Content {
	content := firstContent(resp)
	if content == nil {
		return nil
	}
	out := []*genai.Content{content}
	reqs := a.Requests(resp)
	if len(reqs) == 0 {
		return out
	}
	results := make([]*tool.Result, len(reqs))
	run := make([]tool.Request, 0, len(reqs))
	for i, r := range reqs {
		if results[i] = a.Refused(r); results[i] == nil {
			run = append(run, r)
		}
	}
	ran := a.reg.CallBatch(ctx, state, run, a.opts.Batch)
	for i := range results {
		if results[i] == nil {
			results[i], ran = ran[0], ran[1:]
		}
	}
	return append(out, a.Results(reqs, results))
}
