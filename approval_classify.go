package tool

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/tool/internal/text"
)

// Classifier is implemented by a tool whose safety class depends on its
// arguments: a shell tool is Mutating but Destructive for `rm`. Classify
// gets the validated argument tree ([Call.Value]) and must be quick: it
// runs before approval, bounded by [RegistryOptions.HookTimeout] (past it,
// the call is treated as Destructive), so a metadata lookup (a shell tool
// resolving a path's links) is fine, and waiting on a network or a person
// is not. Its answer replaces the Definition's class
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

// visible returns the requirement with its reason and scope made safe to
// show (see text.Visible).
func (r Requirement) visible() Requirement {
	return Requirement{Mode: r.Mode, Reason: text.VisibleExact(r.Reason, false), Scope: text.VisibleExact(r.Scope, true)}
}

// Requirer is implemented by a tool that states a per-call approval
// requirement from its validated arguments. Like Classify, it must be
// quick (a metadata lookup is fine, nothing that waits): it is bounded by
// [RegistryOptions.HookTimeout], past which the call is asked about every
// time. Its answer, as Classify's, must depend only on the arguments and
// what they refer to (no clock, no counter): it is asked again when an
// answer comes, and a call whose requirement changed since the person was
// asked is asked about again.
type Requirer interface {
	Requirement(args any) Requirement
}

// RequirerFor is Requirer for tools that need the host state to decide
// (is this path inside the session's workspace?).
type RequirerFor[C any] interface {
	RequirementFor(call *Call[C]) Requirement
}

// effectiveSafety is the class of one call: what the tool's Classifier
// says, else its static class. An unspecified class counts as Mutating. A
// Classifier that panics or does not answer within the hook timeout makes
// the call Destructive: when in doubt, ask.
func effectiveSafety(ctx context.Context, rt *runtimeConfig, static Safety, c Classifier, args any) Safety {
	s, _ := classified(ctx, rt, static, c, args)
	return s
}

// classified is effectiveSafety, and whether the Classifier answered
// (false: the worst class was assumed).
func classified(ctx context.Context, rt *runtimeConfig, static Safety, c Classifier, args any) (Safety, bool) {
	if static == SafetyUnspecified {
		static = SafetyMutating
	}
	if c == nil {
		return static, true
	}
	got, outcome := callHook(ctx, rt, func(context.Context) Safety { return c.Classify(args) })
	switch {
	case outcome != hookOK:
		return SafetyDestructive, false
	case got != SafetyUnspecified:
		return got, true
	}
	return static, true
}
