package tool

import (
	"context"
	"reflect"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/tool/internal/handoff"
)

// runStage is the innermost stage: it runs the tool on a goroutine other
// than the caller's (internal/handoff), so that a panic or a
// runtime.Goexit in the tool becomes a result instead of taking the
// caller's goroutine with it, and a tool that ignores its context can be
// abandoned: the caller waits until the deadline stage's limits or its
// own cancellation, then a grace period, and gives up. The tool's own
// answer becomes a Result here (settle). When the registry keeps records,
// the call's claim on its ID is first made to last the tool's time limit
// (record.go), and the tool runs only if the call still holds it.
func runStage[C any](ctx context.Context, call *Call[C]) *Result {
	cc := ctx.(*callCtx) // the deadline stage's
	if h := call.st.record.hold; h != nil {
		if res := h.start(cc, call.Name); res != nil {
			return res // the call no longer holds its ID: the tool does not run
		}
	}
	e := call.st.entry
	rt := e.rt
	// One allocation holds the run: the job handed over, its outcome and
	// its state, shared by the caller and the tool's goroutine.
	r := &toolRun[C]{cc: cc, call: call, run: e.run, counters: rt.counters}
	// The tool started: what it did is recorded (record.go), and the
	// answer that let it through is used (approval_resume.go), whatever
	// result a middleware makes of it on the way back.
	call.st.started = true
	res := r.wait(rt, call.Name)
	res.ran = true
	return res
}

// wait starts the run and waits for its result.
func (r *toolRun[C]) wait(rt *runtimeConfig, name string) *Result {
	if !r.job.Start(r) || !r.job.SpinWait() {
		if !awaitJob(r.cc, &r.job, rt.grace, &r.state, rt.counters) {
			return abandonedResult(r.cc.stopCause(), name, rt.grace)
		}
	}
	o := &r.o
	// The job is done after the tool's goroutine wrote o.
	if o.panicked {
		return panicResultStack(name, o.value, o.value == nil, o.stack)
	}
	return settle(r.cc, name, o.res, o.err)
}

// toolRun is one run of a tool on a goroutine other than its caller's.
type toolRun[C any] struct {
	job      handoff.Job
	o        outcome
	state    atomic.Int32 // handoff.Running, Returned, Abandoned
	cc       *callCtx
	call     *Call[C]
	run      func(context.Context, *Call[C]) (*Result, error)
	counters *counters
}

type outcome struct {
	res      *Result
	err      error
	panicked bool
	value    any
	stack    []byte
}

// Run runs the tool and records how it ended: a result, an error, a panic
// or a runtime.Goexit (after which the goroutine dies, having settled the
// job).
func (r *toolRun[C]) Run() {
	returned := false
	defer func() {
		if !returned {
			// recover() is nil only for runtime.Goexit: since Go 1.21
			// a panic(nil) recovers as a *runtime.PanicNilError.
			p := recover()
			r.o = outcome{panicked: true, value: p, stack: debug.Stack()}
			r.job.Finish()
		}
		if !r.state.CompareAndSwap(handoff.Running, handoff.Returned) {
			r.counters.abandonedRunning.Add(-1)
		}
	}()
	res, err := r.run(r.cc, r.call)
	returned = true
	r.o = outcome{res: res, err: err}
}

// awaitJob waits, blocked, for the tool's job to finish: until its
// deadline or its caller's cancellation (or its idle limit, which cancels
// the parent the call's context was built on), then for the grace period.
// It reports false when the tool is given up on (counted in Stats).
func awaitJob(cc *callCtx, j *handoff.Job, grace time.Duration, state *atomic.Int32, counters *counters) bool {
	done := j.Done()
	var deadline <-chan time.Time
	if !cc.deadline.IsZero() {
		t := time.NewTimer(time.Until(cc.deadline))
		defer t.Stop()
		deadline = t.C
	}
	select {
	case <-done:
		return true
	case <-cc.parent.Done():
	case <-deadline:
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
	if state.CompareAndSwap(handoff.Running, handoff.Abandoned) {
		counters.abandoned.Add(1)
		return false
	}
	counters.abandonedRunning.Add(-1)
	<-done // it returned just now
	return true
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
		return noResult(name)
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
