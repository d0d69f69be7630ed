package tool

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool/keyring"
)

// PendingApproval is the host view of a call that waits for an answer
// given later ([DecisionDefer]): show Request to the person, then call
// again with the same tool, arguments and session, and an
// [ApprovalAnswer] carrying State.
type PendingApproval struct {
	// State is opaque and signed with the registry's [keyring.Keyring]: bound to
	// the tool, the canonical arguments, the session and Expires, and good
	// for one answer. Any replica sharing the keyring (and, to refuse a
	// second use everywhere, the [ApprovalStore]) can resume the call.
	State string
	// Request is what the person must be shown, as an approver would be.
	Request ApprovalRequest
	// Expires is when State stops being accepted.
	Expires time.Time
	// Session is the session the call belongs to, as given (Request.Session
	// is the same, made visible for showing). Compare sessions with this
	// field, never with the escaped one: two different sessions can look
	// the same once escaped.
	Session string
	// Answerer is who may answer ([Decision].Answerer of the approver that
	// deferred): an answer resumes the call only when its
	// [ApprovalAnswer].Answerer is this. Empty means the host's own code.
	Answerer string
}

// ApprovalAnswer is a later answer to a call that ended
// [StatusAwaitingApproval]: it goes in [Request.Approval] of the call that
// resumes it, with the same tool, arguments and session.
//
// The resumed call goes through the pipeline again. Preflight comes first:
// arguments it refuses end [StatusInvalid] with the retry hint, the answer
// unused. Then the [Approval] middleware asks its policy again: a policy
// that now denies the call ends it [StatusDenied] ([ErrDenied]), and one
// that now allows it without asking runs it, the state left unused. (A
// registry without Approval ignores the answer: nothing there asks. A dry
// run ([Request.DryRun]) uses and claims no answer. With
// [RegistryOptions.Records], a call whose ID already ran in its session is
// answered from its record before approval.) When
// the policy asks, the state is checked and claimed, and the call ends in
// one of these outcomes, each with its status, its cause for the host
// (errors.Is), and what the model reads:
//
//   - Allowed: the answer is [DecisionAllowOnce] or [DecisionAllowAlways].
//     The tool runs, and the result is its own (StatusOK when it
//     succeeds). "Allow always" is remembered for the session, as for an
//     answer given at once.
//   - Edited: the answer is [DecisionEdit]. The edited arguments are a new
//     call: they go through preflight, are classified and put to the
//     policy again, and the tool runs with them; the result is its own
//     (StatusOK when it succeeds). When the edit's class or requirement
//     is not the one the person was shown, the approver is asked again
//     about the edited call first (and a deferring approver defers it
//     again, for the edited arguments).
//   - Edit refused: the edited arguments fail preflight. StatusInvalid, an
//     [*ArgsError]; the model reads "The approver edited the arguments of
//     this call … and the edit is not valid", then the retry hint.
//   - Edit denied: the policy does not allow the edited call (a
//     destructive command under [DenyDestructivePolicy], a write under
//     [ReadOnlyPolicy]): a denial wins over the edit. StatusDenied,
//     [ErrDenied]; the model reads "the edited call was not allowed to
//     run".
//   - Denied: the answer is [DecisionDeny] ([DecisionDefer] and unknown kinds
//     count as a deny). StatusDenied, [ErrDenied]; the model reads "was not
//     allowed to run: the user said: " and the reason, or "no reason given".
//   - Replayed: the state was claimed before, by this registry or by a
//     replica that shares its [ApprovalStore]. StatusDenied,
//     [ErrApprovalState]; the model reads "its approval answer was already
//     used".
//   - Expired: the state is past [PendingApproval].Expires. StatusDenied,
//     [ErrApprovalState] wrapping [keyring.ErrExpired]; the model reads "its
//     approval answer came too late".
//   - Other arguments: the call's canonical arguments are not those the
//     state was given for. StatusDenied, [ErrApprovalState] wrapping
//     [keyring.ErrOtherDigest]; the model reads "its approval answer was
//     given for other arguments".
//   - Changed: the call is not what the person was shown: its class or
//     its requirement changed before the answer came (a path that became
//     a link leading outside the workspace). An answer that denies
//     stands; any other is not applied: the approver is asked again,
//     about the call as it is now, and its answer decides, as for a call
//     asked at once (StatusDenied when it denies, and the model reads
//     "the user said: " and the reason; StatusAwaitingApproval when it
//     defers again, for the call with its new class). An approver that
//     waits ([Awaiter]) is held to the same: the call is assessed again
//     when its answer comes.
//   - Other answerer: the answer's Answerer is not the party the call was
//     deferred to ([PendingApproval].Answerer): an MCP client answering a
//     call deferred to the approval page, say. StatusDenied,
//     [ErrApprovalState] wrapping [ErrOtherAnswerer]; the model reads "its
//     approval answer came from someone other than the one asked".
//   - Unusable: the state is altered, not a state, for another tool or
//     session, or signed with a key the keyring no longer holds.
//     StatusDenied, [ErrApprovalState] wrapping the keyring's sentinel; the
//     model reads "its approval answer cannot be used (it is altered, or
//     for another call)".
//   - Unchecked: the store failed, or did not answer within
//     [RegistryOptions].HookTimeout, so the claim was not recorded.
//     StatusDenied, [ErrApprovalState]; the model reads "its approval
//     answer could not be checked". A claim that cannot be recorded runs
//     nothing.
//   - Store lost: the store may have lost what it held (a Redis restarted
//     without persistence, flushed, or evicting keys), so whether the
//     answer was used before cannot be told; it fails closed.
//     StatusDenied, [ErrApprovalState] wrapping [ErrStoreLostData]; the
//     model reads "the store of approval answers may have lost what it
//     held".
//   - Cancelled: the call's context ended before the claim was recorded.
//     [StatusCanceled] ([StatusTimedOut] when its deadline passed), the
//     context's cause; the model reads "was cancelled while it waited for
//     approval".
//
// An answer is used by a call that runs: when an answer let the call
// through and its tool did not start (its tool busy at its limit, a later
// middleware refusing it, its ID running elsewhere), the claim is given
// back ([ApprovalReleaser]), so that the same answer resumes the call when
// it is made again.
//
// Every outcome but Allowed, Edited and a Changed call allowed when asked
// again runs nothing, and each says so to the model ("It did not run"). A
// refused state is StatusDenied, not
// StatusInvalid: it is not the model's to fix (it never sees the state),
// and sending the same call again does not make it run.
type ApprovalAnswer struct {
	// State is PendingApproval.State, exactly as it was given.
	State string
	// Decision is the person's answer. DecisionDefer is not an answer and
	// counts as a deny.
	Decision Decision
	// Answerer is who gave the answer, and must be the
	// [PendingApproval].Answerer the call was deferred to: the frontend
	// that relayed it sets it (toolmcp sets its own name on an MCP
	// client's answer, approvalweb its own on the page's). Empty means the
	// host's own code.
	Answerer string
}

