package tooltest

import (
	"sync"
	"time"
)

// Clock is a fake clock for whatever takes a `func() time.Time` (cursor
// expiry, say): pass clock.Now, then move time with Advance. It starts at
// a fixed instant so tests are reproducible. Safe for concurrent use.
//
// For timeouts and other waits on timers, run the test in a
// testing/synctest bubble instead: the pipeline's deadlines use the time
// package, which the bubble fakes.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// ClockStart is where a new Clock starts.
var ClockStart = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// NewClock returns a clock reading ClockStart.
func NewClock() *Clock { return &Clock{now: ClockStart} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		c.now = ClockStart
	}
	return c.now
}

// Advance moves the clock forward by d (backward if d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		c.now = ClockStart
	}
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
