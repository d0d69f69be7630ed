package tool

import (
	"context"

	"github.com/toolbelt-go/tool/internal/decode"
)

// ApprovalHooks are the typed forms of [Classifier], [Requirer] and
// [Describer], for [WithApprovalHooks]. Each is optional. A tool that
// uses the host's per-call state has [ApprovalHooksFor].
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

// ApprovalHooksFor are the typed approval hooks of a tool that uses the
// host's per-call state, for [WithApprovalHooksFor]: the typed forms of
// [Classifier], [RequirerFor] and [DescriberFor]. Require and Describe
// also get the call, and through it the state ([Call.State]) and the
// session. Classify gets the arguments alone, as a Classifier does: a
// call's class is read from what it asks for, and [Registry.CallBatch]
// classifies a turn's calls before any of them is made, to choose those
// that may run side by side. Each hook is optional.
type ApprovalHooksFor[C, In any] struct {
	Classify func(in In) Safety
	Require  func(call *Call[C], in In) Requirement
	Describe func(ctx context.Context, call *Call[C], in In) (Preview, error)
}

// WithApprovalHooksFor is [WithApprovalHooks] for a tool that uses the
// host's per-call state (from [NewFor], [NewPaginatedFor], or a [Tool] of
// your own): the hooks receive the validated arguments decoded into In, as
// the tool does, and the call. t keeps its definition and its optional
// interfaces (through [As]); a hook left nil defers to t's own.
func WithApprovalHooksFor[C, In any](t Tool[C], h ApprovalHooksFor[C, In]) Tool[C] {
	return &hookedFor[C, In]{Tool: t, h: h}
}

type hookedFor[C, In any] struct {
	Tool[C]
	h ApprovalHooksFor[C, In]
}

func (h *hookedFor[C, In]) Unwrap() any { return h.Tool }

func (h *hookedFor[C, In]) decode(args any) (In, bool) {
	var in In
	if err := decode.Into(&in, args); err != nil {
		return in, false
	}
	return in, true
}

func (h *hookedFor[C, In]) Classify(args any) Safety {
	if h.h.Classify == nil {
		if c, ok := As[Classifier](h.Tool); ok {
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

func (h *hookedFor[C, In]) RequirementFor(call *Call[C]) Requirement {
	if h.h.Require == nil {
		if r, ok := As[RequirerFor[C]](h.Tool); ok {
			return r.RequirementFor(call)
		}
		if r, ok := As[Requirer](h.Tool); ok {
			return r.Requirement(call.tree())
		}
		return Requirement{}
	}
	in, ok := h.decode(call.tree())
	if !ok {
		return Requirement{Mode: RequireAskAlways, Reason: "the arguments could not be read for a safety check"}
	}
	return h.h.Require(call, in)
}

func (h *hookedFor[C, In]) DescribeFor(ctx context.Context, call *Call[C]) (Preview, error) {
	if h.h.Describe == nil {
		if d, ok := As[DescriberFor[C]](h.Tool); ok {
			return d.DescribeFor(ctx, call)
		}
		if d, ok := As[Describer](h.Tool); ok {
			return d.Describe(ctx, call.tree())
		}
		return Preview{}, errNoDescriber
	}
	in, ok := h.decode(call.tree())
	if !ok {
		return Preview{}, errNoDescriber
	}
	return h.h.Describe(ctx, call, in)
}
