package tool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
)

// defaultApprovalTimeout bounds the wait for an approver when
// ApprovalOptions leave it unset: long enough for a person to read a diff.
const defaultApprovalTimeout = 10 * time.Minute

// ApprovalOptions configure the [Approval] middleware.
type ApprovalOptions[C any] struct {
	// Policy maps each call to allow, deny or ask. Nil means
	// [AskForWritesPolicy].
	Policy Policy
	// Approver answers the calls the policy asks about. Nil denies them:
	// approval fails closed.
	Approver Approver
	// Timeout bounds the wait for the approver, and how long a deferred
	// approval ([DecisionDefer]) may be answered. Zero means
	// 10 minutes. The wait does not count against the tool's
	// own timeout.
	Timeout time.Duration
	// Store keeps "allow always" answers and the claims of resumed
	// approvals. Nil means a new [NewMemoryApprovalStore] for this middleware.
	Store ApprovalStore
	// RememberFor is how long an "allow always" answer holds. Zero means
	// 12 hours.
	RememberFor time.Duration
	// Session names the session a call belongs to, which "allow always" is
	// remembered for. Nil means [Request.Session]. A call whose session is
	// empty belongs to no conversation: nothing is remembered for it, and
	// no earlier answer applies to it.
	Session func(call *Call[C]) string
}

// defaultRememberFor is how long an "allow always" answer holds when
// ApprovalOptions leave it unset: a working day.
const defaultRememberFor = 12 * time.Hour

// Approval returns the middleware that decides whether a call may run:
// classify the call, ask the policy, and if it says ask, describe the call
// and ask the approver. In a Registry it runs after preflight, so the
// approver only ever sees arguments that passed validation. It fails
// closed: a deny, an approver error or panic, an approver that does not
// answer in time and a cancelled wait all mean the tool does not run, each
// with its own result.
//
// Who answers what:
//
//	the tool      its Definition's Safety and Tier; per call, a Classifier's
//	              class and a Requirer's Requirement (auto, ask, ask-always, scoped)
//	the policy    a Verdict from all that: allow, deny or ask (AskForWritesPolicy)
//	the store     whether an earlier "allow always" covers the call (ApprovalStore)
//	the person    a Decision, through the Approver: allow once or always, edit,
//	              deny, or defer (answered later, ApprovalAnswer)
//	the result    StatusOK when the tool ran; StatusDenied, StatusCanceled or
//	              StatusAwaitingApproval when it did not
//
// A tier says whether the policy asks, not how often: a TierConfirm tool is
// asked about whatever its class, and an "allow always" answer covers it
// for the session, as for any call that is asked about. A call that must be
// asked about every time says so with RequireAskAlways.
//
// What runs is what was approved: the approval is bound to a hash of the
// canonical arguments and to the call ID, and checked again just before
// the tool starts (the seal stage), so a middleware that
// changes the arguments after approval, or a call that reuses another's
// approval, does not run.
func Approval[C any](opts *ApprovalOptions[C]) Middleware[C] {
	a := &approval[C]{}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.Policy == nil {
		a.opts.Policy = AskForWritesPolicy()
	}
	if a.opts.Timeout <= 0 {
		a.opts.Timeout = defaultApprovalTimeout
	}
	if a.opts.Store == nil {
		a.opts.Store = NewMemoryApprovalStore(0)
	}
	return func(next Handler[C]) Handler[C] {
		return func(ctx context.Context, call *Call[C]) *Result {
			return a.handle(ctx, call, next)
		}
	}
}

type approval[C any] struct {
	opts ApprovalOptions[C]
}

// assessment is what approval makes of a call's current arguments: its
// safety class, its requirement, and the policy's verdict on them. An
// edit is assessed again, as a new call is.
type assessment struct {
	safety  Safety
	req     Requirement
	verdict Verdict
	// unsure says a hook of the tool did not answer, so the worst was
	// assumed (Destructive, asked every time): nothing it could become is
	// worse than what the person was shown.
	unsure bool
}

// assess classifies the call's arguments and puts them to the policy.
func (a *approval[C]) assess(ctx context.Context, call *Call[C]) assessment {
	def := call.Definition()
	c, _ := As[Classifier](call.Tool())
	safety, sure := classified(ctx, call.runtime(), def.Safety, c, classifierInput(c, call))
	req, reqSure := requirement(ctx, call)
	in := PolicyInput{Tool: call.Name, Safety: safety, Static: def.Safety, Tier: def.Tier, Requirement: req}
	return assessment{safety: safety, req: req, verdict: a.opts.Policy.Decide(in), unsure: !sure || !reqSure}
}

