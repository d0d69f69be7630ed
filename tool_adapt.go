package tool

import (
	"context"
)

// Adapt returns t as a Tool for registries with state type C. The state is
// not passed to t. Optional interfaces of t stay visible through [As].
func Adapt[C any](t AnyTool) Tool[C] {
	return &adapted[C]{t: t}
}

type adapted[C any] struct{ t AnyTool }

// preparedRunner is a typed AnyTool that takes the arguments preflight
// decoded for it.
type preparedRunner interface {
	runPrepared(ctx context.Context, prepared any) (*Result, error)
}

func (a *adapted[C]) Definition() Definition { return a.t.Definition() }

func (a *adapted[C]) Unwrap() any { return a.t }

func (a *adapted[C]) Run(ctx context.Context, call *Call[C]) (*Result, error) {
	if r, ok := a.t.(preparedRunner); ok {
		if in, ok := call.preparedBy(a.t); ok {
			return r.runPrepared(ctx, in)
		}
	}
	return a.t.Run(ctx, call.Args())
}
