package tooladk

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/tool/toolconfirmation"

	"github.com/toolbelt-go/tool"
)

// Answerer names ADK's tool confirmation as the party a deferred approval
// waits for ([tool.PendingApproval].Answerer). Only calls deferred to it
// are asked through ADK's confirmation, and only ADK's confirmation
// answers resume them: ADK's user answers only when the host chose
// [Approver].
const Answerer = "adk"

// Approver returns a [tool.Approver] that asks ADK's user, through ADK's
// own tool confirmation, for use in the registry's approval middleware:
//
//	reg.Use(tool.Approval(&tool.ApprovalOptions[State]{Approver: tooladk.Approver()}))
//
// It defers every call that came through a [Toolset] to [Answerer]. The
// toolset relays such a call as ADK's confirmation request (the call's
// ToolConfirmation, with a hint that says what will run and a [Question]
// as payload), which ADK turns into its adk_request_confirmation function
// call, the one ADK's web UI and REST clients already show; ADK then ends
// the turn. The user's answer, a FunctionResponse to that call, makes ADK
// run the original call again with the confirmation, and the toolset
// resumes it with the signed state it kept in the session's state,
// answered as [Answerer]: it runs only with the tool, canonical arguments
// and session it was asked about, once, before the approval timeout.
// Confirmed runs it once, or for the session when the answer's payload
// says [AnswerAllowAlways]; not confirmed denies it, and the model reads
// the payload's reason, if any (see [Question] for the payload).
//
// A question in ADK's UI may wait longer for its answer than a call
// waits for an approver: the answer is accepted until
// [tool.ApprovalOptions].Timeout after the question (10 minutes by
// default), and a later one runs nothing ("came too late"); set it to how
// long a question may stay open in your UI.
//
// A call that did not come through a Toolset (the same registry used by
// another loop) does not run: there is no ADK user to ask; the model is
// told why, and the host's cause is [ErrCannotAsk]. A host that serves
// both chooses per call with an approver of its own that asks
// [ToolContextFrom].
//
// When the host chooses another approver (the approval page, a terminal),
// that one decides, and ADK's confirmation is not used: a call the page
// is asked about waits on the page, inside the toolset's Run. ADK's own
// tool.WithConfirmation around the toolset is ADK's question, not the
// host's approver: the host's approver still decides after it.
func Approver() tool.Approver { return approver{} }

type approver struct{}

func (approver) Approve(ctx context.Context, _ tool.ApprovalRequest) (tool.Decision, error) {
	if _, ok := ToolContextFrom(ctx); !ok {
		// Not a denial by the user, which the model would read as "the
		// user said": no one could be asked.
		return tool.Decision{}, &tool.Error{Message: notThroughADK, Hint: notThroughADKHint, Cause: ErrCannotAsk}
	}
	return tool.Decision{Kind: tool.DecisionDefer, Answerer: Answerer}, nil
}

// ErrCannotAsk is the host-side cause (under [tool.ErrApproverFailed]) of
// a call that [Approver] was asked about and that did not come through a
// [Toolset], so that ADK's confirmation could not ask: it does not run,
// and the model is told why.
var ErrCannotAsk = errors.New("tooladk: the call did not come through an ADK agent, which alone can ask the user")

// The answer's payload. ADK's confirmation is a yes or no (Confirmed);
// its payload is the application's. An answer that sends none runs the
// call once (confirmed) or denies it. A client that offers more sends an
// object with these names.
const (
	// AnswerFieldDecision names the payload's optional string field:
	// [AnswerAllowAlways] with a confirmation allows the call and, for the
	// rest of the session, the calls to this tool that the same answer
	// covers ([tool.DecisionAllowAlways]; never for an ask-always call).
	// [AnswerDeny] denies even a confirmed answer.
	AnswerFieldDecision = "decision"
	// AnswerFieldReason names the payload's optional string field: why
	// the user rejects the call. The model reads it, escaped; at most
	// 1,024 bytes of it are kept.
	AnswerFieldReason = "reason"

	// AnswerAllowOnce runs this call (what a bare confirmation does).
	AnswerAllowOnce = "allow_once"
	// AnswerAllowAlways runs this call and the ones the answer covers,
	// for the rest of the session. [Question].AllowAlways says whether it
	// can hold; sent where it cannot, it allows this call once.
	AnswerAllowAlways = "allow_always"
	// AnswerDeny does not run the call.
	AnswerDeny = "deny"
)

