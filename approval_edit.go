package tool

import "context"

// maxEditRounds bounds how many times one call is asked about again
// because an edit changed its class: a person who keeps editing is asked
// again each time, an approver that edits without end is stopped.
const maxEditRounds = 8

// edited runs a call whose arguments a person edited as the new call it
// is: the edit goes through preflight, is classified and put to the
// policy again (a denial wins over the edit), and when its class or
// requirement is not the one the person was shown (shown), the approver is
// asked about it again, with its own class.
func (a *approval[C]) edited(ctx context.Context, call *Call[C], next Handler[C], args []byte, session string, shown assessment, round int) *Result {
	call.SetArgs(args)
	if res := revalidate(ctx, call); res != nil {
		return editInvalidResult(call.Name, res)
	}
	as := a.assess(ctx, call)
	switch as.verdict {
	case VerdictAllow:
		return a.run(ctx, call, next)
	case VerdictAsk:
	default:
		return editDeniedResult(call.Name, ErrDenied, whyPolicy(as.safety))
	}
	if as.safety == shown.safety && as.req == shown.req {
		return a.run(ctx, call, next) // the person typed it, and saw its class
	}
	if round >= maxEditRounds {
		return editDeniedResult(call.Name, ErrEditedTooOften, whyEditedTooOften(maxEditRounds))
	}
	return a.askFor(ctx, call, next, session, as, round+1)
}
