package toolmcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolbelt-go/tool"
)

// ErrCannotAsk is the host-side cause (under [tool.ErrApproverFailed]) of
// a call that needed approval when the MCP client could not ask its user:
// it does not support elicitation, the transport cannot carry a request
// from the server (stateless HTTP), or the elicitation failed. The call
// does not run; the model is told why.
var ErrCannotAsk = errors.New("mcp: the client cannot ask its user for approval")

// errNoElicitation is the cause, under [ErrCannotAsk], of a call that
// needed approval from a client of protocol 2026-07-28 or later that did
// not declare elicitation: that client gets the protocol's own error for
// it (MissingRequiredClientCapabilityError, SEP-2575).
var errNoElicitation = errors.New("it did not declare the elicitation capability")

// Answerer names the MCP client as the party a deferred approval waits
// for ([tool.PendingApproval].Answerer). Only calls deferred to it are
// sent to the client as input requests, and only its answers (the retried
// tools/call) resume them: the client answers only when the host chose
// [Approver].
const Answerer = "mcp"

// ApproverOptions configure [Approver].
type ApproverOptions struct {
	// Fallback answers calls that did not come through [AddTools] (the
	// same registry used by a local agent loop). Nil denies them. A
	// Fallback that waits for its own deferrals ([tool.Awaiter], as the
	// approval page's approver does) is waited for on those paths, as it
	// would be were it the registry's approver.
	Fallback tool.Approver
}

// Approver returns a [tool.Approver] that asks the MCP client's user,
// for use in the registry's approval middleware:
//
//	reg.Use(tool.Approval(&tool.ApprovalOptions[State]{Approver: toolmcp.Approver(nil)}))
//
// It asks with the approval form: a required field [ApprovalFieldDecision]
// whose value is [ApprovalAllowOnce], [ApprovalAllowAlways] or
// [ApprovalDeny], and an optional [ApprovalFieldReason] (the schema is
// shown with [ApprovalInputKey]). How it asks depends on the protocol
// version the client speaks. Before 2026-07-28 it sends the form as an
// elicitation during the call and waits for the answer, within the
// approval timeout. From 2026-07-28 on a server may not send requests of
// its own during a call, so it defers ([tool.DecisionDefer]): the
// tools/call result carries the same form as the input request
// [ApprovalInputKey] and the call's signed state as requestState, and the
// client's retry with the answer resumes the call, on any replica that
// shares the registry's keyring (see [AddTools] for what each outcome of
// the retry is).
//
// It fails closed: a client without the elicitation capability, a
// transport that cannot carry the question, an error, a decline, a
// dismissed form and an answer that is not one of the choices all mean
// the call does not run, and the model is told which. A client on
// 2026-07-28 or later without the elicitation capability gets the
// protocol error that version requires instead (-32021, missing client
// capability, naming elicitation).
func Approver(opts *ApproverOptions) tool.Approver {
	a := &approver{}
	if opts != nil {
		a.fallback = opts.Fallback
	}
	return a
}

type approver struct {
	fallback tool.Approver
}

// Await waits for the deferrals of a Fallback that waits for its own
// ([tool.Awaiter]); a deferral to the MCP client is not waited for: the
// client answers it in its retried tools/call.
func (a *approver) Await(ctx context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
	if aw, ok := a.fallback.(tool.Awaiter); ok && p.Answerer != Answerer {
		return aw.Await(ctx, p)
	}
	return nil, tool.ErrNotAwaited
}

func (a *approver) Approve(ctx context.Context, ar tool.ApprovalRequest) (tool.Decision, error) {
	req, ok := RequestFromContext(ctx)
	if !ok || req.Session == nil {
		if a.fallback != nil {
			return a.fallback.Approve(ctx, ar)
		}
		return tool.Decision{Kind: tool.DecisionDeny, Reason: "the call did not come from an MCP client that could be asked"}, nil
	}
	if multiRoundTrip(req) {
		// SEP-2322: ask only for input the client declared it can give.
		if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
			return tool.Decision{}, fmt.Errorf("%w: %w", ErrCannotAsk, errNoElicitation)
		}
		return tool.Decision{Kind: tool.DecisionDefer, Answerer: Answerer}, nil
	}
	res, err := req.Session.Elicit(ctx, approvalForm(ar))
	if err != nil {
		if ctx.Err() != nil {
			return tool.Decision{}, context.Cause(ctx) // the wait ended: the core says why
		}
		return tool.Decision{}, fmt.Errorf("%w: %w", ErrCannotAsk, err)
	}
	return decisionFrom(res), nil
}