// Question is the payload of the confirmation request for one call, for a
// UI that shows more than the hint: what will run, exactly (the
// canonical arguments the answer is bound to), and which answers can
// hold. It is what the ToolConfirmation's Payload holds in the
// adk_request_confirmation call's arguments (under "toolConfirmation").
type Question struct {
	// Tool is the tool's name in the registry.
	Tool string `json:"tool"`
	// Title is the tool's display name.
	Title string `json:"title,omitempty"`
	// Safety is the call's class: "read-only", "mutating", "destructive",
	// "network" or "unspecified".
	Safety string `json:"safety"`
	// Args is the validated arguments as canonical JSON: exactly what runs
	// if the user confirms.
	Args json.RawMessage `json:"args"`
	// Summary is what the call will do, in a sentence or a command line,
	// when the tool says (its preview; the hint has the preview with its
	// diffs, cut to 8 KiB, and the arguments whole).
	Summary string `json:"summary,omitempty"`
	// AllowAlways reports whether an answer of [AnswerAllowAlways] can
	// hold (a call in a session, not an ask-always one).
	AllowAlways bool `json:"allowAlways"`
	// Expires is when the question can no longer be answered.
	Expires time.Time `json:"expires"`
}

// pendingKey is the session-state key under which the signed state of a
// call asked about is kept until the answer resumes it.
func pendingKey(callID string) string { return "tooladk:approval:" + callID }

// ask relays a call deferred to Answerer: the signed state goes into the
// session's state (so any replica that serves the session resumes it),
// the question into ADK's confirmation request, and the model's answer
// says the call has not run.
func ask(ctx agent.ToolContext, res *tool.Result) (map[string]any, error) {
	p := res.Pending
	ar := p.Request
	if err := ctx.State().Set(pendingKey(ctx.FunctionCallID()), p.State); err != nil {
		return map[string]any{"error": notRelayed(res.Tool)}, nil
	}
	q := Question{Tool: ar.Tool, Safety: ar.Safety.String(), Args: ar.Args, Expires: p.Expires,
		AllowAlways: p.Session != "" && ar.Requirement.Mode != tool.RequireAskAlways}
	if ar.DisplayName != ar.Tool {
		q.Title = ar.DisplayName
	}
	if !ar.Preview.Basic {
		q.Summary = cut(ar.Preview.Summary, maxHint)
	}
	if err := ctx.RequestConfirmation(ar.Question(maxHint), q); err != nil {
		return map[string]any{"error": notRelayed(res.Tool)}, nil
	}
	return response(res), nil
}

// answer is the approval answer a call ADK runs with a confirmation
// carries: the state kept when the toolset asked about it, the user's
// decision, and ADK as the answerer; nil when the toolset never asked
// about this call (a confirmation of ADK's own, tool.WithConfirmation
// around the toolset): the call then goes to the host's approver as any
// call does. The state stays in the session's state once used: the
// registry's ApprovalStore refuses it a second time, and a replayed
// confirmation is told so.
func answer(ctx agent.ToolContext) *tool.ApprovalAnswer {
	v, _ := ctx.State().Get(pendingKey(ctx.FunctionCallID()))
	state, _ := v.(string)
	if state == "" {
		return nil
	}
	return &tool.ApprovalAnswer{State: state, Decision: decision(ctx.ToolConfirmation()), Answerer: Answerer}
}

// decision reads the user's answer. It comes from the client unchecked,
// so anything but a confirmation whose payload asks for no less denies.
func decision(c *toolconfirmation.ToolConfirmation) tool.Decision {
	if c == nil {
		return tool.Decision{Kind: tool.DecisionDeny}
	}
	fields, _ := c.Payload.(map[string]any)
	d, _ := fields[AnswerFieldDecision].(string)
	if !c.Confirmed || d == AnswerDeny {
		r, _ := fields[AnswerFieldReason].(string)
		return tool.Decision{Kind: tool.DecisionDeny, Reason: cut(r, maxReason)}
	}
	if d == AnswerAllowAlways {
		// The core keeps "always" only where it applies (a session, not
		// an ask-always call), so it cannot allow more than once where
		// the question did not offer it.
		return tool.Decision{Kind: tool.DecisionAllowAlways}
	}
	return tool.Decision{Kind: tool.DecisionAllowOnce}
}
