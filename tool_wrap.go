package tool

import (
	"context"
	"errors"
)

// Wrap returns t with middlewares around it, the first outermost, for use
// on its own or in a registry. Optional interfaces of t stay visible
// through [As].
//
// Whether the wrapped tool runs on its own or in a registry is decided
// when it is registered, never per call. On its own (its Run, with a Call
// made by hand), it runs the whole pipeline with the defaults
// ([DefaultTimeout], [DefaultGrace], [DefaultMaxOutputBytes]): preflight
// validates the arguments against t's schema, the middlewares run, then
// the seal, the deadline, t itself, and output; panics are recovered and
// every failure is a Result. Registered, it is run by the registry's own
// pipeline, whose preflight and deadline are not repeated: its
// middlewares run around t on the tool's goroutine, under the call's
// deadline.
func Wrap[C any](t Tool[C], mws ...Middleware[C]) Tool[C] {
	w := &wrapped[C]{inner: t}
	run := runner(t)
	def := t.Definition()
	w.entry = entry[C]{tool: w, def: def, pf: newPreflight[C](t, Limits{}), run: run, rt: defaultRuntime}
	if keys, problem := limitKeys(def.Name, def.CallLimits); problem != "" {
		w.entry.pf = &preflight{err: errors.New("tool: " + problem)}
	} else {
		w.entry.limits, w.entry.limitKeys = def.CallLimits, keys
	}
	w.nested = Chain(mws...)(func(ctx context.Context, call *Call[C]) *Result {
		if res := revalidate(ctx, call); res != nil { // its middlewares may change the arguments
			return res
		}
		res, err := run(ctx, call)
		return settle(ctx, call.Name, res, err)
	})
	w.alone = pipeline(mws)
	return w
}

// runner is how the run stage calls t, decided when t is registered or
// wrapped: a tool made by Wrap runs its middlewares around its own tool
// (the registry's pipeline already did the rest); any other runs its Run.
func runner[C any](t Tool[C]) func(context.Context, *Call[C]) (*Result, error) {
	if w, ok := t.(*wrapped[C]); ok {
		return func(ctx context.Context, call *Call[C]) (*Result, error) { return w.nested(ctx, call), nil }
	}
	return t.Run
}

type wrapped[C any] struct {
	inner  Tool[C]
	entry  entry[C]   // what a pipeline of its own looks it up as
	nested Handler[C] // its middlewares around inner, inside a registry's pipeline
	alone  Handler[C] // the whole pipeline, on its own
}

func (w *wrapped[C]) Definition() Definition { return w.inner.Definition() }

func (w *wrapped[C]) Unwrap() any { return w.inner }

// Run runs a call made by hand through the whole pipeline. A call that
// has come through a pipeline already (a host's own wrapper, registered in
// its place, passing it on) gets what a registry gives a wrapped tool.
func (w *wrapped[C]) Run(ctx context.Context, call *Call[C]) (*Result, error) {
	switch call.st.entry {
	case nil:
		call.st.entry = &w.entry
	case &w.entry:
	default:
		return w.nested(ctx, call), nil
	}
	return w.alone(ctx, call), nil
}
