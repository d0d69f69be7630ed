package approvalweb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool"
)

// ErrAnswered is the error of [Handler.Answer] when the approval already
// had an answer: from the page, another replica, or the waiting call's own
// "no answer in time".
var ErrAnswered = errors.New("approvalweb: the approval was already answered")

// Reasons of the answers the waiting side gives itself; the model is told
// why the call did not run by the registry, which refuses the expired
// state.
const (
	reasonNoAnswer = "no one answered in time"
	reasonLost     = "the approval request was lost before anyone answered it"
	reasonWithdrew = "the agent stopped waiting for an answer"
)

// Answerer names the page as the party a deferred approval waits for
// ([tool.PendingApproval].Answerer): only the page's answers, and those
// given through [Handler.Answer], resume a call deferred to it.
const Answerer = "approvalweb"

// Approver returns the approver that sends every call it is asked about
// to the page. It defers ([tool.DecisionDefer], to [Answerer]) and waits
// for the answer itself ([tool.Awaiter]): the call is offered on the page
// and waits there, within the approval timeout, for a person's answer on
// any replica that shares the store, then runs or not. So the page
// decides on every path a call arrives by (a direct call, a batch, a
// provider loop, an MCP client, an agent framework), and no other
// frontend answers in its place.
//
//	reg.Use(tool.Approval(&tool.ApprovalOptions[State]{Approver: page.Approver()}))
//
// A host that ends the model's turn instead of holding the call sets
// [tool.Request.ReturnPending]: the call then ends at once,
// [tool.StatusAwaitingApproval], and the host offers Result.Pending
// ([Handler.Offer]) and resumes the call with the answer of
// [Handler.Await], here or on another replica.
func (h *Handler) Approver() tool.Approver {
	return pageApprover{h}
}

// pageApprover is the page's [tool.Approver] and [tool.Awaiter].
type pageApprover struct{ h *Handler }

func (pageApprover) Approve(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
	return tool.Decision{Kind: tool.DecisionDefer, Answerer: Answerer}, nil
}

func (a pageApprover) Await(ctx context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
	return a.h.Await(ctx, p)
}

