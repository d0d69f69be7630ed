package tool

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
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
)

var decisionNames = [...]string{"deny", "allow_once", "allow_always", "edit"}

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
	// Args, for EditArgs, replaces the arguments.
	Args json.RawMessage
}

// Approver decides whether a call may run: usually by asking a person. It
// should return when ctx is done. An error, a panic, or no answer before
// the approval timeout all mean the call does not run.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ApproverFunc adapts a function to [Approver].
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Approve calls f(ctx, req).
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// DefaultApprovalTimeout bounds the wait for an approver when
// ApprovalOptions leave it unset: long enough for a person to read a diff.
const DefaultApprovalTimeout = 10 * time.Minute

// ApprovalOptions configure the [Approval] middleware.
type ApprovalOptions[C any] struct {
	// Policy maps each call to allow, deny or ask. Nil means
	// [AskForWritesPolicy].
	Policy Policy
	// Approver answers the calls the policy asks about. Nil denies them:
	// approval fails closed.
	Approver Approver
	// Timeout bounds the wait for the approver. Zero means
	// [DefaultApprovalTimeout]. The wait does not count against the tool's
	// own timeout.
	Timeout time.Duration
	// Memory keeps "allow always" answers. Nil means a new in-memory store
	// for this middleware.
	Memory ApprovalMemory
	// Session names the session a call belongs to, which "allow always" is
	// remembered for. Nil means [Request.Session].
	Session func(call *Call[C]) string
}

// Host-side causes of calls approval stopped. Each is wrapped in the
// Result's Err; the model sees its own text.
var (
	ErrDenied             = errors.New("approval: denied")
	ErrNoApprover         = errors.New("approval: the policy asks but no approver is configured")
	ErrApproverFailed     = errors.New("approval: the approver failed")
	ErrApprovalTimeout    = errors.New("approval: no answer in time")
	ErrArgsChanged        = errors.New("approval: the arguments changed after they were approved")
	ErrApprovalNotForCall = errors.New("approval: the approval was given for another call")
)

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
func Approval[C any](opts ApprovalOptions[C]) Middleware[C] {
	a := &approval[C]{opts: opts}
	if a.opts.Policy == nil {
		a.opts.Policy = AskForWritesPolicy()
	}
	if a.opts.Timeout <= 0 {
		a.opts.Timeout = DefaultApprovalTimeout
	}
	if a.opts.Memory == nil {
		a.opts.Memory = NewApprovalMemory()
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
	if res := preflightCall(call); res != nil {
		return res
	}
	def := call.Definition()
	c, _ := As[Classifier](call.tool)
	safety := effectiveSafety(def.Safety, c, call.value)
	req := a.requirement(call)
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
	key, remember := memoryKey(call.Name, req)
	if remember {
		if ok, err := a.opts.Memory.Allowed(ctx, session, key); err == nil && ok {
			return a.run(ctx, call, next)
		}
	}
	if a.opts.Approver == nil {
		return deniedResult(call.Name, ErrNoApprover, "it needs approval and no one can approve calls in this session")
	}
	canonical, err := json.Marshal(call.value)
	if err != nil {
		return misconfigured(call.Name, err)
	}
	ar := ApprovalRequest{
		Tool: call.Name, DisplayName: text.Visible(def.DisplayName(), true), CallID: text.Visible(call.ID, true),
		Session: text.Visible(session, true), Args: canonical, ArgsText: text.Bound(text.Visible(string(canonical), false), maxPreviewText),
		Safety: safety, Tier: def.Tier,
		Requirement: Requirement{Mode: req.Mode, Reason: text.Visible(req.Reason, false), Scope: text.Visible(req.Scope, true)},
	}

	wctx, cancel := context.WithTimeoutCause(ctx, a.opts.Timeout, ErrApprovalTimeout)
	defer cancel()
	ar.Preview = describe(wctx, call, ar.ArgsText)
	call.emit(Event{Kind: EventApprovalRequested, Approval: &ApprovalInfo{Reason: ar.Requirement.Reason}})
	d, err := a.ask(wctx, ar)
	if err != nil {
		call.emit(Event{Kind: EventApprovalDecided, Approval: &ApprovalInfo{Reason: err.Error()}})
		return a.failed(ctx, wctx, call.Name, err)
	}
	call.emit(Event{Kind: EventApprovalDecided, Approval: &ApprovalInfo{Allowed: d.Kind != DecisionDeny && d.Kind <= DecisionEdit, Reason: text.Visible(d.Reason, false)}})
	switch d.Kind {
	case DecisionAllowOnce:
	case DecisionAllowAlways:
		if remember {
			// Not remembering only means asking again; it never allows more.
			_ = a.opts.Memory.Remember(ctx, session, key)
		}
	case DecisionEdit:
		call.SetArgs(d.Args)
		if res := preflightCall(call); res != nil {
			res.Content = []Content{TextContent("The approver edited the arguments of this call to " + call.Name +
				" and the edit is not valid, so the call did not run.\n" + res.Text())}
			return res
		}
	default: // Deny, or a kind from the future
		reason := d.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return deniedResult(call.Name, fmt.Errorf("%w: %s", ErrDenied, text.Cut(reason, 1024)), "the user said: "+text.Bound(reason, 2048))
	}
	return a.run(ctx, call, next)
}

func (a *approval[C]) requirement(call *Call[C]) Requirement {
	if r, ok := As[RequirerFor[C]](call.tool); ok {
		return r.RequirementFor(call)
	}
	if r, ok := As[Requirer](call.tool); ok {
		return r.Requirement(call.value)
	}
	return Requirement{}
}

// ask runs the approver on its own goroutine, so that one that never
// returns still lets the call end when the wait times out.
func (a *approval[C]) ask(ctx context.Context, ar ApprovalRequest) (Decision, error) {
	type answer struct {
		d   Decision
		err error
	}
	done := make(chan answer, 1)
	go func() {
		returned := false
		defer func() {
			if !returned {
				p := recover()
				done <- answer{err: &PanicError{Value: p, Goexit: p == nil, Stack: debug.Stack()}}
			}
		}()
		d, err := a.opts.Approver.Approve(ctx, ar)
		returned = true
		done <- answer{d, err}
	}()
	select {
	case ans := <-done:
		if ans.err == nil && ctx.Err() != nil {
			return Decision{}, context.Cause(ctx) // an answer after the wait ended does not count
		}
		return ans.d, ans.err
	case <-ctx.Done():
		return Decision{}, context.Cause(ctx)
	}
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
	default:
		return deniedResult(name, fmt.Errorf("%w: %w", ErrApproverFailed, err), "the approval step failed")
	}
}

