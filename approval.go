package tool

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
	"github.com/toolbelt-go/tool/keyring"
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
	// Args, for DecisionEdit, replaces the arguments.
	Args json.RawMessage
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

// Host-side causes of calls approval stopped. Each is wrapped in the
// Result's Err; the model sees its own text.
var (
	ErrDenied             = errors.New("approval: denied")
	ErrNoApprover         = errors.New("approval: the policy asks but no approver is configured")
	ErrApproverFailed     = errors.New("approval: the approver failed")
	ErrApprovalTimeout    = errors.New("approval: no answer in time")
	ErrArgsChanged        = errors.New("approval: the arguments changed after they were approved")
	ErrApprovalNotForCall = errors.New("approval: the approval was given for another call")
	// ErrApprovalState wraps the reason a resumed approval was refused: its
	// state is altered, expired, for another call or already used.
	ErrApprovalState = errors.New("approval: the approval state cannot be used")
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
}

// ApprovalAnswer is a later answer to a call that ended
// [StatusAwaitingApproval]: it goes in [Request.Approval] of the call that
// resumes it.
type ApprovalAnswer struct {
	// State is PendingApproval.State, exactly as it was given.
	State string
	// Decision is the person's answer. DecisionDefer is not an answer and
	// counts as a deny.
	Decision Decision
}

// Approval returns the middleware of pipeline stages 4 to 6: classify the
// call, ask the policy, and if it says ask, describe the call and ask the
// approver. It runs after preflight, so the approver only ever sees
// arguments that passed validation. It fails closed: a deny, an approver
// error or panic, an approver that does not answer in time and a cancelled
// wait all mean the tool does not run, each with its own result.
//
// What runs is what was approved: the approval is bound to a hash of the
// canonical arguments and to the call ID, and checked again just before
// the tool starts, so a middleware that changes the arguments after
// approval, or a call that reuses another's approval, does not run.
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

