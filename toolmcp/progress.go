package toolmcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// maxPartialLog bounds the text of one partial-content log message.
const maxPartialLog = 4 << 10

// notifier is the per-call observer that tells the client what the tool
// reports while it runs. The registry calls Observe for one call's events
// in order and never concurrently, so it keeps its state unlocked.
type notifier struct {
	// ctx is the request's own context: the SDK's transports route a
	// notification to the client by the request it belongs to, which they
	// read from it.
	ctx     context.Context
	session *sdk.ServerSession
	token   any // the client's progress token; nil: it wants none
	tool    string

	sent bool
	last float64
}

func newNotifier(ctx context.Context, req *sdk.CallToolRequest) tool.Observer {
	if req.Session == nil {
		return nil
	}
	return &notifier{ctx: ctx, session: req.Session, token: req.Params.GetProgressToken(), tool: req.Params.Name}
}

func (n *notifier) Observe(e tool.Event) {
	switch e.Kind {
	case tool.EventProgress:
		n.progress(e.Progress)
	case tool.EventPartial:
		n.partial(e.Content)
	}
}

// progress sends notifications/progress. MCP requires the progress value
// to increase from one notification to the next: a report that does not
// advance Done is sent as one more step when the tool gives no total (a
// message-only report), and dropped when it has one, since a step would
// misstate how far along it is.
func (n *notifier) progress(p tool.Progress) {
	if n.token == nil {
		return
	}
	v := p.Done
	if n.sent && v <= n.last {
		if p.Total > 0 {
			return
		}
		v = n.last + 1
	}
	n.sent, n.last = true, v
	// Best effort: a client that went away cannot be told, and the call's
	// own context says so to the tool.
	_ = n.session.NotifyProgress(n.ctx, &sdk.ProgressNotificationParams{
		ProgressToken: n.token, Progress: v, Total: p.Total, Message: cut(p.Message, maxPartialLog),
	})
}

// partial sends what a streaming tool produced so far as a log message:
// MCP has no partial tool results, and a log message is what the SDK lets
// a server send during a call. The SDK sends it only when the client set a
// log level (logging/setLevel, or the request's _meta on 2026-07-28).
// The tool's result still carries the whole content.
func (n *notifier) partial(blocks []tool.Content) {
	text := (&tool.Result{Content: blocks}).Text()
	if text == "" {
		return
	}
	//lint:ignore SA1019 logging is deprecated in 2026-07-28 (SEP-2577) but is the SDK's only way to stream text during a call.
	_ = n.session.Log(n.ctx, &sdk.LoggingMessageParams{
		Level: "info", Logger: n.tool, Data: map[string]any{"partial": cut(text, maxPartialLog)},
	})
}
