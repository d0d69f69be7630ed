package toolotel

import (
	"context"
	"time"

	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolbelt-go/tool"
)

// Middleware returns the middleware that starts the span of each call that
// reaches it, as a child of the span in the call's context, and runs the
// rest of the pipeline (approval, the tool) with the span in the context,
// so that what the tool does is traced under it. Add it first
// ([tool.Registry.Use]) so its span covers the other middlewares.
//
// It works with obs installed as the registry's (or the call's) observer,
// which ends the span when the call finishes, after its last event, and
// records the metrics. A call obs does not observe gets its span ended a
// minute after it returns, and no metrics. A call whose call ID and tool
// another call in flight shares may run without a span from the
// middleware; obs still gives it one, without a parent.
func Middleware[C any](obs *Observer) tool.Middleware[C] {
	return func(next tool.Handler[C]) tool.Handler[C] {
		return func(ctx context.Context, call *tool.Call[C]) *tool.Result {
			rec := obs.claim(callKey{call.ID, call.Name}, time.Now())
			if rec == nil {
				return next(ctx, call)
			}
			def := call.Definition()
			ctx, span := obs.tracer.Start(ctx, spanName(call.Name, tool.StatusOK), trace.WithSpanKind(trace.SpanKindInternal),
				trace.WithTimestamp(rec.start), trace.WithAttributes(startAttributes(call.ID, call.Name, def.Description, call.Session)...))
			obs.mu.Lock()
			rec.span = span
			pending := rec.pending
			rec.pending = nil
			obs.mu.Unlock()
			for _, e := range pending {
				addEvent(span, e)
			}
			res := next(ctx, call)
			if obs.args {
				// What ran: an approver's edit included.
				span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(cut(string(call.Args()), obs.maxText)))
			}
			obs.returned(rec, res, time.Now())
			return res
		}
	}
}
