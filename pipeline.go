package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/tool/internal/plan"
	"github.com/toolbelt-go/tool/internal/schema"
	"github.com/toolbelt-go/tool/internal/text"
)

// preflight is what the pipeline knows of one tool's arguments: compiled
// once, when the tool is registered or wrapped.
type preflight struct {
	args      *argsSchema
	prep      preparer      // a typed tool that decodes in preflight, if it validated against the same schema
	plan      *plan.Plan    // the typed tool's one-pass decoder, if its schema allows one
	validator ArgsValidator // the tool's own extra check, if any
	paginated bool          // the cursor stage runs after validation
	err       error         // the tool cannot run (bad definition)
}

// newPreflight compiles t's input schema, reusing the typed tool's own
// compiled schema when the definition still carries it unchanged.
func newPreflight[C any](t Tool[C], lim Limits) *preflight {
	def := t.Definition()
	pf := &preflight{}
	if cc, ok := As[DefinitionChecker](t); ok && cc.CheckDefinition() != nil {
		pf.err = cc.CheckDefinition()
		return pf
	}
	var s *schema.Schema
	if sp, ok := As[schemaProvider](t); ok && sp.compiledSchema() != nil && bytes.Equal(sp.compiledSchema().Raw(), def.InputSchema) {
		s = sp.compiledSchema()
		if p, ok := As[preparer](t); ok {
			pf.prep = p
		}
	} else {
		var err error
		if s, err = schema.Compile(def.InputSchema); err != nil {
			pf.err = err
			return pf
		}
	}
	pf.args = newArgsSchema(def.Name, s, lim)
	pf.validator, _ = As[ArgsValidator](t)
	_, pf.paginated = As[pageMarker](t)
	if pf.prep != nil {
		pf.plan = plan.Build(pf.prep.inType(), s.Root(), pf.args.limits)
	}
	return pf
}

// preflightStage runs preflight before next.
func preflightStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) *Result {
		if res := preflightCall(ctx, call); res != nil {
			return res
		}
		return next(ctx, call)
	}
}

// preflightCall validates call.args unless they already are, and returns
// the result for the model when they are not valid.
func preflightCall[C any](ctx context.Context, call *Call[C]) *Result {
	if call.validated {
		return nil
	}
	if call.pf == nil {
		return misconfigured(call.Name, errors.New("tool: call has no preflight (not from a Registry or Wrap)"))
	}
	v, prepared, res := call.pf.run(ctx, call.runtime(), call.Name, call.args, call.nullMeansAbsent)
	if res != nil {
		return res
	}
	// v is nil when the typed tool's plan decoded the arguments without a
	// tree: Call.tree builds one if something asks for it.
	if call.pf.prep != nil {
		call.prepared, call.preparedFor = prepared, call.pf.prep
	}
	call.value, call.validated, call.canon = v, true, nil
	if call.pf.paginated {
		if res := verifyCursor(call); res != nil {
			call.value, call.validated = nil, false
			return res
		}
	}
	return nil
}

// run is the whole of preflight for one set of arguments: the strict read
// and schema check, the typed tool's decoding and Validate method, and the
// tool's ArgsValidator. It returns the validated tree and the decoded
// arguments, or the result for the model.
func (pf *preflight) run(ctx context.Context, rt *runtimeConfig, name string, raw json.RawMessage, nullMeansAbsent bool) (v, prepared any, res *Result) {
	if pf.err != nil {
		return nil, nil, misconfigured(name, pf.err)
	}
	if pf.plan != nil && !nullMeansAbsent {
		// The one-pass decoder: when it is sure, there is no tree (the
		// tool's own checks are given one if they need it); when it is
		// not, the slow path below reads the arguments again.
		in, dst := pf.prep.fresh()
		if pf.plan.Decode(raw, dst) {
			if res := pf.ownChecks(ctx, rt, name, in, func() any { return pf.tree(raw) }); res != nil {
				return nil, nil, res
			}
			return nil, in, nil
		}
	}
	v, aerr, stopped := pf.args.check(ctx, rt, raw, nullMeansAbsent)
	if stopped != nil {
		return nil, nil, canceledResult(ctx, name, notStarted)
	}
	if aerr != nil {
		return nil, nil, invalidResult(aerr)
	}
	if pf.prep != nil {
		var err error
		if prepared, err = pf.prep.prepare(v); err != nil {
			return nil, nil, invalidResult(pf.args.checkError(err, v))
		}
	}
	if res := pf.ownChecks(ctx, rt, name, prepared, func() any { return v }); res != nil {
		return nil, nil, res
	}
	return v, prepared, nil
}

