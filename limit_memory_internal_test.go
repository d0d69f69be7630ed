package tool

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestMemoryLimiterDropsCountsAtRest: the counts of sessions that are back
// at rest are dropped, so memory follows the sessions active now, not
// every session seen; a count in use is kept.
func TestMemoryLimiterDropsCountsAtRest(t *testing.T) {
	m := NewMemoryLimiter()
	ctx := context.Background()
	busy, err := m.Start(ctx, "busy", CallLimit{Concurrent: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20_000 {
		done, err := m.Start(ctx, "session-"+strconv.Itoa(i), CallLimit{Concurrent: 1, Rate: 1, Per: time.Nanosecond}, 0)
		if err != nil {
			t.Fatal(err)
		}
		done()
	}
	m.mu.Lock()
	n, kept := len(m.counts), m.counts["busy"] != nil
	m.mu.Unlock()
	if n > 2*minLimitSweep {
		t.Errorf("%d counts kept after 20,000 sessions came and went; want at most %d", n, 2*minLimitSweep)
	}
	if !kept {
		t.Error("a count with a place held was dropped")
	}
	busy()
}
