package tool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"sync/atomic"
	"time"
)

// CallLimit bounds the calls to one tool: how many may run at once, and
// how many may start per interval, counted over all the tool's calls or
// each session's apart. A call past a limit does not run: it waits, up to
// Wait and never past its context's deadline, for a place, and is then
// refused with [StatusLimited], a model view that says when to retry, an
// [EventLimited] event and a [*LimitError] cause.
//
// A tool's limits are its Definition's CallLimits, or the registry's
// [RegistryOptions.CallLimits] for its name. Every limit of a call must
// let it start. They are counted by the registry's [Limiter]: in the
// process by default, across replicas with a shared one (toolredis).
type CallLimit struct {
	// Concurrent is how many calls may run at once. Zero means any number.
	Concurrent int
	// Rate is how many calls may start per Per, refilled evenly (a token
	// bucket, which holds Burst). Zero means any number.
	Rate int
	// Per is the interval of Rate. Zero means a minute.
	Per time.Duration
	// Burst is how many calls may start at once after a quiet spell. Zero
	// means Rate.
	Burst int
	// Wait is how long a call may wait for a place (a running call to end,
	// the rate to allow one more) before it is refused. Zero refuses at
	// once. A call never waits past its context's deadline, and one the
	// rate would make wait longer than it may is refused at once.
	Wait time.Duration
	// PerSession counts each session's calls ([Request.Session]) apart,
	// instead of all the tool's calls together. Calls with no session
	// share one count.
	PerSession bool
}

// per returns the interval of the rate.
func (l CallLimit) per() time.Duration {
	if l.Per > 0 {
		return l.Per
	}
	return time.Minute
}

// burst returns how many calls may start at once.
func (l CallLimit) burst() int {
	if l.Burst > 0 {
		return l.Burst
	}
	return l.Rate
}

// problem says what is wrong with a limit, or "".
func (l CallLimit) problem() string {
	switch {
	case l.Concurrent < 0 || l.Rate < 0 || l.Per < 0 || l.Burst < 0 || l.Wait < 0:
		return "a CallLimit has a negative field"
	case l.Concurrent == 0 && l.Rate == 0:
		return "a CallLimit sets neither Concurrent nor Rate"
	case l.Rate == 0 && (l.Per != 0 || l.Burst != 0):
		return "a CallLimit sets Per or Burst without a Rate"
	}
	return ""
}

// limitKeys returns the keys the limits of the tool name are counted
// under, or what is wrong with one of them.
func limitKeys(name string, limits []CallLimit) ([]string, string) {
	if len(limits) == 0 {
		return nil, ""
	}
	keys := make([]string, len(limits))
	for i, l := range limits {
		if p := l.problem(); p != "" {
			return nil, p
		}
		keys[i] = name + "\x00" + strconv.Itoa(i)
	}
	return keys, ""
}

// Limiter keeps the counts that [CallLimit]s are enforced with. The
// default, [NewMemoryLimiter], counts in the process; one that counts in a
// store the replicas share (toolredis.Limiter) holds the limits across
// them, so that ten replicas do not allow ten times the rate. A Limiter is
// host code: the pipeline bounds each Start by the limit's Wait and the
// registry's HookTimeout, and a call whose Start does not answer in time
// does not run. Implementations must be safe for concurrent use.
type Limiter interface {
	// Start asks to start one call under lim, counted under key (made by
	// the registry from the tool's name, the limit's place in its list
	// and, for a limit per session, the session, or the digest of one
	// over 128 bytes). It waits for a place while ctx is not done, at most
	// lim.Wait. It returns done, to be
	// called once when the call ends (nil when there is nothing to give
	// back); or a *LimitError saying why the call may not start (Busy,
	// RetryAfter; the pipeline fills in the rest); or another error when
	// the counts cannot be read, and the call then does not run. hold is
	// the longest the call may keep its place (its time limit and grace;
	// zero when it has none): a Limiter that counts outside the process
	// lets the place go after it, in case the process holding it died.
	Start(ctx context.Context, key string, lim CallLimit, hold time.Duration) (done func(), err error)
}

