package tool

import (
	"context"
	"sync"
	"time"
)

// DefaultTimeout bounds a call to a tool whose Definition has no Timeout,
// in a registry whose options set none. Long enough for a build or a test
// run, short enough that a hung tool does not stall an agent for good.
const DefaultTimeout = 2 * time.Minute

// DefaultGrace is how long a tool has to return once its context is done
// (timed out or cancelled) before the pipeline stops waiting for it.
const DefaultGrace = 2 * time.Second

// deadlineStage gives the tool its context (context.go): its
// caller's, with the call's own time limit (its Definition's Timeout, or
// the registry's default) and a TimeoutError cause, the idle limit when the
// tool has one, and what ReportProgress and paginated tools reach through
// it: the call's events and its page. A call whose context ended before
// this does not start.
func deadlineStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) *Result {
		if ctx.Err() != nil {
			return canceledResult(ctx, call.Name, notStarted)
		}
		cc := newCallCtx(ctx, call)
		defer cc.stop()
		return next(cc, call)
	}
}

// newCallCtx makes the tool's context.
func newCallCtx[C any](parent context.Context, call *Call[C]) *callCtx {
	e := call.st.entry
	cc := &callCtx{parent: parent, page: call.st.page, info: call.info()}
	limit := e.rt.limit(&e.def)
	if call.st.asTask {
		limit = taskLimit(&e.def)
	}
	if limit > 0 {
		cc.deadline, cc.limit = time.Now().Add(limit), limit
	}
	var idle *idleTimer
	if e.def.IdleTimeout > 0 {
		// The idle limit needs a context that progress can push back:
		// made now, as the parent the call's context is built on.
		p, cancel := context.WithCancelCause(parent)
		idle = newIdleTimer(e.def.IdleTimeout, call.Name, cancel)
		cc.parent = p
		cc.idleStop = func() { idle.stop(); cancel(nil) }
	}
	if call.st.events != nil || idle != nil {
		cc.scope = &callScope{events: call.st.events, idle: idle}
	}
	return cc
}

// idleTimer cancels a call that reports no progress for its idle limit.
// Progress resets it.
type idleTimer struct {
	mu    sync.Mutex
	limit time.Duration
	t     *time.Timer
}

func newIdleTimer(limit time.Duration, tool string, cancel context.CancelCauseFunc) *idleTimer {
	it := &idleTimer{limit: limit}
	it.t = time.AfterFunc(limit, func() { cancel(&TimeoutError{Tool: tool, Limit: limit, Idle: true}) })
	return it
}

func (it *idleTimer) touch() {
	it.mu.Lock()
	defer it.mu.Unlock()
	// Reset on a fired timer would cancel again later; a fired timer has
	// already cancelled the call, so there is nothing to extend.
	if it.t.Stop() {
		it.t.Reset(it.limit)
	}
}

func (it *idleTimer) stop() {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.t.Stop()
}
