package tool

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/tool/keyring"
)

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

	limiterOnce sync.Once
	limiter     Limiter // counts the calls of limited tools; made on first use when none was given

	records     RecordStore // keeps the records of calls, if anything does
	recordFor   time.Duration
	recordLease time.Duration // how long a claim lasts before its tool starts (record.go)
}

// callLimiter returns the configured limiter, or an in-process one made on
// first use.
func (rt *runtimeConfig) callLimiter() Limiter {
	rt.limiterOnce.Do(func() {
		if rt.limiter == nil {
			rt.limiter = NewMemoryLimiter()
		}
	})
	return rt.limiter
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
	hookTimeout: defaultHookTimeout, observerTimeout: defaultObserverTimeout, recordFor: defaultRecordFor, recordLease: recordLease}

func newRuntime(o *RegistryOptions) *runtimeConfig {
	rt := &runtimeConfig{timeout: o.DefaultTimeout, grace: o.Grace, observer: o.Observer, counters: &counters{},
		keyring: o.Keyring, maxOut: o.MaxOutputBytes, spill: o.Spill, hookTimeout: o.HookTimeout, observerTimeout: o.ObserverTimeout,
		keepInvisible: o.KeepInvisible, limiter: o.Limiter, records: o.Records, recordFor: o.RecordFor, recordLease: recordLease}
	if rt.recordFor <= 0 {
		rt.recordFor = defaultRecordFor
	}
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