// ownChecks runs the typed arguments' Validate method and the tool's
// ArgsValidator, each as a bounded hook.
func (pf *preflight) ownChecks(ctx context.Context, rt *runtimeConfig, name string, prepared any, tree func() any) *Result {
	if vd, ok := prepared.(interface{ Validate() error }); ok {
		if res := pf.hookCheck(ctx, rt, name, tree, vd.Validate); res != nil {
			return res
		}
	}
	if pf.validator != nil {
		validator, v := pf.validator, tree()
		if res := pf.hookCheck(ctx, rt, name, func() any { return v }, func() error { return validator.ValidateArgs(v) }); res != nil {
			return res
		}
	}
	return nil
}

// tree builds the validated tree of arguments the plan decoded without
// one: they parse, and their absent optional keys get their defaults, as on
// the slow path.
func (pf *preflight) tree(raw json.RawMessage) any {
	v, perr := parseArgs(raw, pf.args.limits)
	if perr != nil {
		return map[string]any{} // cannot happen: the plan read the same bytes
	}
	pf.args.schema.ApplyDefaults(v)
	return v
}

// hookCheck runs a tool's own argument check (an ArgsValidator, the
// argument type's Validate method) as a bounded hook. A check that fails
// makes the arguments invalid; one that panics or does not answer in time
// means the tool does not run, and the model is told it was not its fault.
func (pf *preflight) hookCheck(ctx context.Context, rt *runtimeConfig, name string, tree func() any, check func() error) *Result {
	err, outcome := callHook(ctx, rt, func(context.Context) error { return check() })
	switch outcome {
	case hookPanicked:
		return panicResult(name, "the argument check panicked", false)
	case hookTimedOut:
		if ctx.Err() != nil {
			return canceledResult(ctx, name, notStarted)
		}
		return &Result{owned: true, Status: StatusFailed, IsError: true, Err: ErrHookTimeout,
			Content: []Content{TextContent("Error: the argument check of " + name + " did not finish in time, so the call did not run. This is not a problem with your arguments; try again later.")}}
	}
	if err != nil {
		return invalidResult(pf.args.checkError(err, tree()))
	}
	return nil
}

// ErrHookTimeout is the host-side cause of a call that did not run because
// one of the tool's own checks did not answer within
// RegistryOptions.HookTimeout.
var ErrHookTimeout = errors.New("tool: a hook did not answer in time")

func misconfigured(name string, err error) *Result {
	return &Result{owned: true, Status: StatusFailed, IsError: true, Err: err,
		Content: []Content{TextContent("tool " + name + " is misconfigured and cannot run")}}
}

func invalidResult(e *ArgsError) *Result {
	return &Result{owned: true, Status: StatusInvalid, IsError: true, Err: e, Content: []Content{TextContent(e.text)}}
}

// recoverStage turns a panic in any middleware into a Panicked result.
func recoverStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) (res *Result) {
		defer func() {
			if p := recover(); p != nil {
				res = panicResult(call.Name, p, false)
			}
		}()
		return next(ctx, call)
	}
}

type outcome struct {
	res      *Result
	err      error
	panicked bool
	value    any
	stack    []byte
}