// approvalStateTool is the tool field of an approval state's signed
// claims: the prefix keeps a page cursor from ever passing for an approval
// state (tool names cannot hold a NUL byte).
func approvalStateTool(name string) string { return "\x00approval\x00" + name }

// deferred makes the signed pending approval of a call whose approver
// answers later, assessed as shown; the result is set instead when it
// cannot be made. The state's signed claims carry a fresh nonce, a digest
// of the class and requirement the person is shown, the state's expiry,
// and the answerer's name, so that only the answerer's answer resumes the
// call, only while the call is what the person was shown, and its claim
// outlives the state on whichever replica makes it.
func (a *approval[C]) deferred(call *Call[C], ar ApprovalRequest, session, answerer string, shown assessment) (*PendingApproval, *Result) {
	keys := call.runtime().cursorKeyring()
	signed := make([]byte, stateHead, stateHead+len(answerer))
	if _, err := rand.Read(signed[:nonceSize]); err != nil {
		return nil, misconfigured(call.Name, err)
	}
	exp := keys.ExpiryIn(a.opts.Timeout)
	d := shown.digest()
	copy(signed[nonceSize:], d[:])
	binary.BigEndian.PutUint64(signed[nonceSize+shownSize:], uint64(exp.UnixMilli()))
	state, err := keys.Sign(keyring.Claims{Purpose: approvalStateTool(call.Name), Session: session, Digest: sha256.Sum256(call.Args()),
		Expires: exp, State: append(signed, answerer...)})
	if err != nil {
		return nil, misconfigured(call.Name, err)
	}
	call.emit(Event{Kind: EventApprovalDecided, Approval: &ApprovalInfo{Pending: true, Reason: "the answer will come later"}})
	return &PendingApproval{State: state, Request: ar, Expires: exp, Session: session, Answerer: answerer}, nil
}

// An approval state's signed claims: a random part (nonceSize), the
// digest of what was shown (shownSize), the state's expiry in Unix
// milliseconds (8 bytes), then the answerer's name.
const (
	nonceSize = 16
	shownSize = 8
	stateHead = nonceSize + shownSize + 8
)

// claimMargin is how long a resumed approval's claim outlives its state:
// more than the clocks of replicas sharing a store are apart.
const claimMargin = time.Minute