func (a *approval[C]) handle(ctx context.Context, call *Call[C], next Handler[C]) *Result {
	if res := preflightCall(ctx, call); res != nil {
		return res
	}
	def := call.Definition()
	c, _ := As[Classifier](call.tool)
	rt := call.runtime()
	safety := effectiveSafety(ctx, rt, def.Safety, c, classifierInput(c, call))
	req := a.requirement(ctx, call)
	in := PolicyInput{Tool: call.Name, Safety: safety, Static: def.Safety, Tier: def.Tier, Requirement: req}
	switch a.opts.Policy.Decide(in) {
	case VerdictAllow:
		return a.run(ctx, call, next)
	case VerdictAsk:
	default:
		return deniedResult(call.Name, ErrDenied, "the session's policy does not allow "+safety.String()+" calls to this tool")
	}
	session := call.Session
	if a.opts.Session != nil {
		session = a.opts.Session(call)
	}
	if call.answer != nil {
		return a.resume(ctx, call, next, session, safety, req)
	}
	key, remember := memoryKey(call.Name, safety, req)
	remember = remember && session != "" // no conversation, nothing shared
	if remember {
		if a.allowed(ctx, rt, session, key) {
			return a.run(ctx, call, next)
		}
	}
	if a.opts.Approver == nil {
		return deniedResult(call.Name, ErrNoApprover, "it needs approval and no one can approve calls in this session")
	}
	canonical := call.Args()
	ar := ApprovalRequest{
		Tool: call.Name, DisplayName: text.Visible(def.DisplayName(), true), CallID: text.Visible(call.ID, true),
		Session: text.Visible(session, true), Args: canonical, ArgsText: text.Bound(text.Visible(string(canonical), false), maxPreviewText),
		Safety: safety, Tier: def.Tier,
		Requirement: Requirement{Mode: req.Mode, Reason: text.Visible(req.Reason, false), Scope: text.Visible(req.Scope, true)},
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
	if d.Kind == DecisionDefer {
		return a.deferred(call, ar, session)
	}
	return a.apply(ctx, call, next, d, session, key, remember)
}

// apply carries out an approver's decision, given now or resumed.
func (a *approval[C]) apply(ctx context.Context, call *Call[C], next Handler[C], d Decision, session, key string, remember bool) *Result {
	call.emit(Event{Kind: EventApprovalDecided, Approval: &ApprovalInfo{Allowed: d.Kind != DecisionDeny && d.Kind <= DecisionEdit, Reason: text.Visible(d.Reason, false)}})
	switch d.Kind {
	case DecisionAllowOnce:
	case DecisionAllowAlways:
		if remember {
			// Not remembering only means asking again; it never allows more.
			mem, exp := a.opts.Store, time.Now().Add(a.rememberFor())
			callHook(ctx, call.runtime(), func(ctx context.Context) error { return mem.Remember(ctx, session, key, exp) })
		}
	case DecisionEdit:
		call.SetArgs(d.Args)
		if res := preflightCall(ctx, call); res != nil {
			res.Content = []Content{TextContent("The approver edited the arguments of this call to " + call.Name +
				" and the edit is not valid, so the call did not run.\n" + res.Text())}
			return res
		}
	default: // DecisionDeny, a DecisionDefer given as an answer, or a kind from the future
		reason := d.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return deniedResult(call.Name, fmt.Errorf("%w: %s", ErrDenied, text.Cut(reason, 1024)), "the user said: "+text.Bound(reason, 2048))
	}
	return a.run(ctx, call, next)
}

func (a *approval[C]) rememberFor() time.Duration {
	if a.opts.RememberFor > 0 {
		return a.opts.RememberFor
	}
	return defaultRememberFor
}

// approvalStateTool is the tool field of an approval state's signed
// claims: the prefix keeps a page cursor from ever passing for an approval
// state (tool names cannot hold a NUL byte).
func approvalStateTool(name string) string { return "\x00approval\x00" + name }

// deferred ends a call whose approver answers later, with the signed state
// that resumes it.
func (a *approval[C]) deferred(call *Call[C], ar ApprovalRequest, session string) *Result {
	keys := call.runtime().cursorKeyring()
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return misconfigured(call.Name, err)
	}
	exp := keys.ExpiryIn(a.opts.Timeout)
	state, err := keys.Sign(keyring.Claims{Purpose: approvalStateTool(call.Name), Session: session, Digest: sha256.Sum256(call.Args()),
		Expires: exp, State: nonce[:]})
	if err != nil {
		return misconfigured(call.Name, err)
	}
	call.emit(Event{Kind: EventApprovalDecided, Approval: &ApprovalInfo{Pending: true, Reason: "the answer will come later"}})
	return &Result{owned: true, Status: StatusAwaitingApproval, IsError: true, Err: ErrAwaitingApproval,
		Pending: &PendingApproval{State: state, Request: ar, Expires: exp},
		Content: []Content{TextContent("The call to " + call.Name + " needs the user's approval, which has been asked for. It has not run yet.")}}
}

// ErrAwaitingApproval is the host-side cause of a [StatusAwaitingApproval]
// result: see Result.Pending.
var ErrAwaitingApproval = errors.New("approval: awaiting an answer")

// resume checks the state of a deferred approval carried by the call and,
// when it holds, carries out the answer. The state must be signed by this
// registry's keyring, for this tool, these canonical arguments and this
// session, unexpired, and claimed for the first time.
func (a *approval[C]) resume(ctx context.Context, call *Call[C], next Handler[C], session string, safety Safety, req Requirement) *Result {
	keys := call.runtime().cursorKeyring()
	nonce, err := keys.Verify(call.answer.State, keyring.Claims{Purpose: approvalStateTool(call.Name), Session: session, Digest: sha256.Sum256(call.Args())})
	if err != nil {
		why := "its approval answer cannot be used (it is altered, or for another call)"
		switch err {
		case keyring.ErrExpired:
			why = "its approval answer came too late"
		case keyring.ErrOtherDigest:
			why = "its approval answer was given for other arguments"
		}
		return deniedResult(call.Name, fmt.Errorf("%w: %w", ErrApprovalState, err), why)
	}
	id := approvalStateTool(call.Name) + "\x00" + hex.EncodeToString(nonce)
	mem, exp := a.opts.Store, time.Now().Add(a.opts.Timeout+time.Minute)
	type claim struct {
		first bool
		err   error
	}
	c, outcome := callHook(ctx, call.runtime(), func(ctx context.Context) claim {
		first, err := mem.Claim(ctx, id, exp)
		return claim{first, err}
	})
	first, err := c.first, c.err
	if outcome != hookOK {
		err = errors.New("the approval store did not answer")
	}
	switch {
	case err != nil:
		return deniedResult(call.Name, fmt.Errorf("%w: %w", ErrApprovalState, err), "its approval answer could not be checked")
	case !first:
		return deniedResult(call.Name, fmt.Errorf("%w: already used", ErrApprovalState), "its approval answer was already used")
	}
	key, remember := memoryKey(call.Name, safety, req)
	return a.apply(ctx, call, next, call.answer.Decision, session, key, remember && session != "")
}

