package tool

import (
	"context"
)

// Handler runs one call and returns its result. It never returns nil.
type Handler[C any] func(ctx context.Context, call *Call[C]) *Result

// Middleware wraps a Handler with behaviour of its own: approval, timeouts,
// logging, rate limits. It may return a Result without calling next (the
// call then does not run), change the call before passing it on (through
// [Call.SetArgs] for the arguments), or change the Result next returns.
//
// A Result a middleware makes itself needs only what the model reads
// (Content, [TextResult] for text), a Status ([StatusDenied] for a call it
// refused, [StatusFailed] for one that went wrong) and, for the host, Err.
// The registry does the rest as for any result: it sets IsError from the
// Status, fills CallID, Tool, Started and Duration, escapes the text, and
// reports the call's end to the observer. It is not held to the output
// cap, which applies to what the tool returns.
//
// In a [Registry], middlewares run after preflight: the arguments they see
// are already validated ([Call.Value]).
type Middleware[C any] func(next Handler[C]) Handler[C]

// Chain composes middlewares into one. The first is outermost: in
// Chain(a, b, c), a sees the call first and the result last.
func Chain[C any](mws ...Middleware[C]) Middleware[C] {
	return func(next Handler[C]) Handler[C] {
		for i := len(mws) - 1; i >= 0; i-- {
			if mws[i] != nil {
				next = mws[i](next)
			}
		}
		return next
	}
}