// run seals the approval to the call and its canonical arguments and goes
// on; invoke checks the seal just before the tool starts.
func (a *approval[C]) run(ctx context.Context, call *Call[C], next Handler[C]) *Result {
	sum, err := argsHash(call.ID, call.value)
	if err != nil {
		return misconfigured(call.Name, err)
	}
	call.seal = &seal{callID: call.ID, sum: sum}
	return next(ctx, call)
}

// seal records what an approval covered.
type seal struct {
	callID string
	sum    [sha256.Size]byte
}

// argsHash hashes the call ID with the canonical form of the validated
// arguments (encoding/json sorts map keys and keeps json.Number literals).
func argsHash(callID string, value any) ([sha256.Size]byte, error) {
	b, err := json.Marshal(value)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s", len(callID), callID)
	h.Write(b)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum, nil
}

// checkSeal reports why a sealed call must not run, or nil.
func checkSeal[C any](call *Call[C]) *Result {
	if call.seal == nil {
		return nil
	}
	if call.seal.callID != call.ID {
		return deniedResult(call.Name, ErrApprovalNotForCall, "its approval was given for another call")
	}
	sum, err := argsHash(call.ID, call.value)
	if err != nil || sum != call.seal.sum {
		return deniedResult(call.Name, ErrArgsChanged, "its arguments changed after they were approved")
	}
	return nil
}

func deniedResult(name string, cause error, why string) *Result {
	msg := "The call to " + name + " was not allowed to run: " + why + ". It did not run. Do not repeat it unchanged; change the approach or ask the user."
	return &Result{Status: StatusDenied, IsError: true, Err: cause, Content: []Content{TextContent(text.Bound(msg, maxErrorText))}}
}