// requirement asks the tool how this call must be approved. A Requirer
// that panics or does not answer in time asks every time.
func (a *approval[C]) requirement(ctx context.Context, call *Call[C]) Requirement {
	var fn func(context.Context) Requirement
	if r, ok := As[RequirerFor[C]](call.tool); ok {
		fn = func(context.Context) Requirement { return r.RequirementFor(call) }
	} else if r, ok := As[Requirer](call.tool); ok {
		v := call.tree()
		fn = func(context.Context) Requirement { return r.Requirement(v) }
	} else {
		return Requirement{}
	}
	req, outcome := callHook(ctx, call.runtime(), fn)
	if outcome != hookOK {
		return Requirement{Mode: RequireAskAlways, Reason: "the tool's approval check did not answer"}
	}
	return req
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
		res := canceledResult(ctx, name, notStarted)
		res.Content = []Content{TextContent("The call to " + name + " was cancelled while it waited for approval. It did not run.")}
		return res
	case errors.Is(context.Cause(wctx), ErrApprovalTimeout):
		return deniedResult(name, ErrApprovalTimeout, "no one approved it within "+a.opts.Timeout.String())
	}
	why := "the approval step failed"
	// An approver that knows what the model should be told says it with a
	// *Error ("the user's client cannot show approval prompts").
	if te := (*Error)(nil); errors.As(err, &te) && te != nil && !te.Internal && te.Message != "" {
		why = text.Bound(te.Message, 1024)
		if te.Hint != "" {
			why += " (" + text.Bound(te.Hint, 1024) + ")"
		}
	}
	return deniedResult(name, fmt.Errorf("%w: %w", ErrApproverFailed, err), why)
}

// run seals the approval to the call and the arguments it saw, and goes
// on; the deadline stage checks the seal just before the tool starts.
func (a *approval[C]) run(ctx context.Context, call *Call[C], next Handler[C]) *Result {
	call.seal = &seal{callID: call.ID, gen: call.gen}
	return next(ctx, call)
}

// seal records what an approval covered: the call, and the generation of
// its arguments. The arguments are unexported and change only through
// Call.SetArgs, which starts a new generation and sends them through
// preflight again; what preflight validated is exactly what the tool is
// handed (the canonical bytes, or for a typed tool the value decoded from
// the same validated arguments). So the generation the approval saw is the
// arguments that run, and any change after it, by anyone, is caught.
type seal struct {
	callID string
	gen    uint64
}

// checkSeal reports why a sealed call must not run, or nil.
func checkSeal[C any](call *Call[C]) *Result {
	switch {
	case call.seal == nil:
		return nil
	case call.seal.callID != call.ID:
		return deniedResult(call.Name, ErrApprovalNotForCall, "its approval was given for another call")
	case call.seal.gen != call.gen:
		return deniedResult(call.Name, ErrArgsChanged, "its arguments changed after they were approved")
	}
	return nil
}

func deniedResult(name string, cause error, why string) *Result {
	msg := "The call to " + name + " was not allowed to run: " + why + ". It did not run. Do not repeat it unchanged; change the approach or ask the user."
	return &Result{owned: true, Status: StatusDenied, IsError: true, Err: cause, Content: []Content{TextContent(text.Bound(msg, maxErrorText))}}
}
