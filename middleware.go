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

// Wrap returns t with middlewares around it, the first outermost, for use
// on its own or in a registry. Outside a registry, the returned tool runs
// preflight (validating the arguments against t's schema) before the
// middlewares, recovers panics, and returns every failure as a Result. In a
// registry, the registry's own preflight has already run and is not
// repeated. On its own, the wrapped tool also gets the deadline and output
// stages with the defaults ([DefaultTimeout], [DefaultGrace],
// [DefaultMaxOutputBytes]). Optional interfaces of t stay visible through
// [As].
func Wrap[C any](t Tool[C], mws ...Middleware[C]) Tool[C] {
	w := &wrapped[C]{inner: t, def: t.Definition(), pf: newPreflight[C](t, Limits{})}
	w.h = Chain(mws...)(func(ctx context.Context, call *Call[C]) *Result {
		if !call.guarded {
			return runTool(ctx, call, t) // on its own: deadline and all
		}
		if res := preflightCall(ctx, call); res != nil {
			return res
		}
		res, err := t.Run(ctx, call)
		return settle(ctx, call.Name, res, err)
	})
	return w
}

type wrapped[C any] struct {
	inner Tool[C]
	def   Definition
	pf    *preflight
	h     Handler[C]
}

func (w *wrapped[C]) Definition() Definition { return w.inner.Definition() }
func (w *wrapped[C]) Unwrap() any            { return w.inner }

func (w *wrapped[C]) Run(ctx context.Context, call *Call[C]) (res *Result, err error) {
	if call.pf == nil {
		call.pf = w.pf
	}
	if call.tool == nil {
		call.tool = w
	}
	if call.def == nil {
		call.def = &w.def
	}
	defer func() {
		if p := recover(); p != nil {
			res, err = panicResult(call.Name, p, false), nil
		}
	}()
	return preflightStage(w.h)(ctx, call), nil
}