// awaitJob waits, blocked, for the tool's job to finish: until its
// deadline or its caller's cancellation, then for the grace period. It
// reports false when the tool is given up on (counted in Stats).
func awaitJob(ctx context.Context, cc *callCtx, j *job, grace time.Duration, state *atomic.Int32, counters *counters) bool {
	done := j.doneCh()
	var deadline <-chan time.Time
	if !cc.deadline.IsZero() {
		t := time.NewTimer(time.Until(cc.deadline))
		defer t.Stop()
		deadline = t.C
	}
	var idleStop <-chan struct{}
	if cc.scope != nil && cc.scope.idle != nil {
		idleStop = cc.parent.Done() // the idle limit cancels the parent it was built on
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
	case <-deadline:
	case <-idleStop:
	}
	// Asked to stop (a context the tool waits on is done by now, with its
	// cause: its own timer, or its parent's); it has a grace period to
	// return.
	g := time.NewTimer(grace)
	defer g.Stop()
	select {
	case <-done:
		return true
	case <-g.C:
	}
	// Count first, so the tool's goroutine, which decrements when it
	// returns, never takes the figure below zero.
	counters.abandonedRunning.Add(1)
	if state.CompareAndSwap(toolRunning, toolAbandoned) {
		counters.abandoned.Add(1)
		return false
	}
	counters.abandonedRunning.Add(-1)
	<-done // it returned just now
	return true
}

// Run states of a tool goroutine, for abandonment accounting.
const (
	toolRunning int32 = iota
	toolReturned
	toolAbandoned
)

// toolRun is one run of a tool on a goroutine other than its caller's.
type toolRun[C any] struct {
	job
	o        outcome
	state    atomic.Int32 // toolRunning, toolReturned, toolAbandoned
	cc       *callCtx
	call     *Call[C]
	t        Tool[C]
	counters *counters
}

// run runs the tool and records how it ended: a result, an error, a panic
// or a runtime.Goexit (after which the goroutine dies, having settled the
// job).
func (r *toolRun[C]) run() {
	returned := false
	defer func() {
		if !returned {
			// recover() is nil only for runtime.Goexit: since Go 1.21
			// a panic(nil) recovers as a *runtime.PanicNilError.
			p := recover()
			r.o = outcome{panicked: true, value: p, stack: debug.Stack()}
			r.finish()
		}
		if !r.state.CompareAndSwap(toolRunning, toolReturned) {
			r.counters.abandonedRunning.Add(-1)
		}
	}()
	res, err := r.t.Run(r.cc, r.call)
	returned = true
	r.o = outcome{res: res, err: err}
}

// invoke is the innermost stage: it validates edited arguments again,
// applies the call's time limits, and runs the tool on a goroutine other
// than the caller's, so that a panic or a runtime.Goexit in the tool
// becomes a result instead of taking the caller's goroutine with it, and a
// tool that ignores its context can be abandoned. The goroutine comes from
// a small pool (see workers.go): a fresh one per call costs more than the
// rest of the pipeline, mostly in stack growth.
func invoke[C any](ctx context.Context, call *Call[C]) *Result {
	return runTool(ctx, call, call.tool)
}

