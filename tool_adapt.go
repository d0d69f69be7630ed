package tool

import (
	"context"
)

// Adapt returns t as a Tool for registries with state type C. The state is
// not passed to t. Optional interfaces of t stay visible through [As].
func Adapt[C any](t AnyTool) Tool[C] {
	return &adapted[C]{t: t, target: passedThrough(t)}
}

type adapted[C any] struct {
	t      AnyTool
	target AnyTool // t, or the tool inside the package's pass-through wrappers around it
}

// passThrough is implemented by the package's own wrappers whose Run is the
// wrapped tool's Run, unchanged (they add optional interfaces: approval
// hooks, pagination). The arguments preflight decoded for the typed tool
// inside go straight to it; otherwise it would read and check the raw
// arguments again, its Validate method included.
type passThrough interface {
	Wrapper
	passesThrough()
}

// passedThrough returns the tool inside t's pass-through wrappers.
func passedThrough(t AnyTool) AnyTool {
	for {
		p, ok := t.(passThrough)
		if !ok {
			return t
		}
		inner, ok := p.Unwrap().(AnyTool)
		if !ok {
			return t
		}
		t = inner
	}
}

// preparedRunner is a typed AnyTool that takes the arguments preflight
// decoded for it.
type preparedRunner interface {
	runPrepared(ctx context.Context, prepared any) (*Result, error)
}

func (a *adapted[C]) Definition() Definition { return a.t.Definition() }

func (a *adapted[C]) Unwrap() any { return a.t }

func (a *adapted[C]) Run(ctx context.Context, call *Call[C]) (*Result, error) {
	if r, ok := a.target.(preparedRunner); ok {
		if in, ok := call.preparedBy(a.target); ok {
			return r.runPrepared(ctx, in)
		}
	}
	return a.t.Run(ctx, call.Args())
}
