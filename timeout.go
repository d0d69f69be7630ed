package tool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/tool/keyring"
)

// DefaultTimeout bounds a call to a tool whose Definition has no Timeout,
// in a registry whose options set none. Long enough for a build or a test
// run, short enough that a hung tool does not stall an agent for good.
const DefaultTimeout = 2 * time.Minute

// DefaultGrace is how long a tool has to return once its context is done
// (timed out or cancelled) before the pipeline stops waiting for it.
const DefaultGrace = 2 * time.Second

// TimeoutError is the context cause of a call that ran past its time limit:
// the tool's Timeout, the registry default, or the idle limit. It matches
// context.DeadlineExceeded with errors.Is, so a tool checking for a timeout
// in the usual way sees one.
type TimeoutError struct {
	Tool  string
	Limit time.Duration
	// Idle is set when the call was stopped for reporting no progress for
	// Limit (Definition.IdleTimeout), not for running longer than its
	// Timeout.
	Idle bool
}

func (e *TimeoutError) Error() string {
	if e.Idle {
		return fmt.Sprintf("tool %s reported no progress for %v (its idle limit)", e.Tool, e.Limit)
	}
	return fmt.Sprintf("tool %s ran longer than its %v time limit", e.Tool, e.Limit)
}

// Is reports whether target is context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// ErrAbandoned is wrapped in the host-side cause of a call whose tool did not
// return within the grace period after its context was done. The tool's
// goroutine may still be running; its eventual result is dropped.
var ErrAbandoned = errors.New("tool did not return after its context was done; abandoned")

// Stats are figures a host can watch: a rising AbandonedRunning or
// HooksRunning means tools or host hooks that ignore their context are
// piling up.
type Stats struct {
	// Abandoned counts calls given up on since the registry was created.
	Abandoned int64
	// AbandonedRunning counts abandoned calls whose tool has not returned yet.
	AbandonedRunning int64
	// HooksAbandoned counts calls of host hooks (classifier, requirer,
	// describer, argument checks, approver, approval store, spill store)
	// that did not answer within their bound, so the call went on with the
	// hook's fallback; HooksRunning those still running.
	HooksAbandoned, HooksRunning int64
	// ObserverTimeouts counts calls that returned before their observer had
	// seen all their events, because it was stuck (see
	// RegistryOptions.ObserverTimeout); EventsDropped counts progress and
	// partial events a lagging observer never saw.
	ObserverTimeouts, EventsDropped int64
}

// counters backs Stats.
type counters struct {
	abandoned, abandonedRunning   atomic.Int64
	hooksAbandoned, hooksRunning  atomic.Int64
	observerTimeouts, eventsDrops atomic.Int64
}

func (c *counters) stats() Stats {
	return Stats{Abandoned: c.abandoned.Load(), AbandonedRunning: c.abandonedRunning.Load(),
		HooksAbandoned: c.hooksAbandoned.Load(), HooksRunning: c.hooksRunning.Load(),
		ObserverTimeouts: c.observerTimeouts.Load(), EventsDropped: c.eventsDrops.Load()}
}

// runtimeConfig is what the deadline and event stages read: the registry's
// options, or the defaults for a tool run through Wrap.
type runtimeConfig struct {
	timeout  time.Duration // < 0: none
	grace    time.Duration
	observer Observer
	counters *counters
	maxOut   int        // byte cap on a result's model view
	spill    SpillStore // where cut output is kept, if anywhere

	hookTimeout     time.Duration
	observerTimeout time.Duration
	keepInvisible   bool

	keyOnce sync.Once
	keyring *keyring.Keyring
}

// cursorKeyring returns the configured keyring, or a random one made on
// first use (cursors then verify only in this process).
func (rt *runtimeConfig) cursorKeyring() *keyring.Keyring {
	rt.keyOnce.Do(func() {
		if rt.keyring == nil {
			rt.keyring = keyring.Random()
		}
	})
	return rt.keyring
}

var standaloneCounters counters

var defaultRuntime = &runtimeConfig{timeout: DefaultTimeout, grace: DefaultGrace, counters: &standaloneCounters, maxOut: DefaultMaxOutputBytes,
	hookTimeout: defaultHookTimeout, observerTimeout: defaultObserverTimeout}

func newRuntime(o *RegistryOptions) *runtimeConfig {
	rt := &runtimeConfig{timeout: o.DefaultTimeout, grace: o.Grace, observer: o.Observer, counters: &counters{},
		keyring: o.Keyring, maxOut: o.MaxOutputBytes, spill: o.Spill, hookTimeout: o.HookTimeout, observerTimeout: o.ObserverTimeout,
		keepInvisible: o.KeepInvisible}
	if rt.hookTimeout <= 0 {
		rt.hookTimeout = defaultHookTimeout
	}
	if rt.observerTimeout <= 0 {
		rt.observerTimeout = defaultObserverTimeout
	}
	if rt.maxOut <= 0 {
		rt.maxOut = DefaultMaxOutputBytes
	}
	if rt.timeout == 0 {
		rt.timeout = DefaultTimeout
	}
	if rt.grace <= 0 {
		rt.grace = DefaultGrace
	}
	return rt
}

// limit returns the time limit of a call to def: its own, or the default.
func (rt *runtimeConfig) limit(def *Definition) time.Duration {
	if def != nil && def.Timeout > 0 {
		return def.Timeout
	}
	return rt.timeout
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

// abandonedResult is the result of a call whose tool was still running
// a grace period after its context was done.
func abandonedResult(cause error, name string, grace time.Duration) *Result {
	res := canceledResultCause(context.Background(), cause, name, abandoned)
	res.Err = fmt.Errorf("%w (%v after its context was done): %w", ErrAbandoned, grace, cause)
	return res
}

// newCallCtx is the deadline stage: the context the tool runs under, with
// the call's own time limit (its Definition's Timeout, or the registry's
// default), a TimeoutError cause, the idle limit when the tool has one,
// and what ReportProgress and paginated tools reach through it.
func newCallCtx[C any](parent context.Context, rt *runtimeConfig, call *Call[C]) *callCtx {
	cc := &callCtx{parent: parent, page: call.page, info: CallInfo{ID: call.ID, Name: call.Name, Session: call.Session}}
	if limit := rt.limit(call.def); limit > 0 {
		cc.deadline, cc.limit = time.Now().Add(limit), limit
	}
	var idle *idleTimer
	if call.def != nil && call.def.IdleTimeout > 0 {
		// The idle limit needs a context that progress can push back:
		// made now, as the parent the call's context is built on.
		p, cancel := context.WithCancelCause(parent)
		idle = newIdleTimer(call.def.IdleTimeout, call.Name, cancel)
		cc.parent = p
		cc.idleStop = func() { idle.stop(); cancel(nil) }
	}
	if call.events != nil || idle != nil {
		cc.scope = &callScope{events: call.events, idle: idle}
	}
	return cc
}
