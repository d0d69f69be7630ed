package tool

import (
	"context"
	"strconv"
	"strings"
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

// TestMemoryLimiterBoundsSessionCounts: sessions come from the wire, and a
// count whose bucket refills over an hour was kept that long, so a flood of
// session names grew the limiter without bound (200,000 sessions held
// 232 MB). Past its bound, the count of the session idle longest is
// dropped; one in use, and a count over all sessions, never is.
func TestMemoryLimiterBoundsSessionCounts(t *testing.T) {
	perSession := CallLimit{Rate: 2, Per: time.Hour, PerSession: true}
	tests := []struct {
		name     string
		sessions int
		session  func(i int) string
	}{
		{"short sessions", defaultSessionCounts + 20_000, func(i int) string { return strconv.Itoa(i) }},
		{"long sessions", 3_000, func(i int) string { return strings.Repeat("s", 64<<10) + strconv.Itoa(i) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemoryLimiter()
			if tt.sessions < defaultSessionCounts {
				m.maxSessionCounts = 1_000
			}
			ctx := context.Background()
			busy, err := m.Start(ctx, "busy"+sessionPart("held"), perSession, 0)
			if err != nil {
				t.Fatal(err)
			}
			all, err := m.Start(ctx, "all", CallLimit{Rate: 1, Per: time.Hour}, 0)
			if err != nil {
				t.Fatal(err)
			}
			all()
			for i := range tt.sessions {
				done, err := m.Start(ctx, "geo\x000"+sessionPart(tt.session(i)), perSession, 0)
				if err != nil {
					t.Fatal(err)
				}
				done()
			}
			m.mu.Lock()
			n, keyBytes := len(m.counts), 0
			for k := range m.counts {
				keyBytes += len(k)
			}
			_, kept := m.counts["busy"+sessionPart("held")]
			_, keptAll := m.counts["all"]
			m.mu.Unlock()
			if n > m.maxSessionCounts+2 {
				t.Errorf("%d counts kept after %d sessions; want at most %d", n, tt.sessions, m.maxSessionCounts+2)
			}
			if keyBytes > 200*n {
				t.Errorf("the keys of %d counts hold %d bytes", n, keyBytes)
			}
			if !kept || !keptAll {
				t.Errorf("a count in use (kept: %v) or over all sessions (kept: %v) was dropped", kept, keptAll)
			}
			busy()
		})
	}
}
