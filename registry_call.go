package tool

import (
	"context"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
)

// Call runs one call through the pipeline and returns its result; it never
// returns nil and never panics. state is passed to the tool as
// [Call.State]. Call is the pipeline's two ends: lookup and the events
// stage's Started before the other stages, and after them the result's
// host view and the Finished event.
func (r *Registry[C]) Call(ctx context.Context, state C, req Request) *Result {
	start := time.Now()
	ch := r.loadChain()
	rt := r.runtime()
	events := startEvents(rt, &req)
	e, ok := r.lookup(req.Name)
	var res *Result
	switch {
	case ctx.Err() != nil:
		// Nothing runs for a call that is over before it starts: not the
		// approver, not the tool.
		res = canceledResult(ctx, req.Name, notStarted)
	case !ok:
		res = unknownToolResult(req.Name, r.list().names)
	default:
		call := newCall(e, state, &req, events)
		res = ch.handler(ctx, call)
		if res == nil {
			res = nilResult(req.Name)
		}
		res = res.own()
		res.ran = call.st.started // a result a middleware made, of a tool that ran
	}
	res = finish(rt, res.own(), req, start)
	if events != nil {
		events.finish(Event{Kind: EventFinished, Result: res}, rt.observerTimeout)
	}
	return res
}

// finish fills in the host view and makes the model view safe: every text
// block and the structured output escaped, the status and IsError
// consistent.
func finish(rt *runtimeConfig, res *Result, req Request, start time.Time) *Result {
	res.CallID, res.Tool = req.ID, text.Clean(text.Cut(req.Name, 128))
	res.Started, res.Duration = start, time.Since(start)
	switch {
	case res.Status == StatusOK && res.IsError:
		res.Status = StatusFailed
	case res.Status == StatusDryRun:
		res.IsError = false // nothing failed: nothing ran
	case res.Status != StatusOK:
		res.IsError = true
	}
	// Results made by middlewares have not been through the output stage;
	// the others pass this again in a scan that allocates nothing.
	keep := rt.keepInvisible
	for i := range res.Content {
		res.Content[i].Text = text.CleanModel(res.Content[i].Text, keep)
		res.Content[i].Name = text.CleanModel(res.Content[i].Name, keep)
	}
	// Structured output is data: what would be escaped in text is written
	// as a JSON escape instead, the same value to a decoder.
	res.Structured = text.EscapeJSON(res.Structured, keep)
	return res
}