// digest is a digest of what a person is shown of a call's assessment:
// its class and its requirement (mode, reason, scope, as given).
func (as assessment) digest() [shownSize]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	h.Write([]byte{byte(as.safety), byte(as.req.Mode)})
	for _, s := range []string{as.req.Reason, as.req.Scope} {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	var d [shownSize]byte
	copy(d[:], h.Sum(nil))
	return d
}

// resume checks answer, the later answer to a deferred approval, and when
// it holds carries it out on a call assessed as as; round counts the edits
// that led here. The state must be signed by this registry's keyring, for
// this tool, these canonical arguments and this session, unexpired, given
// by the party it was deferred to, and claimed for the first time.
func (a *approval[C]) resume(ctx context.Context, call *Call[C], next Handler[C], session string, as assessment, answer *ApprovalAnswer, round int) *Result {
	keys := call.runtime().cursorKeyring()
	signed, err := keys.Verify(answer.State, keyring.Claims{Purpose: approvalStateTool(call.Name), Session: session, Digest: sha256.Sum256(call.Args())})
	if err != nil {
		return deniedResult(call.Name, fmt.Errorf("%w: %w", ErrApprovalState, err), whyStateRefused(err))
	}
	if len(signed) < stateHead || string(signed[stateHead:]) != answer.Answerer {
		return deniedResult(call.Name, fmt.Errorf("%w: %w", ErrApprovalState, ErrOtherAnswerer), whyOtherAnswerer)
	}
	shown := as.digest()
	changed := !bytes.Equal(signed[nonceSize:nonceSize+shownSize], shown[:])
	id := approvalStateTool(call.Name) + "\x00" + hex.EncodeToString(signed)
	// The claim lasts as long as the state does, whatever this replica's
	// Timeout: a replica with a shorter one must not let it lapse while
	// the state can still be used on another.
	expires := time.UnixMilli(int64(binary.BigEndian.Uint64(signed[nonceSize+shownSize : stateHead])))
	mem, exp := a.opts.Store, expires.Add(claimMargin)
	type claim struct {
		first bool
		err   error
	}
	c, outcome := callHook(ctx, call.runtime(), func(ctx context.Context) claim {
		first, err := mem.Claim(ctx, session, id, exp)
		return claim{first, err}
	})
	first, err := c.first, c.err
	if outcome != hookOK {
		err = errors.New("the approval store did not answer")
	}
	switch {
	case err != nil && ctx.Err() != nil:
		// The claim was cut short by the call's end, not refused.
		return canceledWaitingResult(ctx, call.Name)
	case errors.Is(err, ErrStoreLostData):
		return deniedResult(call.Name, fmt.Errorf("%w: %w", ErrApprovalState, err), whyStoreLost)
	case err != nil:
		return deniedResult(call.Name, fmt.Errorf("%w: %w", ErrApprovalState, err), whyUnchecked)
	case !first:
		return deniedResult(call.Name, fmt.Errorf("%w: already used", ErrApprovalState), whyUsed)
	}
	res := a.answer(ctx, call, next, session, as, answer, round, changed)
	if !call.st.started && call.st.approval.seal.sealed {
		// The answer let the call through, and its tool did not start:
		// the answer is not used.
		a.release(ctx, call.runtime(), session, id)
	}
	return res
}

// release gives back the claim id of session, if the store can.
func (a *approval[C]) release(ctx context.Context, rt *runtimeConfig, session, id string) {
	r, ok := a.opts.Store.(ApprovalReleaser)
	if !ok {
		return
	}
	_, _ = callHook(context.WithoutCancel(ctx), rt, func(ctx context.Context) error { return r.Release(ctx, session, id) })
}

// answer carries out a claimed answer on a call assessed as as, which
// changed says is not what the person was shown.
func (a *approval[C]) answer(ctx context.Context, call *Call[C], next Handler[C], session string, as assessment, answer *ApprovalAnswer, round int, changed bool) *Result {
	if changed && as.verdict == VerdictAsk {
		// The call is not what the person was shown: its class or its
		// requirement changed while the answer came (a path that now
		// leads elsewhere). A deny stands; anything else is asked again,
		// about the call as it is now.
		switch d := answer.Decision; {
		case d.Kind == DecisionEdit:
			return a.edited(ctx, call, next, d.Args, session, assessment{}, round) // shown: nothing it can match
		case d.Kind == DecisionAllowOnce || d.Kind == DecisionAllowAlways:
			if round >= maxEditRounds {
				return deniedResult(call.Name, ErrDenied, whyChangedTooOften(maxEditRounds))
			}
			return a.askFor(ctx, call, next, session, as, round+1)
		}
	}
	return a.apply(ctx, call, next, answer.Decision, session, as, round)
}
