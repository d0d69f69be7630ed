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
