package tool

import "context"

// approvalState is approval's part of a call's state.
type approvalState struct {
	answer        *ApprovalAnswer // Request.Approval: the later answer a resumed call carries
	returnPending bool            // Request.ReturnPending: a deferral comes back, even from an Awaiter
	seal          seal            // what an approval covered; zero when none ran
	dry           *DryRun         // in a dry run, what approval found, for the dry-run stage (approval_dryrun.go)
}

// seal records what an approval covered: the call, and the generation of
// its arguments. The arguments are unexported and change only through
// Call.SetArgs, which starts a new generation and sends them back through
// preflight; what preflight validated is exactly what the tool is handed
// (the canonical bytes, or for a typed tool the value decoded from the same
// validated arguments). So the generation the approval saw is the
// arguments that run, and any change after it, by anyone, is caught.
type seal struct {
	sealed bool
	callID string
	gen    uint64
}

// sealStage runs after the host's middlewares, just before the tool gets
// its deadline: arguments a middleware changed go back through preflight
// (revalidate), and a call approved for other arguments, or with another
// call's approval, does not run.
func sealStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) *Result {
		if res := revalidate(ctx, call); res != nil {
			return res
		}
		if s := &call.st.approval.seal; s.sealed {
			switch {
			case s.callID != call.ID:
				return deniedResult(call.Name, ErrApprovalNotForCall, whyNotForCall)
			case s.gen != call.argsGeneration():
				return deniedResult(call.Name, ErrArgsChanged, whyArgsChanged)
			}
		}
		return next(ctx, call)
	}
}
