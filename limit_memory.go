package tool

import (
	"container/list"
	"context"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
	"golang.org/x/time/rate"
)

// NewMemoryLimiter returns a [Limiter] that counts in the process: what a
// registry uses when its options name none.
func NewMemoryLimiter() *MemoryLimiter {
	return &MemoryLimiter{counts: map[string]*limitCount{}, sweepAt: minLimitSweep, maxSessionCounts: defaultSessionCounts}
}

// MemoryLimiter is a [Limiter] in memory, for one process: a weighted
// semaphore (golang.org/x/sync/semaphore) for the calls running at once
// and a token bucket (golang.org/x/time/rate) for the rate, per key.
//
// The count of a session (a limit with PerSession) is dropped once it is
// back at rest (no call running, the bucket full), which is the state a
// new count starts in: memory follows the sessions active within one
// refill of their bucket, not every session ever seen. Sessions come from
// the wire, and a bucket that refills over hours keeps its count that
// long, so the counts of sessions are also bounded: past 100,000 of them,
// the count of the session that has been idle longest (no call running or
// waiting) is dropped, which gives that session a new count, as a session
// of a new name would get. It is safe for concurrent use.
type MemoryLimiter struct {
	mu               sync.Mutex
	counts           map[string]*limitCount
	sweepAt          int       // sweep the counts at rest when there are this many
	idle             list.List // of *limitCount: counts per session no call uses, longest idle first
	maxSessionCounts int       // past this many counts per session, the longest idle is dropped
	sessionCounts    int       // counts per session in counts
}

// defaultSessionCounts bounds the counts per session a MemoryLimiter
// keeps: a few hundred bytes each.
const defaultSessionCounts = 100_000

// minLimitSweep is the fewest counts worth sweeping for.
const minLimitSweep = 1024

// limitCount is one key's counts.
type limitCount struct {
	lim     CallLimit
	sem     *semaphore.Weighted // nil without Concurrent
	rate    *rate.Limiter       // nil without Rate
	running int                 // places held, under MemoryLimiter.mu
	users   int                 // calls using it, under MemoryLimiter.mu: never dropped while used
	key     string
	idle    *list.Element // in MemoryLimiter.idle while no call uses a count per session
}

// Start implements [Limiter]. It takes a place among the calls running
// at once, then a token of the rate, waiting for each within lim.Wait and
// ctx; a token the call then cannot wait for is given back.
func (m *MemoryLimiter) Start(ctx context.Context, key string, lim CallLimit, _ time.Duration) (func(), error) {
	c := m.use(key, lim)
	var deadline time.Time
	if lim.Wait > 0 {
		deadline = time.Now().Add(lim.Wait)
		if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
			deadline = d
		}
	}
	if c.sem != nil {
		if err := acquire(ctx, c.sem, deadline); err != nil {
			m.unuse(c, false)
			return nil, err
		}
	}
	if c.rate != nil {
		if err := reserve(ctx, c.rate, deadline); err != nil {
			if c.sem != nil {
				c.sem.Release(1)
			}
			m.unuse(c, false)
			return nil, err
		}
	}
	m.mu.Lock()
	c.running++
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			if c.sem != nil {
				c.sem.Release(1)
			}
			m.unuse(c, true)
		})
	}, nil
}

// acquire takes a place of sem, waiting until deadline (none: not at all).
func acquire(ctx context.Context, sem *semaphore.Weighted, deadline time.Time) error {
	if sem.TryAcquire(1) {
		return nil
	}
	if deadline.IsZero() || ctx.Err() != nil {
		return &LimitError{Busy: true}
	}
	wctx := ctx // the caller's deadline comes first: its end is the caller's, not a refusal
	if d, ok := ctx.Deadline(); !ok || d.After(deadline) {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	if err := sem.Acquire(wctx, 1); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &LimitError{Busy: true}
	}
	return nil
}

// reserve takes a token of r, waiting for it until deadline (none: not
// at all); a token that would come later is given back, and the refusal
// says when it would have come.
func reserve(ctx context.Context, r *rate.Limiter, deadline time.Time) error {
	now := time.Now()
	res := r.ReserveN(now, 1)
	if !res.OK() {
		return &LimitError{}
	}
	delay := res.DelayFrom(now)
	if delay == 0 {
		return nil
	}
	if deadline.IsZero() || now.Add(delay).After(deadline) {
		res.CancelAt(now)
		return &LimitError{RetryAfter: delay}
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		res.Cancel()
		return ctx.Err()
	}
}

// use returns key's counts, made for lim when there are none (or when
// they were made for another limit), and marks them used.
func (m *MemoryLimiter) use(key string, lim CallLimit) *limitCount {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts[key]
	if c == nil || c.lim != lim && c.users == 0 {
		if c != nil {
			m.drop(c)
		}
		if len(m.counts) >= m.sweepAt {
			m.sweep()
		}
		if lim.PerSession {
			m.sessionCounts++
			for m.sessionCounts > m.maxSessionCounts && m.idle.Len() > 0 {
				m.drop(m.idle.Front().Value.(*limitCount))
			}
		}
		c = newLimitCount(key, lim)
		m.counts[key] = c
	}
	if c.idle != nil {
		m.idle.Remove(c.idle)
		c.idle = nil
	}
	c.users++
	return c
}

// drop forgets c; m.mu is held.
func (m *MemoryLimiter) drop(c *limitCount) {
	if c.idle != nil {
		m.idle.Remove(c.idle)
		c.idle = nil
	}
	if c.lim.PerSession {
		m.sessionCounts--
	}
	delete(m.counts, c.key)
}

// unuse marks c no longer used by a call, which held a place if held.
func (m *MemoryLimiter) unuse(c *limitCount, held bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c.users--
	if held {
		c.running--
	}
	if c.users == 0 && c.lim.PerSession && m.counts[c.key] == c {
		c.idle = m.idle.PushBack(c)
	}
}

func newLimitCount(key string, lim CallLimit) *limitCount {
	c := &limitCount{lim: lim, key: key}
	if lim.Concurrent > 0 {
		c.sem = semaphore.NewWeighted(int64(lim.Concurrent))
	}
	if lim.Rate > 0 {
		c.rate = rate.NewLimiter(rate.Every(lim.per()/time.Duration(lim.Rate)), lim.burst())
	}
	return c
}

// sweep drops the counts at rest, which a new count would equal; m.mu is
// held. The next sweep comes when the counts have doubled, so sweeping
// costs a constant per count made.
func (m *MemoryLimiter) sweep() {
	now := time.Now()
	for _, c := range m.counts {
		if c.users == 0 && c.running == 0 && (c.rate == nil || c.rate.TokensAt(now) >= float64(c.rate.Burst())) {
			m.drop(c)
		}
	}
	m.sweepAt = max(2*len(m.counts), minLimitSweep)
}

var _ Limiter = (*MemoryLimiter)(nil)
