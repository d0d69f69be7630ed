package tooleino

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/toolbelt-go/tool"
)

// Answerer names Eino's interrupt and resume as the party a deferred
// approval waits for ([tool.PendingApproval].Answerer). Only calls
// deferred to it become Eino interrupts, and only the resume of those
// interrupts answers them: Eino's mechanism asks only when the host chose
// [Approver].
const Answerer = "eino"

// Approver returns a [tool.Approver] that asks through Eino's interrupt and
// resume, for use in the registry's approval middleware:
//
//	reg.Use(tool.Approval(&tool.ApprovalOptions[State]{Approver: tooleino.Approver()}))
//
// It defers every call the policy asks about to [Answerer]. A call that
// came through an Eino tool of this package ([Adapter.Tools]) then ends
// in an interrupt of the Eino run (compose's, under an adk Runner an agent
// event), whose InterruptCtx.Info is a [*Question]: what the person must be
// shown. The host resumes the run with the person's [tool.Decision] as the
// resume data of that interrupt ([Questions] lists them with their IDs),
// and the call runs or not as the decision says, bound to the arguments
// shown: a resume whose arguments differ from those does not run.
//
// A call that did not come through this package's tools (the same
// registry used by another loop) cannot be interrupted: it does not run,
// the model is told why, and the host's cause is [ErrCannotAsk]. If the host chose another approver (the
// approval page, a terminal), that one answers, on every path, and no
// interrupt is used.
//
// An interrupted run may wait for its answer longer than a call waits
// for an approver: the answer is accepted until [tool.ApprovalOptions].Timeout
// after the question (10 minutes by default); set it to how long a
// question stays open in your UI.
func Approver() tool.Approver { return approver{} }

type approver struct{}

func (approver) Approve(ctx context.Context, _ tool.ApprovalRequest) (tool.Decision, error) {
	if !fromEino(ctx) {
		// Not a denial by the user, which the model would read as "the
		// user said": no one could be asked.
		return tool.Decision{}, &tool.Error{Message: notFromEino, Hint: notFromEinoHint, Cause: ErrCannotAsk}
	}
	return tool.Decision{Kind: tool.DecisionDefer, Answerer: Answerer}, nil
}

// ErrCannotAsk is the host-side cause (under [tool.ErrApproverFailed]) of
// a call that [Approver] was asked about and that did not come through
// this package's tools, so that no Eino interrupt could ask: it does not
// run, and the model is told why.
var ErrCannotAsk = errors.New("tooleino: the call did not come through an Eino agent, which alone can ask the user")

type viaEinoKey struct{}

// viaEino marks ctx as that of a call made by one of this package's tools,
// which can turn a deferral into an interrupt.
func viaEino(ctx context.Context) context.Context {
	return context.WithValue(ctx, viaEinoKey{}, true)
}

func fromEino(ctx context.Context) bool {
	v, _ := ctx.Value(viaEinoKey{}).(bool)
	return v
}

// Question is what an approval interrupt shows: the Info of the
// interrupt's context (compose.InterruptCtx, adk.InterruptCtx), for the
// host's UI to put to the person. Answer it by resuming the run with a
// [tool.Decision] as the resume data of that interrupt's ID.
type Question struct {
	// Request is what the person must be shown, as an approver would be:
	// the tool, the call ID, the canonical arguments (and ArgsText, made
	// safe to show), the class, the requirement and the preview.
	Request tool.ApprovalRequest
	// Expires is when an answer stops being accepted.
	Expires time.Time
}

// MarshalJSON and UnmarshalJSON write and read the question as JSON, as
// encoding/json would. They are here for the checkpoints of Eino's compose
// graphs, whose serializer writes a type that has both as JSON, and
// otherwise loses the arguments (a json.RawMessage) on the way back.
func (q Question) MarshalJSON() ([]byte, error) {
	type plain Question
	return json.Marshal(plain(q))
}

// UnmarshalJSON reads a question MarshalJSON wrote.
func (q *Question) UnmarshalJSON(b []byte) error {
	type plain Question
	return json.Unmarshal(b, (*plain)(q))
}

// String is the question in one line, for a UI that prints the Info of
// an interrupt as it is.
func (q *Question) String() string {
	if q == nil {
		return "<nil>"
	}
	r := q.Request
	s := fmt.Sprintf("approve %s %s (%s", r.DisplayName, r.ArgsText, r.Safety)
	if r.Requirement.Reason != "" {
		s += ": " + r.Requirement.Reason
	}
	return s + ")?"
}

// Asked is an approval question an interrupted run waits on: resume the
// run with the answer as the resume data of ID.
type Asked struct {
	// ID is the interrupt's ID (InterruptCtx.ID), the key of the resume
	// data: adk.ResumeParams.Targets, compose.ResumeWithData.
	ID       string
	Question *Question
}

// Questions returns the approval questions among the contexts of an
// interrupt (an adk event's Action.Interrupted.InterruptContexts, or
// compose.ExtractInterruptInfo's InterruptContexts), in their order.
// Other interrupts of the run (a tool or agent of the host's own) are left
// out: they are answered as the host answers them.
func Questions(contexts []*compose.InterruptCtx) []Asked {
	var qs []Asked
	for _, c := range contexts {
		if q, ok := c.Info.(*Question); ok && c.IsRootCause && q != nil {
			qs = append(qs, Asked{ID: c.ID, Question: q})
		}
	}
	return qs
}

// interrupted is what a call keeps in Eino's checkpoint while its
// question waits: the signed state of the pending approval, and the
// arguments it was given for.
type interrupted struct {
	// State is tool.PendingApproval.State.
	State string
	// Tool is the registry's name of the tool.
	Tool string
	// Args is tool.PendingApproval.Request.Args: the canonical arguments
	// shown, which the resumed call is made with (an edit asked about
	// again is for the edited arguments, not the model's).
	Args json.RawMessage
	// Sent is the arguments as Eino handed them to the tool when it was
	// interrupted. A resume that hands it others is a call with other
	// arguments, and is made with those (and refused).
	Sent string
	// Question is shown again when the run is resumed without answering it.
	Question *Question
}

// MarshalJSON and UnmarshalJSON: see Question's.
func (st interrupted) MarshalJSON() ([]byte, error) {
	type plain interrupted
	return json.Marshal(plain(st))
}

func (st *interrupted) UnmarshalJSON(b []byte) error {
	type plain interrupted
	return json.Unmarshal(b, (*plain)(st))
}

func init() {
	// What goes into Eino's checkpoints (gob under adk, its own serializer
	// under compose) is registered by name.
	schema.RegisterName[*Question]("toolbelt_tooleino_question")
	schema.RegisterName[*interrupted]("toolbelt_tooleino_interrupted")
}

// decisionOf reads the resume data a host gave an approval interrupt.
func decisionOf(data any) (tool.Decision, error) {
	switch d := data.(type) {
	case tool.Decision:
		return d, nil
	case *tool.Decision:
		if d != nil {
			return *d, nil
		}
	}
	return tool.Decision{}, fmt.Errorf("tooleino: the resume data of an approval question must be a tool.Decision, not %T", data)
}
