package tool

import "context"

// dryRun is approval in a dry run: it finds what it would do — the
// policy's verdict, whether an earlier "allow always" covers the call,
// whether anyone could be asked — and hands it to the dry-run stage in its
// part of the call's state. It asks no one, remembers nothing, claims no
// resumed approval and seals nothing: the dry-run stage ends the call
// before anything would run.
func (a *approval[C]) dryRun(ctx context.Context, call *Call[C], next Handler[C], v Verdict, safety Safety, req Requirement) *Result {
	d := &DryRun{Safety: safety, Requirement: req.visible(), Verdict: v}
	switch v {
	case VerdictAllow:
		d.Why = whyDryAllowed
	case VerdictAsk:
		key, remember := memoryKey(call.Name, safety, req)
		session := a.session(call)
		switch {
		case remember && session != "" && a.allowed(ctx, call.runtime(), session, key):
			d.Verdict, d.Remembered, d.Why = VerdictAllow, true, whyDryRemembered
		case a.opts.Approver == nil:
			d.Verdict, d.Why = VerdictDeny, whyNoApprover
		default:
			d.Why = whyDryAsk(d.Requirement, safety)
		}
	default:
		d.Verdict, d.Why = VerdictDeny, whyPolicy(safety)
	}
	call.st.approval.dry = d
	return next(ctx, call)
}