// Offer puts p, a call's Result.Pending, on the page of the people who may
// see its session, until it is answered or expires. Offering it again
// changes nothing. A host that does not wait for the answer in the same
// process (it ends the model's turn) offers, and later calls Await, here
// or on another replica, to read the answer.
func (h *Handler) Offer(ctx context.Context, p *tool.PendingApproval) error {
	if p == nil || p.State == "" {
		return errors.New("approvalweb: Offer needs a call's Result.Pending")
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if err := h.store.Offer(ctx, p, p.Expires.Add(retention)); err != nil {
		return fmt.Errorf("approvalweb: the approval could not be offered: %w", err)
	}
	h.changed()
	return nil
}

// Await offers p, a call's Result.Pending, on the page, and waits for the
// answer: a person's on any replica that shares the store, or one given
// through [Handler.Answer]. It returns the answer to put in
// [tool.Request.Approval] of the call that resumes p: the same tool,
// arguments and session.
//
//	res := reg.Call(ctx, state, req)
//	if res.Status == tool.StatusAwaitingApproval {
//		answer, err := page.Await(ctx, res.Pending)
//		if err != nil {
//			return err
//		}
//		req.Approval = answer
//		res = reg.Call(ctx, state, req)
//	}
//
// When p expires unanswered, Await answers it itself, with a deny, and
// returns that: the resumed call then does not run, and the model is
// told no one answered in time. Exactly one answer counts, whoever gives
// it first. When ctx is done first, Await withdraws p from the page and
// returns ctx's cause. It returns an error, too, when p cannot be offered
// (the store refused it, or cannot be reached); the call has not run.
func (h *Handler) Await(ctx context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
	if err := h.Offer(ctx, p); err != nil {
		return nil, err
	}
	defer h.watch(p)()
	// When no open page may answer it for unwatchedAfter, say so, once.
	var unwatched time.Time // since when; zero while a page may answer it
	warned := false
	timer := time.NewTimer(h.poll)
	defer timer.Stop()
	for {
		wake := h.changes.wait() // before the look, so that no change is missed
		if d, ok := h.answerOf(ctx, p); ok {
			return &tool.ApprovalAnswer{State: p.State, Decision: d, Answerer: Answerer}, nil
		}
		if !warned {
			switch now := time.Now(); {
			case h.watched(p.Session):
				unwatched = time.Time{}
			case unwatched.IsZero():
				unwatched = now
			case now.Sub(unwatched) >= unwatchedAfter:
				h.warnUnwatched(ctx, p)
				warned = true
			}
		}
		if !time.Now().Before(p.Expires) {
			d := tool.Decision{Kind: tool.DecisionDeny, Reason: reasonNoAnswer}
			if first, err := h.answer(ctx, p.State, d); first || err != nil {
				// Unrecorded or not, the state has expired: the deny stands.
				return &tool.ApprovalAnswer{State: p.State, Decision: d, Answerer: Answerer}, nil
			}
			continue // someone answered at the last moment: read theirs
		}
		next := min(h.poll, time.Until(p.Expires))
		if !warned && !unwatched.IsZero() {
			next = min(next, max(time.Until(unwatched.Add(unwatchedAfter)), 0))
		}
		timer.Reset(next)
		select {
		case <-ctx.Done():
			// Off the page, so that no one answers a call no one waits for.
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
			_, _ = h.answer(wctx, p.State, tool.Decision{Kind: tool.DecisionDeny, Reason: reasonWithdrew})
			cancel()
			return nil, context.Cause(ctx)
		case <-wake:
		case <-timer.C:
		}
	}
}

// answerOf returns p's answer, when it has one. An approval the store no
// longer keeps (it lost it) is answered with a deny: nothing can answer
// it any more.
func (h *Handler) answerOf(ctx context.Context, p *tool.PendingApproval) (tool.Decision, bool) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	_, d, err := h.store.Get(ctx, p.State)
	switch {
	case errors.Is(err, tool.ErrPendingGone):
		return tool.Decision{Kind: tool.DecisionDeny, Reason: reasonLost}, true
	case err != nil || d == nil:
		return tool.Decision{}, false // a store that does not answer is asked again
	}
	return *d, true
}

// Answer answers the approval of state (PendingApproval.State) from the
// host itself: a terminal, a chat command, a rule. It counts as the
// page's answers do: once, and the first answer wins; the approval leaves
// every page at once. It returns [ErrAnswered] when the approval already
// had an answer, and an error wrapping [tool.ErrPendingGone] when no
// approval is kept under state.
func (h *Handler) Answer(ctx context.Context, state string, d tool.Decision) error {
	first, err := h.answer(ctx, state, d)
	switch {
	case err != nil:
		return fmt.Errorf("approvalweb: %w", err)
	case !first:
		return ErrAnswered
	}
	return nil
}

func (h *Handler) answer(ctx context.Context, state string, d tool.Decision) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	first, err := h.store.Answer(ctx, state, d)
	if first {
		h.changed()
	}
	return first, err
}

// Pending returns the approvals that wait for an answer in session (as it
// was given to the calls: [tool.PendingApproval].Session), those that
// expire first first: what the page lists for that session, to show or
// answer from the host's own code ([Handler.Answer] with their State),
// here or on any replica that shares the store. A session holds at most
// [tool.MaxPendingPerSession] of them (a store shared by replicas may let
// a few more in at once).
func (h *Handler) Pending(ctx context.Context, session string) ([]*tool.PendingApproval, error) {
	ps, err := h.list(ctx, session)
	if err != nil {
		return nil, fmt.Errorf("approvalweb: the pending approvals could not be read: %w", err)
	}
	return sortWaiting(ps, time.Now()), nil
}
