package tool

import (
	"context"
	"encoding/json"
	"fmt"
)

// ApprovalRequest is what an [Approver] is shown. Every string in it has
// control, bidirectional and zero-width characters made visible.
type ApprovalRequest struct {
	Tool        string // the tool's name
	DisplayName string // its Title, or its name
	CallID      string
	Session     string
	// Args is the validated arguments as canonical JSON (keys sorted):
	// exactly what will run if the call is allowed.
	Args json.RawMessage
	// ArgsText is Args made safe to show.
	ArgsText    string
	Safety      Safety // the class of this call (after the tool's Classifier)
	Tier        Tier
	Requirement Requirement
	Preview     Preview
}

// DecisionKind is an approver's answer.
type DecisionKind uint8

const (
	// DecisionDeny: the call does not run; Decision.Reason is shown to the model.
	DecisionDeny DecisionKind = iota
	// DecisionAllowOnce runs this call.
	DecisionAllowOnce
	// DecisionAllowAlways runs this call and, from now on in this session, calls to
	// this tool (or, for a scoped requirement, in this scope) without
	// asking. Ask-always requirements are asked anyway.
	DecisionAllowAlways
	// DecisionEdit runs the call with Decision.Args instead, validated again first.
	DecisionEdit
	// DecisionDefer answers later: the call ends now, unrun, with
	// [StatusAwaitingApproval] and a signed [PendingApproval] in
	// Result.Pending, and runs when a later call of the same tool, with the
	// same arguments and session, carries the state and the answer in
	// [Request.Approval] — in another HTTP request, on another replica.
	// It is how an approver answers when the person is not there now.
	DecisionDefer
)

var decisionNames = [...]string{"deny", "allow_once", "allow_always", "edit", "defer"}

func (k DecisionKind) String() string {
	if int(k) < len(decisionNames) {
		return decisionNames[k]
	}
	return fmt.Sprintf("DecisionKind(%d)", k)
}

// Decision is an approver's answer to one request. The zero Decision
// denies.
type Decision struct {
	Kind DecisionKind
	// Reason, for Deny, tells the model why (and what to do instead).
	Reason string
	// Args, for DecisionEdit, replaces the arguments. The edited call is
	// a new call as far as every rule is concerned: it goes through
	// preflight, is classified, and is put to the policy again (a denial
	// wins over the edit); when its class or requirement is not the one
	// the person was shown, the approver is asked again about it.
	Args json.RawMessage
	// Answerer, for DecisionDefer, names who will answer: the only party
	// whose later answer resumes the call ([ApprovalAnswer].Answerer must
	// be the same). It is signed into the state. Empty means the host's
	// own code. A frontend that relays approvals (toolmcp, approvalweb)
	// answers only the calls deferred to it, so no frontend can answer
	// for an approver the host did not choose.
	Answerer string
}

// Approver decides whether a call may run: usually by asking a person. It
// should return when ctx is done. An error, a panic, or no answer before
// the approval timeout all mean the call does not run; the model is told
// "the approval step failed", or, when the error is (or wraps) a [*Error],
// its Message and Hint.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ApproverFunc adapts a function to [Approver].
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Approve calls f(ctx, req).
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}