func (a *approval[C]) handle(ctx context.Context, call *Call[C], next Handler[C]) *Result {
	// A middleware before this one may have changed the arguments: the
	// policy and the person see arguments that passed preflight.
	if res := revalidate(ctx, call); res != nil {
		return res
	}
	as := a.assess(ctx, call)
	if call.DryRun {
		return a.dryRun(ctx, call, next, as.verdict, as.safety, as.req)
	}
	switch as.verdict {
	case VerdictAllow:
		return a.run(ctx, call, next)
	case VerdictAsk:
	default:
		return deniedResult(call.Name, ErrDenied, whyPolicy(as.safety))
	}
	session := a.session(call)
	if answer := call.st.approval.answer; answer != nil {
		return a.resume(ctx, call, next, session, as, answer, 0)
	}
	return a.askFor(ctx, call, next, session, as, 0)
}

// askFor asks about a call the policy asks about, unless an earlier
// "allow always" covers it; round counts the edits that led here.
func (a *approval[C]) askFor(ctx context.Context, call *Call[C], next Handler[C], session string, as assessment, round int) *Result {
	rt := call.runtime()
	key, remember := memoryKey(call.Name, as.safety, as.req)
	remember = remember && session != "" // no conversation, nothing shared
	if remember && a.allowed(ctx, rt, session, key) {
		return a.run(ctx, call, next)
	}
	if a.opts.Approver == nil {
		return deniedResult(call.Name, ErrNoApprover, whyNoApprover)
	}
	def := call.Definition()
	canonical := call.Args()
	ar := ApprovalRequest{
		Tool: call.Name, DisplayName: text.VisibleExact(def.DisplayName(), true), CallID: text.VisibleExact(call.ID, true),
		Session: text.VisibleExact(session, true), Args: canonical, ArgsText: text.Bound(text.VisibleExact(string(canonical), false), maxPreviewText),
		Safety: as.safety, Tier: def.Tier, Requirement: as.req.visible(),
	}

	wctx, cancel := context.WithTimeoutCause(ctx, a.opts.Timeout, ErrApprovalTimeout)
	defer cancel()
	ar.Preview = describe(wctx, rt, call, ar.ArgsText)
	call.emit(Event{Kind: EventApprovalRequested, Approval: &ApprovalInfo{Reason: ar.Requirement.Reason}})
	d, err := a.ask(wctx, rt, ar)
	if err != nil {
		call.emit(Event{Kind: EventApprovalDecided, Approval: &ApprovalInfo{Reason: err.Error()}})
		return a.failed(ctx, wctx, call.Name, err)
	}
	if d.Kind != DecisionDefer {
		return a.answered(ctx, call, next, d, session, as, round)
	}
	p, res := a.deferred(call, ar, session, d.Answerer, as)
	if res != nil {
		return res
	}
	aw, ok := a.opts.Approver.(Awaiter)
	if !ok || call.st.approval.returnPending {
		return awaitingResult(call.Name, p)
	}
	answer, err := a.await(wctx, rt, aw, p)
	switch {
	case errors.Is(err, ErrNotAwaited) && ctx.Err() == nil:
		return awaitingResult(call.Name, p)
	case err != nil:
		return a.failed(ctx, wctx, call.Name, err)
	}
	// The world may have changed while the person read: the answer holds
	// for the call as it is now only if it is still what they were shown
	// (resume checks), and the policy has its say again.
	now := as
	if !as.unsure { // a hook that did not answer: the worst was shown already
		now = a.assess(ctx, call)
	}
	if now.verdict != VerdictAsk && now.verdict != VerdictAllow {
		return deniedResult(call.Name, ErrDenied, whyPolicy(now.safety))
	}
	return a.resume(ctx, call, next, session, now, answer, round)
}

// answered carries out the decision of an approver that answered at once,
// on a call shown to it assessed as shown. An answer may take minutes (a
// person at a terminal, an MCP client's elicitation): when the call has
// become another kind meanwhile, an answer that lets it run is not applied,
// and the approver is asked again about the call as it is now; a deny
// stands, and an edit is assessed as a new call, against what was shown.
func (a *approval[C]) answered(ctx context.Context, call *Call[C], next Handler[C], d Decision, session string, shown assessment, round int) *Result {
	if shown.unsure || (d.Kind != DecisionAllowOnce && d.Kind != DecisionAllowAlways) {
		return a.apply(ctx, call, next, d, session, shown, round)
	}
	now := a.assess(ctx, call)
	switch {
	case now.verdict != VerdictAsk && now.verdict != VerdictAllow:
		return deniedResult(call.Name, ErrDenied, whyPolicy(now.safety))
	case now.verdict == VerdictAsk && (now.safety != shown.safety || now.req != shown.req):
		if round >= maxEditRounds {
			return deniedResult(call.Name, ErrDenied, whyChangedTooOften(maxEditRounds))
		}
		return a.askFor(ctx, call, next, session, now, round+1)
	}
	return a.apply(ctx, call, next, d, session, now, round)
}

