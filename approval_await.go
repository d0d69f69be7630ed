package tool

import (
	"context"
	"errors"
)

// Awaiter is implemented by an approver whose deferrals it can also wait
// for: it answers [DecisionDefer], and then, given the signed
// [PendingApproval] the call made of it, waits for the answer and returns
// it (the approval page does both: it offers the call on the page and
// waits for a person's answer on any replica).
//
// When the approver of an [Approval] middleware is an Awaiter, a call it
// defers waits for the answer inside the pipeline, within
// ApprovalOptions.Timeout, and then runs or not, as a call answered at
// once does; so a call that arrives by a path that cannot hand a pending
// approval back to the host (an MCP client, a provider loop, an agent
// framework's runner, a batch) waits for the approver the host chose
// instead of being answered by someone else. A caller that takes the
// pending approval back itself, to end the model's turn and resume the
// call later, sets [Request.ReturnPending].
//
// Await returns an answer for p.State, answered by p.Answerer, or an
// error when there is none (ctx is done, the approval could not be
// offered); the call then does not run. It should return when ctx is
// done. An approver that waits for some of its deferrals only (one that
// chooses between approvers per call, as toolmcp.Approver does with its
// Fallback) returns [ErrNotAwaited] for the others: the call then ends
// [StatusAwaitingApproval] at once, as with an approver that does not
// wait.
type Awaiter interface {
	Await(ctx context.Context, p *PendingApproval) (*ApprovalAnswer, error)
}

// ErrNotAwaited is what an [Awaiter] returns (or wraps) for a deferral it
// does not wait for: one whose answer the frontend the call came by
// carries back in a later call. The call ends [StatusAwaitingApproval]
// with its pending approval.
var ErrNotAwaited = errors.New("tool: the approver does not wait for this deferral")

// await waits, on a goroutine of its own as ask does, for the answer to a
// call its approver deferred and can wait for. A panic is an error, as is
// an Awaiter that returns no answer.
func (a *approval[C]) await(ctx context.Context, rt *runtimeConfig, aw Awaiter, p *PendingApproval) (*ApprovalAnswer, error) {
	type answer struct {
		ans *ApprovalAnswer
		err error
	}
	ans, outcome := callHookFor(ctx, rt, 0, func(ctx context.Context) answer {
		got, err := aw.Await(ctx, p)
		return answer{got, err}
	})
	switch {
	case outcome == hookPanicked:
		return nil, &PanicError{Value: "the approver panicked while it waited for an answer"}
	case outcome == hookTimedOut, ans.err == nil && ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case ans.err != nil:
		return nil, ans.err
	case ans.ans == nil:
		return nil, errors.New("the approver's wait ended with no answer")
	}
	return ans.ans, nil
}