// LimitError is the cause of a call that a [CallLimit] refused
// ([StatusLimited]), and what [EventLimited] carries.
type LimitError struct {
	// Tool is the tool's name; Session the session counted apart, for a
	// limit per session.
	Tool, Session string
	// Limit is the limit that refused the call.
	Limit CallLimit
	// Busy is set when Limit.Concurrent calls were running; otherwise the
	// call was over Limit.Rate.
	Busy bool
	// RetryAfter is how long until a call could start, as far as the
	// Limiter knows; zero when it does not (a busy tool).
	RetryAfter time.Duration
}

func (e *LimitError) Error() string {
	if e.Busy {
		return "tool: " + e.Tool + " is busy: " + calls(e.Limit.Concurrent) + " running, its limit"
	}
	return "tool: " + e.Tool + " is over its rate of " + calls(e.Limit.Rate) + " per " + e.Limit.per().String() +
		"; retry after " + e.RetryAfter.Round(time.Millisecond).String()
}

// limitStage holds the call to its tool's limits, just before the
// deadline: a call waits for a place, or is refused, before its time
// limit starts, and keeps its place until it returns. A call's limits are
// decided at registration (entry.limits); a tool with none passes
// straight through.
func limitStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) *Result {
		e := call.st.entry
		if len(e.limits) == 0 {
			return next(ctx, call)
		}
		rt := e.rt
		hold := rt.limit(&e.def)
		if hold > 0 {
			hold += rt.grace
		}
		var held [4]func() // a tool has few limits: no allocation for them
		done := held[:0]
		defer func() {
			for _, d := range done {
				d()
			}
		}()
		for i, lim := range e.limits {
			key := e.limitKeys[i]
			if lim.PerSession {
				key += sessionPart(call.Session)
			}
			d, err := startLimit(ctx, rt, key, lim, hold)
			if err != nil {
				return limitRefused(ctx, call, lim, err)
			}
			if d != nil {
				done = append(done, d)
			}
		}
		return next(ctx, call)
	}
}

// maxKeySession is the longest session a limit's key holds as it is; a
// longer one, from the wire, is held as its digest, so that a count's key
// has a bounded size in any Limiter.
const maxKeySession = 128

// sessionPart is what a limit per session adds to its key: the session,
// or the SHA-256 of a longer one after another separator, which no
// session held as it is can give.
func sessionPart(session string) string {
	if len(session) <= maxKeySession {
		return "\x00" + session
	}
	sum := sha256.Sum256([]byte(session))
	return "\x01" + hex.EncodeToString(sum[:])
}

// limitRefused is the result of a call a limit did not let start: the
// caller's context ended while it waited, the limit refused it, or the
// limiter failed.
func limitRefused[C any](ctx context.Context, call *Call[C], lim CallLimit, err error) *Result {
	var le *LimitError
	switch {
	case ctx.Err() != nil:
		return canceledResult(ctx, call.Name, notStarted)
	case errors.As(err, &le) && le != nil:
		refusal := *le
		refusal.Tool, refusal.Limit, refusal.Session = call.Name, lim, ""
		if lim.PerSession {
			refusal.Session = call.Session
		}
		call.emit(Event{Kind: EventLimited, Limit: &refusal})
		return limitedResult(&refusal)
	}
	return limiterFailedResult(call.Name, err)
}

// startLimit asks the limiter for a place. The in-process limiter is the
// library's own and is called directly; any other is host code, run as a
// bounded hook whose place, if it comes after the call gave up on it, is
// given back.
func startLimit(ctx context.Context, rt *runtimeConfig, key string, lim CallLimit, hold time.Duration) (func(), error) {
	l := rt.callLimiter()
	if m, ok := l.(*MemoryLimiter); ok {
		return m.Start(ctx, key, lim, hold)
	}
	type answer struct {
		done func()
		err  error
	}
	var ans answer
	var state atomic.Int32 // 0: waiting, 1: answered, 2: given up
	_, outcome := callHookFor(ctx, rt, lim.Wait+rt.hookTimeout, func(ctx context.Context) struct{} {
		d, err := l.Start(ctx, key, lim, hold)
		ans = answer{d, err}
		if !state.CompareAndSwap(0, 1) && d != nil {
			d() // the call gave up waiting: the place is not its
		}
		return struct{}{}
	})
	if outcome == hookOK || !state.CompareAndSwap(0, 2) {
		// It answered, maybe just after the hook's bound.
		return ans.done, ans.err
	}
	if outcome == hookPanicked {
		return nil, errLimiterPanicked
	}
	return nil, ErrHookTimeout
}
