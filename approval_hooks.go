package tool

import (
	"context"

	"github.com/toolbelt-go/tool/internal/decode"
)

// ApprovalHooks are the typed forms of [Classifier], [Requirer] and
// [Describer], for [WithApprovalHooks]. Each is optional.
type ApprovalHooks[In any] struct {
	Classify func(in In) Safety
	Require  func(in In) Requirement
	Describe func(ctx context.Context, in In) (Preview, error)
}

// WithApprovalHooks returns t with the hooks attached: they receive the
// validated arguments decoded into In, as the tool does. t keeps its
// definition and its optional interfaces (through [As]).
func WithApprovalHooks[In any](t AnyTool, h ApprovalHooks[In]) AnyTool {
	return &hooked[In]{AnyTool: t, h: h}
}

type hooked[In any] struct {
	AnyTool
	h ApprovalHooks[In]
}

func (h *hooked[In]) Unwrap() any { return h.AnyTool }

func (h *hooked[In]) passesThrough() {}

func (h *hooked[In]) decode(args any) (In, bool) {
	var in In
	if err := decode.Into(&in, args); err != nil {
		return in, false
	}
	return in, true
}

// Each hook left nil defers to the wrapped tool's own interface, if any, so
// wrapping never hides what the tool already does.

func (h *hooked[In]) Classify(args any) Safety {
	if h.h.Classify == nil {
		if c, ok := As[Classifier](h.AnyTool); ok {
			return c.Classify(args)
		}
		return SafetyUnspecified
	}
	in, ok := h.decode(args)
	if !ok {
		return SafetyDestructive // cannot tell: assume the worst
	}
	return h.h.Classify(in)
}

func (h *hooked[In]) Requirement(args any) Requirement {
	if h.h.Require == nil {
		if r, ok := As[Requirer](h.AnyTool); ok {
			return r.Requirement(args)
		}
		return Requirement{}
	}
	in, ok := h.decode(args)
	if !ok {
		return Requirement{Mode: RequireAskAlways, Reason: "the arguments could not be read for a safety check"}
	}
	return h.h.Require(in)
}

func (h *hooked[In]) Describe(ctx context.Context, args any) (Preview, error) {
	if h.h.Describe == nil {
		if d, ok := As[Describer](h.AnyTool); ok {
			return d.Describe(ctx, args)
		}
		return Preview{}, errNoDescriber
	}
	in, ok := h.decode(args)
	if !ok {
		return Preview{}, errNoDescriber
	}
	return h.h.Describe(ctx, in)
}
