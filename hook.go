package tool

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/tool/internal/handoff"
)

// defaultHookTimeout bounds one call of a host hook (a Classifier,
// Requirer, Describer, ArgsValidator or Validate method, an ApprovalStore,
// a SpillStore) when RegistryOptions leave it unset. Hooks should answer in
// microseconds; the bound is for the one that blocks on a hung mount or a
// dead connection.
const defaultHookTimeout = 5 * time.Second

// hookOutcome is how a hook call ended.
type hookOutcome uint8

const (
	hookOK hookOutcome = iota
	hookPanicked
	hookTimedOut // the bound or ctx ended first; the hook may still run
)

// callHook runs fn, the host's code, on a goroutine of its own and waits
// for it at most bound and until ctx is done. A hook that panics, or does
// not answer in time, gives the zero T and says so; the caller then takes
// its documented fallback. One that is still running when it is given up on
// is counted (Stats.HooksAbandoned, HooksRunning) until it returns.
func callHook[T any](ctx context.Context, rt *runtimeConfig, fn func(context.Context) T) (T, hookOutcome) {
	return callHookFor(ctx, rt, rt.hookTimeout, fn)
}

// callHookFor is callHook with its own bound; zero means ctx alone bounds
// the wait.
func callHookFor[T any](ctx context.Context, rt *runtimeConfig, bound time.Duration, fn func(context.Context) T) (T, hookOutcome) {
	var zero T
	if ctx.Err() != nil {
		return zero, hookTimedOut
	}
	hctx, cancel := ctx, context.CancelFunc(func() {})
	if bound > 0 {
		hctx, cancel = context.WithTimeout(ctx, bound)
	}
	defer cancel()
	type answer struct {
		v        T
		panicked bool
	}
	done := make(chan answer, 1) // buffered: a late answer never blocks
	var state atomic.Int32
	counters := rt.counters
	task := func() {
		returned := false
		defer func() {
			if !returned {
				_ = recover() // a panic, or runtime.Goexit
				done <- answer{panicked: true}
			}
			if !state.CompareAndSwap(handoff.Running, handoff.Returned) {
				counters.hooksRunning.Add(-1)
			}
		}()
		v := fn(hctx)
		returned = true
		done <- answer{v: v}
	}
	handoff.Go(task)
	select {
	case a := <-done:
		if a.panicked {
			return zero, hookPanicked
		}
		return a.v, hookOK
	case <-hctx.Done():
		counters.hooksRunning.Add(1)
		if state.CompareAndSwap(handoff.Running, handoff.Abandoned) {
			counters.hooksAbandoned.Add(1)
			return zero, hookTimedOut
		}
		counters.hooksRunning.Add(-1)
		a := <-done // it answered just now
		if a.panicked {
			return zero, hookPanicked
		}
		return a.v, hookOK
	}
}
