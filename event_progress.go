package tool

import (
	"context"

	"github.com/toolbelt-go/tool/internal/text"
)

// callScope is what a running tool reaches through its context.
type callScope struct {
	events *emitter   // nil without an observer
	idle   *idleTimer // nil without an idle limit
}

type scopeKey struct{}

// ReportProgress reports a tool's progress to the host's observer, and
// extends the call's idle limit (Definition.IdleTimeout). Call it from the
// tool with the context it was given, as often as is convenient: it never
// blocks, and it does nothing outside a call or after the call ended.
func ReportProgress(ctx context.Context, p Progress) {
	s, _ := ctx.Value(scopeKey{}).(*callScope)
	if s == nil {
		return
	}
	if s.idle != nil {
		s.idle.touch()
	}
	if s.events != nil {
		p.Message = text.Bound(text.Clean(p.Message), maxProgressText)
		s.events.fromTool(Event{Kind: EventProgress, Progress: p})
	}
}

// ReportPartial reports partial content from a streaming tool, as an
// EventPartial for the host to show while the call runs. The tool's Result
// is still what the model receives: include the whole content there.
// Reporting partial content counts as progress for the idle limit.
func ReportPartial(ctx context.Context, content ...Content) {
	s, _ := ctx.Value(scopeKey{}).(*callScope)
	if s == nil {
		return
	}
	if s.idle != nil {
		s.idle.touch()
	}
	if s.events != nil && len(content) > 0 {
		c := make([]Content, len(content))
		for i, x := range content {
			x.Text = text.Clean(x.Text)
			c[i] = x
		}
		s.events.fromTool(Event{Kind: EventPartial, Content: c})
	}
}