// apply carries out an approver's decision, given now or resumed, on a
// call assessed as as; round counts the edits that led here.
func (a *approval[C]) apply(ctx context.Context, call *Call[C], next Handler[C], d Decision, session string, as assessment, round int) *Result {
	call.emit(Event{Kind: EventApprovalDecided, Approval: &ApprovalInfo{Allowed: d.Kind != DecisionDeny && d.Kind <= DecisionEdit, Reason: text.Visible(d.Reason, false)}})
	switch d.Kind {
	case DecisionAllowOnce:
	case DecisionAllowAlways:
		if key, remember := memoryKey(call.Name, as.safety, as.req); remember && session != "" {
			// Not remembering only means asking again; it never allows more.
			mem, exp := a.opts.Store, time.Now().Add(a.rememberFor())
			callHook(ctx, call.runtime(), func(ctx context.Context) error { return mem.Remember(ctx, session, key, exp) })
		}
	case DecisionEdit:
		return a.edited(ctx, call, next, d.Args, session, as, round)
	default: // DecisionDeny, a DecisionDefer given as an answer, or a kind from the future
		reason := d.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return deniedResult(call.Name, fmt.Errorf("%w: %s", ErrDenied, text.Cut(reason, 1024)), whyUserSaid(reason))
	}
	return a.run(ctx, call, next)
}

// session is the session "allow always" is remembered for.
func (a *approval[C]) session(call *Call[C]) string {
	if a.opts.Session != nil {
		return a.opts.Session(call)
	}
	return call.Session
}

func (a *approval[C]) rememberFor() time.Duration {
	if a.opts.RememberFor > 0 {
		return a.opts.RememberFor
	}
	return defaultRememberFor
}

// requirementOf asks the tool how this call must be approved. A Requirer
// that panics or does not answer in time asks every time.
func requirementOf[C any](ctx context.Context, call *Call[C]) Requirement {
	req, _ := requirement(ctx, call)
	return req
}

// requirement is requirementOf, and whether the tool answered (false:
// asked every time, as the worst).
func requirement[C any](ctx context.Context, call *Call[C]) (Requirement, bool) {
	var fn func(context.Context) Requirement
	if r, ok := As[RequirerFor[C]](call.Tool()); ok {
		fn = func(context.Context) Requirement { return r.RequirementFor(call) }
	} else if r, ok := As[Requirer](call.Tool()); ok {
		v := call.tree()
		fn = func(context.Context) Requirement { return r.Requirement(v) }
	} else {
		return Requirement{}, true
	}
	req, outcome := callHook(ctx, call.runtime(), fn)
	if outcome != hookOK {
		return Requirement{Mode: RequireAskAlways, Reason: "the tool's approval check did not answer"}, false
	}
	return req, true
}

// classifierInput is the tree a Classifier is given; nil (and no tree
// built) when there is no Classifier.
func classifierInput[C any](c Classifier, call *Call[C]) any {
	if c == nil {
		return nil
	}
	return call.tree()
}

// allowed asks the memory whether "allow always" holds; an error, a panic
// or no answer in time means no.
func (a *approval[C]) allowed(ctx context.Context, rt *runtimeConfig, session, key string) bool {
	mem := a.opts.Store
	type answer struct {
		ok  bool
		err error
	}
	ans, outcome := callHook(ctx, rt, func(ctx context.Context) answer {
		ok, err := mem.Allowed(ctx, session, key)
		return answer{ok, err}
	})
	return outcome == hookOK && ans.err == nil && ans.ok
}

// ask runs the approver on a goroutine of its own, so that one that never
// returns still lets the call end when the wait does (the approver is then
// counted in Stats.HooksRunning until it returns). A panic is an error.
func (a *approval[C]) ask(ctx context.Context, rt *runtimeConfig, ar ApprovalRequest) (Decision, error) {
	type answer struct {
		d   Decision
		err error
	}
	approver := a.opts.Approver
	ans, outcome := callHookFor(ctx, rt, 0, func(ctx context.Context) answer {
		d, err := approver.Approve(ctx, ar)
		return answer{d, err}
	})
	switch {
	case outcome == hookPanicked:
		return Decision{}, &PanicError{Value: "the approver panicked"}
	case outcome == hookTimedOut, ans.err == nil && ctx.Err() != nil:
		return Decision{}, context.Cause(ctx) // an answer after the wait ended does not count
	}
	return ans.d, ans.err
}

// failed is the result of a call whose approval did not come: the wait
// was cancelled, timed out, or the approver failed.
func (a *approval[C]) failed(ctx, wctx context.Context, name string, err error) *Result {
	switch {
	case ctx.Err() != nil:
		return canceledWaitingResult(ctx, name)
	case errors.Is(context.Cause(wctx), ErrApprovalTimeout):
		return deniedResult(name, ErrApprovalTimeout, whyTimeout(a.opts.Timeout))
	}
	return deniedResult(name, fmt.Errorf("%w: %w", ErrApproverFailed, err), whyApproverFailed(err))
}

// run seals the approval to the call and the arguments it saw, and goes
// on; the seal stage checks the seal just before the tool starts.
func (a *approval[C]) run(ctx context.Context, call *Call[C], next Handler[C]) *Result {
	call.st.approval.seal = seal{sealed: true, callID: call.ID, gen: call.argsGeneration()}
	return next(ctx, call)
}