// runTool is invoke for tool t, which is call.tool or, inside [Wrap], the
// wrapped tool.
func runTool[C any](ctx context.Context, call *Call[C], t Tool[C]) *Result {
	if res := preflightCall(ctx, call); res != nil {
		return res
	}
	if res := checkSeal(call); res != nil {
		return res
	}
	if ctx.Err() != nil {
		return canceledResult(ctx, call.Name, notStarted)
	}
	rt := call.runtime()
	cc := newCallCtx(ctx, rt, call)
	defer cc.stop()

	call.guarded = true
	// One allocation holds the run: the job handed over, its outcome and
	// its state, shared by the caller and the tool's goroutine.
	run := &toolRun[C]{cc: cc, call: call, t: t, counters: rt.counters}
	j := &run.job
	j.runner = run
	bubble := inSyncTestBubble()
	if bubble {
		// Pooled and hot workers live outside the bubble, and a bubble's
		// clock does not move while a goroutine spins; see workers.go.
		go j.execute()
	} else {
		dispatch(j)
	}
	if bubble || !spinWait(j) {
		if !awaitJob(ctx, cc, j, rt.grace, &run.state, rt.counters) {
			return abandonedResult(cc.stopCause(), call.Name, rt.grace)
		}
	}
	o := &run.o
	// j.done happens after the tool's goroutine wrote o.
	if o.panicked {
		return panicResultStack(call.Name, o.value, o.value == nil, o.stack)
	}
	return outputStage(cc, call, settle(cc, call.Name, o.res, o.err))
}

// outputStage makes the model view safe (every text block escaped) and
// applies the byte cap: the Definition's MaxOutputBytes, else the
// registry's. With a spill store, what the cap cuts is kept for
// read_output, whose own results are never spilled again.
func outputStage[C any](ctx context.Context, call *Call[C], res *Result) *Result {
	rt := call.runtime()
	sanitize(res, rt.keepInvisible)
	limit := rt.maxOut
	if call.def != nil && call.def.MaxOutputBytes > 0 {
		limit = call.def.MaxOutputBytes
	}
	size, onlyText := 0, true
	for _, c := range res.Content {
		size += c.cost()
		onlyText = onlyText && c.Type == ContentText
	}
	if rt.spill != nil && size > limit && onlyText && len(res.Content) <= maxBlocks && call.Name != ReadOutputTool && call.Session != "" &&
		spillOutput(ctx, call, res, limit, rt.spill) {
		return res
	}
	capOutput(res, limit)
	return res
}

// settle turns what a tool returned into its Result. A call whose context
// is done never reports success.
func settle(ctx context.Context, name string, res *Result, err error) *Result {
	if cause := stopCauseOf(ctx); cause != nil {
		return canceledResultCause(ctx, cause, name, running)
	}
	if isNil(err) {
		err = nil // a typed nil, such as a nil *Error: no error
	}
	if err != nil {
		return errorResult(name, err)
	}
	if res == nil {
		return &Result{owned: true, Status: StatusFailed, IsError: true, Err: ErrNoResult,
			Content: []Content{TextContent("tool " + name + " returned no result; it may not have done what was asked")}}
	}
	return res.own()
}

