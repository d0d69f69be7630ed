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

	"github.com/toolbelt-go/tool/internal/schema"
	"github.com/toolbelt-go/tool/internal/text"
)

// preflight is what the pipeline knows of one tool's arguments: compiled
// once, when the tool is registered or wrapped.
type preflight struct {
	args      *argsSchema
	prep      preparer      // a typed tool that decodes in preflight, if it validated against the same schema
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
	pf.args = &argsSchema{tool: def.Name, schema: s, limits: lim.parser()}
	pf.validator, _ = As[ArgsValidator](t)
	_, pf.paginated = As[pageMarker](t)
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
		if vd, ok := prepared.(interface{ Validate() error }); ok {
			if res := pf.hookCheck(ctx, rt, name, v, vd.Validate); res != nil {
				return nil, nil, res
			}
		}
	}
	if pf.validator != nil {
		validator := pf.validator
		if res := pf.hookCheck(ctx, rt, name, v, func() error { return validator.ValidateArgs(v) }); res != nil {
			return nil, nil, res
		}
	}
	return v, prepared, nil
}

// hookCheck runs a tool's own argument check (an ArgsValidator, the
// argument type's Validate method) as a bounded hook. A check that fails
// makes the arguments invalid; one that panics or does not answer in time
// means the tool does not run, and the model is told it was not its fault.
func (pf *preflight) hookCheck(ctx context.Context, rt *runtimeConfig, name string, v any, check func() error) *Result {
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
		return invalidResult(pf.args.checkError(err, v))
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

// Run states of a tool goroutine, for abandonment accounting.
const (
	toolRunning int32 = iota
	toolReturned
	toolAbandoned
)

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
	ctx, stop, idle, own := withDeadline(ctx, rt, call.def, call.Name)
	defer stop()
	if call.events != nil || idle != nil {
		ctx = context.WithValue(ctx, scopeKey{}, &callScope{events: call.events, idle: idle})
	}
	if call.page != nil {
		ctx = context.WithValue(ctx, pageKey{}, call.page)
	}

	call.guarded = true
	done := make(chan outcome, 1) // buffered: an abandoned tool's late send never blocks
	var state atomic.Int32
	counters := rt.counters
	task := func() {
		returned := false
		defer func() {
			if !returned {
				// recover() is nil only for runtime.Goexit: since Go 1.21
				// a panic(nil) recovers as a *runtime.PanicNilError.
				p := recover()
				done <- outcome{panicked: true, value: p, stack: debug.Stack()}
			}
			if !state.CompareAndSwap(toolRunning, toolReturned) {
				counters.abandonedRunning.Add(-1)
			}
		}()
		res, err := t.Run(ctx, call)
		returned = true
		done <- outcome{res: res, err: err}
	}
	if inSyncTestBubble() {
		go task() // pooled workers live outside the bubble; see workers.go
	} else {
		workers.run(task)
	}

	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		// Asked to stop; the tool has a grace period to return.
		grace := time.NewTimer(rt.grace)
		select {
		case o = <-done:
			grace.Stop()
		case <-grace.C:
			// Count first, so the tool's goroutine, which decrements
			// when it returns, never takes the figure below zero.
			counters.abandonedRunning.Add(1)
			if state.CompareAndSwap(toolRunning, toolAbandoned) {
				counters.abandoned.Add(1)
				return abandonedResult(ctx, call.Name, rt.grace)
			}
			counters.abandonedRunning.Add(-1)
			o = <-done // it returned just now
		}
	}
	if o.panicked {
		return panicResultStack(call.Name, o.value, o.value == nil, o.stack)
	}
	return outputStage(ctx, call, settle(ctx, own, call.Name, o.res, o.err))
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
func settle(ctx context.Context, own ownLimit, name string, res *Result, err error) *Result {
	if cause := stopCause(ctx, own); cause != nil {
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

// stopCause returns why a call must not report success, or nil: its context
// is done, or its deadline has passed even if the context does not say so
// yet (under load the timer that cancels it can fire long after the
// deadline). The deadline itself decides, not the timer.
func stopCause(ctx context.Context, own ownLimit) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	d, ok := ctx.Deadline()
	if !ok || time.Now().Before(d) {
		return nil
	}
	if own.cause != nil && !d.Before(own.at) {
		return own.cause // the tool's own limit is the one that passed
	}
	return context.DeadlineExceeded
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
