package tool

import "fmt"

// Verdict is a policy's answer for one call.
type Verdict uint8

const (
	// VerdictAsk the approver.
	VerdictAsk Verdict = iota
	// VerdictAllow the call without asking.
	VerdictAllow
	// Deny the call without asking.
	VerdictDeny
)

func (v Verdict) String() string {
	switch v {
	case VerdictAsk:
		return "ask"
	case VerdictAllow:
		return "allow"
	case VerdictDeny:
		return "deny"
	}
	return fmt.Sprintf("Verdict(%d)", v)
}

// PolicyInput is what a policy decides from.
type PolicyInput struct {
	Tool string
	// Safety is the class of this call: the tool's Classifier's answer, or
	// its Definition's class, with SafetyUnspecified read as Mutating.
	Safety Safety
	// Static is the Definition's class, as declared.
	Static      Safety
	Tier        Tier
	Requirement Requirement
}

// Policy maps a call to allow, deny or ask. It must be fast and must not
// block: it runs on every call.
type Policy interface {
	Decide(in PolicyInput) Verdict
}

// PolicyFunc adapts a function to [Policy].
type PolicyFunc func(in PolicyInput) Verdict

// Decide calls f(in).
func (f PolicyFunc) Decide(in PolicyInput) Verdict { return f(in) }

// AskForWritesPolicy is the default policy: read-only calls and tools in
// the TierObserve tier run without asking; everything else is asked about.
// A call's own requirement comes first: RequireAuto runs, RequireAsk,
// RequireAskAlways and RequireScoped ask, even for a read-only tool
// (reading outside the workspace is worth a question). TierConfirm tools
// are asked about, even read-only ones (an "allow always" answer then
// covers them, as for any ask).
func AskForWritesPolicy() Policy {
	return PolicyFunc(func(in PolicyInput) Verdict {
		switch in.Requirement.Mode {
		case RequireAuto:
			return VerdictAllow
		case RequireAsk, RequireAskAlways, RequireScoped:
			return VerdictAsk
		}
		switch in.Tier {
		case TierObserve:
			return VerdictAllow
		case TierConfirm:
			return VerdictAsk
		}
		if in.Safety == SafetyReadOnly {
			return VerdictAllow
		}
		return VerdictAsk
	})
}

// ReadOnlyPolicy runs read-only calls as [AskForWritesPolicy] does and
// denies every other call: for planning and review agents.
func ReadOnlyPolicy() Policy {
	ask := AskForWritesPolicy()
	return PolicyFunc(func(in PolicyInput) Verdict {
		if in.Safety != SafetyReadOnly {
			return VerdictDeny
		}
		return ask.Decide(in)
	})
}

// DenyDestructivePolicy denies destructive calls and decides the others as
// [AskForWritesPolicy] does (reads run, writes are asked about): what a
// coding agent usually wants, where deleting is never worth a question. A
// call is destructive by its class for these arguments (a [Classifier]'s
// answer, so a shell tool's "rm -rf build" is denied while its "ls" runs),
// whatever its tier or requirement: RequireAuto and TierObserve do not let
// a destructive call through.
func DenyDestructivePolicy() Policy {
	ask := AskForWritesPolicy()
	return PolicyFunc(func(in PolicyInput) Verdict {
		if in.Safety == SafetyDestructive {
			return VerdictDeny
		}
		return ask.Decide(in)
	})
}

// AllowAllPolicy runs every call without asking, ask-always requirements
// included. For sandboxes and trusted automation only.
func AllowAllPolicy() Policy {
	return PolicyFunc(func(PolicyInput) Verdict { return VerdictAllow })
}

// DenyAllPolicy denies every call.
func DenyAllPolicy() Policy {
	return PolicyFunc(func(PolicyInput) Verdict { return VerdictDeny })
}

// NonInteractive turns p's "ask" into "deny", for sessions no one watches
// (background sub-agents, scheduled jobs). A nil p means
// [AskForWritesPolicy].
func NonInteractive(p Policy) Policy {
	if p == nil {
		p = AskForWritesPolicy()
	}
	return PolicyFunc(func(in PolicyInput) Verdict {
		if v := p.Decide(in); v != VerdictAsk {
			return v
		}
		return VerdictDeny
	})
}
