package tool

import (
	"context"
	"encoding/json"

	"github.com/toolbelt-go/tool/internal/text"
)

// DryRun is what a dry run of a call ([Request.DryRun]) found: what would
// run, and how it would be approved. It is in Result.DryRun of a call that
// ended [StatusDryRun]; a dry run whose arguments fail preflight ends
// [StatusInvalid], as the call would. Every string in it is made safe to
// show, as an approver's are.
type DryRun struct {
	// Tool is the tool's name.
	Tool string
	// Args is the validated arguments as canonical JSON, schema defaults
	// filled in: exactly what the tool would be handed.
	Args json.RawMessage
	// Safety is the class of this call: the tool's Classifier's answer, or
	// its Definition's class (an unspecified class counts as mutating).
	Safety Safety
	// Requirement is how the call says it must be approved.
	Requirement Requirement
	// Verdict is what approval would do: VerdictAllow (the call would run
	// without asking anyone: the policy allows it, an earlier "allow
	// always" covers it, or the registry has no [Approval] step),
	// VerdictAsk (a person would be asked) or VerdictDeny.
	Verdict Verdict
	// Why says why, in a sentence.
	Why string
	// Remembered is set when an earlier "allow always" of the session
	// covers the call.
	Remembered bool
	// Preview is what a person asked about the call would be shown.
	Preview Preview
}

// dryRunStage ends a dry run, after the host's middlewares and the seal:
// with the call's canonical arguments, its class and requirement, what
// [Approval] found (approval_dryrun.go) or, in a registry without one,
// that no one would be asked, and the preview. Nothing after it runs: no
// limit is counted, no deadline starts, the tool is not called.
func dryRunStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) *Result {
		if !call.DryRun {
			return next(ctx, call)
		}
		rt := call.runtime()
		d := call.st.approval.dry
		if d == nil {
			c, _ := As[Classifier](call.Tool())
			d = &DryRun{Safety: effectiveSafety(ctx, rt, call.Definition().Safety, c, classifierInput(c, call)),
				Requirement: requirementOf(ctx, call).visible(), Verdict: VerdictAllow, Why: whyDryNoApproval}
		}
		d.Tool, d.Args = call.Name, call.Args()
		d.Preview = describe(ctx, rt, call, text.Bound(text.Visible(string(d.Args), false), maxPreviewText))
		return dryRunResult(d, rt.maxOut)
	}
}