// stopCauseOf returns why a call under ctx must not report success, or
// nil: its context is done, or its deadline has passed, even if the context
// does not say so yet (see callCtx.stopCause).
func stopCauseOf(ctx context.Context) error {
	if cc, ok := ctx.(*callCtx); ok {
		return cc.stopCause()
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// isNil reports whether err is an interface holding a nil pointer: a tool
// that returns a nil *Error (or another typed nil) as its error means no
// error.
func isNil(err error) bool {
	if err == nil {
		return false
	}
	v := reflect.ValueOf(err)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// ErrNoResult is the host-side cause when a tool returns a nil *Result and
// a nil error.
var ErrNoResult = errors.New("tool returned a nil result and a nil error")

// maxErrorText bounds the model text of a tool error.
const maxErrorText = 8 << 10

func errorResult(name string, err error) *Result {
	var te *Error
	if !errors.As(err, &te) || te == nil {
		status := StatusFailed
		if errors.Is(err, context.DeadlineExceeded) {
			// A limit the tool applied itself (a timeout from its
			// arguments, a command it stopped): say it timed out.
			status = StatusTimedOut
		}
		return &Result{owned: true, Status: status, IsError: true, Err: err,
			Content: []Content{TextContent(headTail("Error: "+err.Error(), maxErrorText))}}
	}
	status := te.Status
	if status == StatusOK {
		status = StatusFailed
	}
	var b strings.Builder
	if te.Internal {
		b.WriteString("Error: tool " + name + " failed internally; the details are logged for the operator")
	} else {
		msg := te.Message
		if msg == "" && te.Cause != nil {
			msg = te.Cause.Error()
		}
		b.WriteString("Error: " + msg)
	}
	if te.Hint != "" {
		b.WriteString("\nHint: " + te.Hint)
	}
	if te.Warning != "" {
		b.WriteString("\nWarning: " + te.Warning)
	}
	for _, m := range te.MustFollow {
		b.WriteString("\nYou must: " + m)
	}
	return &Result{owned: true, Status: status, IsError: true, Err: err, Content: []Content{TextContent(headTail(b.String(), maxErrorText))}}
}

// canceledResult is the result of a call whose context ended: before the
// tool started, while it ran, or with the tool abandoned (still running).
// headTail bounds an error text, keeping its start and its end, where
// error output says what went wrong.
func headTail(s string, max int) string {
	s, _ = text.HeadTail(s, max)
	return s
}

func canceledResult(ctx context.Context, name string, stage runStage) *Result {
	return canceledResultCause(ctx, context.Cause(ctx), name, stage)
}

// canceledResultCause is canceledResult for a known cause. The model is
// told whether the call timed out (and which limit) or was cancelled, never
// the cause the host gave (context.WithCancelCause): that is host data, for
// the host view only.
func canceledResultCause(ctx context.Context, cause error, name string, stage runStage) *Result {
	if cause == nil {
		cause = ctx.Err()
	}
	status := StatusCanceled
	var b strings.Builder
	b.WriteString("The call to " + name)
	var te *TimeoutError
	switch {
	case errors.As(cause, &te) && te.Idle:
		status = StatusTimedOut
		fmt.Fprintf(&b, " timed out: it reported no progress for %v", te.Limit)
	case errors.As(cause, &te):
		status = StatusTimedOut
		fmt.Fprintf(&b, " timed out: it ran longer than its %v time limit", te.Limit)
	case errors.Is(cause, context.DeadlineExceeded):
		status = StatusTimedOut
		b.WriteString(" timed out: the caller's deadline passed")
	default:
		b.WriteString(" was cancelled")
	}
	switch stage {
	case notStarted:
		b.WriteString(" before it started. It did not run.")
	case running:
		b.WriteString(". It did not complete and may have done part of its work; check before repeating it.")
	case abandoned:
		b.WriteString(". It did not stop when asked and may still be running; check its effects before repeating it.")
	}
	if status == StatusTimedOut && stage != notStarted {
		b.WriteString(" If you call it again, ask for less at once.")
	}
	return &Result{owned: true, Status: status, IsError: true, Err: cause, Content: []Content{TextContent(text.Bound(b.String(), maxErrorText))}}
}

// runStage is how far a call got before its context ended.
type runStage uint8

const (
	notStarted runStage = iota
	running
	abandoned
)

// PanicError is the host-side cause of a Panicked result.
type PanicError struct {
	Value  any    // what the tool panicked with
	Goexit bool   // the tool called runtime.Goexit (t.FailNow, say) instead
	Stack  []byte // the goroutine's stack at the panic
}

func (e *PanicError) Error() string {
	if e.Goexit {
		return "tool exited its goroutine (runtime.Goexit)"
	}
	return fmt.Sprintf("tool panicked: %v", e.Value)
}

func panicResult(name string, p any, goexit bool) *Result {
	return panicResultStack(name, p, goexit, debug.Stack())
}

func panicResultStack(name string, p any, goexit bool, stack []byte) *Result {
	return &Result{owned: true, Status: StatusPanicked, IsError: true, Err: &PanicError{Value: p, Goexit: goexit, Stack: stack},
		Content: []Content{TextContent("Error: tool " + name + " crashed (an internal bug, not a problem with your arguments). Do not retry the same call; try another approach.")}}
}
