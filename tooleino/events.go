package tooleino

import (
	"context"
	"sync"

	"github.com/cloudwego/eino/adk"

	"github.com/toolbelt-go/tool"
)

// Progress is what a running call reports (tool.ReportProgress,
// tool.ReportPartial), as the Output.CustomizedOutput of an event of the
// adk agent that runs it ([Options].Events). It is for the host's UI; the
// model reads the call's result alone.
type Progress struct {
	// CallID and Tool identify the call.
	CallID, Tool string
	// Progress is set for a progress report.
	Progress *tool.Progress
	// Content is set for partial output.
	Content []tool.Content
	// Dropped counts the reports of this call lost before this one
	// (merged or dropped because the host lagged, or past the bound below).
	Dropped int
}

// maxForwarded bounds the reports of one call sent to the agent's event
// stream, whose queue has no bound of its own; the rest are counted in
// the next one's Dropped, and the result still carries everything.
const maxForwarded = 1024

// forward returns the observer that sends a call's progress and partial
// output to the event stream of the adk agent ctx runs in, and the
// function that stops it once the call has returned (the agent may close
// its stream then, and a send after that would panic).
func forward(ctx context.Context) (tool.Observer, func()) {
	var (
		mu      sync.Mutex
		stopped bool
		sent    int
		dropped int
	)
	obs := tool.ObserverFunc(func(e tool.Event) {
		var p *Progress
		switch e.Kind {
		case tool.EventProgress:
			pr := e.Progress
			p = &Progress{Progress: &pr}
		case tool.EventPartial:
			p = &Progress{Content: e.Content}
		default:
			return
		}
		mu.Lock()
		defer mu.Unlock()
		dropped += e.Dropped
		if stopped || sent >= maxForwarded {
			dropped++
			return
		}
		p.CallID, p.Tool, p.Dropped = e.CallID, e.Tool, dropped
		if adk.SendEvent(ctx, &adk.AgentEvent{Output: &adk.AgentOutput{CustomizedOutput: p}}) == nil {
			sent++
			dropped = 0
		}
	})
	return obs, func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}
