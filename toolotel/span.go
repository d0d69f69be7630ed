package toolotel

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolbelt-go/tool"
)

// schemaURL is the version of the conventions the attributes follow.
const schemaURL = semconv.SchemaURL

// Attribute keys of this package, beside the conventions'.
const (
	statusKey         = attribute.Key("toolbelt.call.status")
	truncatedKey      = attribute.Key("toolbelt.output.truncated_bytes")
	reasonKey         = attribute.Key("toolbelt.approval.reason")
	allowedKey        = attribute.Key("toolbelt.approval.allowed")
	pendingKey        = attribute.Key("toolbelt.approval.pending")
	progressDoneKey   = attribute.Key("toolbelt.progress.done")
	progressTotalKey  = attribute.Key("toolbelt.progress.total")
	progressMsgKey    = attribute.Key("toolbelt.progress.message")
	partialBlocksKey  = attribute.Key("toolbelt.partial.blocks")
	droppedEventsKey  = attribute.Key("toolbelt.events.dropped")
	otherToolName     = "_OTHER" // a tool name no tool has, in metrics
	toolTypeFunction  = "function"
	maxErrorText      = 1024
	maxEventText      = 512
	maxStack          = 16 << 10
	maxToolNameLength = 128
)

// spanName is "execute_tool {tool}", or "execute_tool" alone for a tool
// that does not exist: span names should have few values, and the model
// can make up any number of names.
func spanName(name string, status tool.Status) string {
	if status == tool.StatusUnknownTool || name == "" {
		return "execute_tool"
	}
	return "execute_tool " + name
}

// startAttributes are the attributes known when a call starts (the
// conventions ask for them then, for sampling). description and session
// are known only to the middleware.
func startAttributes(callID, name, description, session string) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 6)
	a = append(a, semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(cut(name, maxToolNameLength)),
		semconv.GenAIToolTypeKey.String(toolTypeFunction))
	if callID != "" {
		a = append(a, semconv.GenAIToolCallID(cut(callID, maxToolNameLength)))
	}
	if description != "" {
		a = append(a, semconv.GenAIToolDescription(description))
	}
	if session != "" {
		a = append(a, semconv.GenAIConversationID(session))
	}
	return a
}

// errorType is the error.type of a call that did not complete, or "" for
// one that did (or is awaiting an answer, or was a dry run: neither is an
// error).
func errorType(res *tool.Result) string {
	switch {
	case res.Status == tool.StatusOK, res.Status == tool.StatusAwaitingApproval, res.Status == tool.StatusDryRun:
		return ""
	case errors.Is(res.Err, tool.ErrAbandoned):
		return "abandoned"
	}
	return res.Status.String()
}

// endSpan sets what the result says and ends span at end.
func (o *Observer) endSpan(span trace.Span, res *tool.Result, end time.Time) {
	span.SetAttributes(statusKey.String(res.Status.String()))
	if res.Truncated > 0 {
		span.SetAttributes(truncatedKey.Int(res.Truncated))
	}
	if et := errorType(res); et != "" {
		span.SetAttributes(semconv.ErrorTypeKey.String(et))
		desc := et
		if res.Err != nil {
			desc = errorText(res.Err, o.args)
		}
		span.SetStatus(codes.Error, desc)
		var pe *tool.PanicError
		if errors.As(res.Err, &pe) {
			span.AddEvent(semconv.ExceptionEventName, trace.WithTimestamp(end), trace.WithAttributes(
				semconv.ExceptionType("tool.PanicError"),
				semconv.ExceptionMessage(cut(pe.Error(), maxErrorText)),
				semconv.ExceptionStacktrace(cut(string(pe.Stack), maxStack)),
			))
		}
	} else if o.results && res.Status == tool.StatusOK {
		span.SetAttributes(semconv.GenAIToolCallResultKey.String(cut(res.Text(), o.maxText)))
	}
	span.End(trace.WithTimestamp(end))
}

// addEvent adds an approval or progress event to span, at the time it
// happened.
func addEvent(span trace.Span, e tool.Event) {
	var name string
	var attrs []attribute.KeyValue
	switch e.Kind {
	case tool.EventApprovalRequested:
		name = "toolbelt.approval.requested"
		if e.Approval != nil && e.Approval.Reason != "" {
			attrs = append(attrs, reasonKey.String(cut(e.Approval.Reason, maxEventText)))
		}
	case tool.EventApprovalDecided:
		name = "toolbelt.approval.decided"
		if e.Approval != nil {
			attrs = append(attrs, allowedKey.Bool(e.Approval.Allowed), pendingKey.Bool(e.Approval.Pending))
			if e.Approval.Reason != "" {
				attrs = append(attrs, reasonKey.String(cut(e.Approval.Reason, maxEventText)))
			}
		}
	case tool.EventProgress:
		name = "toolbelt.progress"
		attrs = append(attrs, progressDoneKey.Float64(e.Progress.Done))
		if e.Progress.Total > 0 {
			attrs = append(attrs, progressTotalKey.Float64(e.Progress.Total))
		}
		if e.Progress.Message != "" {
			attrs = append(attrs, progressMsgKey.String(cut(e.Progress.Message, maxEventText)))
		}
	case tool.EventPartial:
		// The content is output, recorded (as the result) only on opt-in.
		name = "toolbelt.partial"
		attrs = append(attrs, partialBlocksKey.Int(len(e.Content)))
	default:
		return
	}
	if e.Dropped > 0 {
		attrs = append(attrs, droppedEventsKey.Int(e.Dropped))
	}
	span.AddEvent(name, trace.WithTimestamp(e.Time), trace.WithAttributes(attrs...))
}

// errorText is the host view's error for a span's status, bounded. The
// message of a call preflight refused quotes what was sent; unless
// arguments may be recorded, it is replaced by where the problems are and
// their kinds.
func errorText(err error, withArgs bool) string {
	var ae *tool.ArgsError
	if withArgs || !errors.As(err, &ae) {
		return cut(err.Error(), maxErrorText)
	}
	var b strings.Builder
	b.WriteString("invalid arguments:")
	for i, p := range ae.Problems {
		if i > 0 {
			b.WriteByte(',')
		}
		ptr := p.Pointer
		if ptr == "" {
			ptr = "/"
		}
		b.WriteString(" " + cut(ptr, maxToolNameLength) + " " + p.Code)
	}
	if more := ae.Total - len(ae.Problems); more > 0 {
		b.WriteString(", and " + strconv.Itoa(more) + " more")
	}
	return cut(b.String(), maxErrorText)
}

// cut returns the longest prefix of s of at most n bytes that ends on a
// character boundary, with "…" when it is shorter than s and n leaves room
// for it.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	marker := "…"
	if n < len(marker) {
		marker = "" // too small for the marker: the bound wins
	}
	i := max(n-len(marker), 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + marker
}
