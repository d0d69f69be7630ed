package tool

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/tool/internal/decode"
)

// Classifier is implemented by a tool whose safety class depends on its
// arguments: a shell tool is Mutating but Destructive for `rm`. Classify
// gets the validated argument tree ([Call.Value]) and must be a pure
// function: no I/O, no waiting. Its answer replaces the Definition's class
// for this call (a shell tool may call `ls` ReadOnly and `rm` Destructive);
// SafetyUnspecified keeps the Definition's class.
type Classifier interface {
	Classify(args any) Safety
}

// RequireMode is how a call wants to be approved.
type RequireMode uint8

const (
	// RequireDefault leaves it to the policy, from the safety class and
	// tier.
	RequireDefault RequireMode = iota
	// RequireAuto says the call needs no approval. A policy may still deny
	// it (the read-only policy denies writes).
	RequireAuto
	// RequireAsk asks the approver unless an earlier "allow always" for
	// this tool applies.
	RequireAsk
	// RequireAskAlways asks every time; "allow always" is neither used nor
	// remembered. For calls too dangerous to approve in bulk.
	RequireAskAlways
	// RequireScoped asks with a reason and a scope ("write outside the
	// workspace", "/etc"); "allow always" is remembered for that scope
	// only.
	RequireScoped
)

var requireModeNames = [...]string{"default", "auto", "ask", "ask_always", "scoped"}

func (m RequireMode) String() string {
	if int(m) < len(requireModeNames) {
		return requireModeNames[m]
	}
	return fmt.Sprintf("RequireMode(%d)", m)
}

// Requirement is a call's own statement of how it must be approved.
type Requirement struct {
	Mode RequireMode
	// Reason tells the approver why approval is needed.
	Reason string
	// Scope, for RequireScoped, is what "allow always" covers.
	Scope string
}

// Requirer is implemented by a tool that states a per-call approval
// requirement from its validated arguments. Like Classify, it must not do
// I/O.
type Requirer interface {
	Requirement(args any) Requirement
}

// RequirerFor is Requirer for tools that need the host state to decide
// (is this path inside the session's workspace?).
type RequirerFor[C any] interface {
	RequirementFor(call *Call[C]) Requirement
}

// Describer is implemented by a tool that can show the approver what a call
// will do before it runs: a diff for a file edit, the command for a shell
// tool. Describe may read (the old file) but not change anything. An error
// or panic never fails the call: the approver gets a basic preview instead.
type Describer interface {
	Describe(ctx context.Context, args any) (Preview, error)
}

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

// effectiveSafety is the class of one call: what the tool's Classifier
// says, else its static class. An unspecified class counts as Mutating. A
// Classifier that panics or does not answer within the hook timeout makes
// the call Destructive: when in doubt, ask.
func effectiveSafety(ctx context.Context, rt *runtimeConfig, static Safety, c Classifier, args any) Safety {
	if static == SafetyUnspecified {
		static = SafetyMutating
	}
	if c == nil {
		return static
	}
	got, outcome := callHook(ctx, rt, func(context.Context) Safety { return c.Classify(args) })
	switch {
	case outcome != hookOK:
		return SafetyDestructive
	case got != SafetyUnspecified:
		return got
	}
	return static
}
