package tooltest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
)

// TestLimiter checks a [tool.Limiter] against the contract the limit stage
// relies on, one subtest per rule, each named after the rule it checks:
// at most Concurrent places at once, a place given back by done (once,
// however often done is called); a busy refusal at once without Wait, and
// a wait for a place within Wait; at most Burst starts at once and then
// the Rate, refused with the time until the next; a lease given back when
// its rate refuses; keys kept apart; exactly Concurrent winners among
// concurrent starts; prompt return when the context is done.
//
// newLimiter is called once per rule, with that rule's t, and returns the
// limiter to check; register its cleanup with t.Cleanup. The suite uses
// keys of its own, so limiters may share a backend. It waits for real time
// (under a second in all).
func TestLimiter(t *testing.T, newLimiter func(t *testing.T) tool.Limiter) {
	t.Helper()
	ctx := context.Background()
	const hold = time.Minute

	t.Run("at most Concurrent calls hold a place, and done gives one back", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		lim := tool.CallLimit{Concurrent: 2}
		a, b := startOK(t, l, key, lim), startOK(t, l, key, lim)
		wantRefused(t, l, key, lim, true)
		a()
		a() // twice: the second changes nothing
		c := startOK(t, l, key, lim)
		wantRefused(t, l, key, lim, true)
		b()
		c()
	})
	t.Run("with Wait, a call waits for a place", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		done := startOK(t, l, key, tool.CallLimit{Concurrent: 1})
		go func() {
			time.Sleep(storeTTL / 3)
			done()
		}()
		start := time.Now()
		d, err := l.Start(ctx, key, tool.CallLimit{Concurrent: 1, Wait: 10 * time.Second}, hold)
		if err != nil {
			t.Fatalf("Start with Wait while the place is held for %v: %v; want it to wait and take the place", storeTTL/3, err)
		}
		if took := time.Since(start); took < storeTTL/6 {
			t.Errorf("Start took a held place after %v", took)
		}
		if d != nil {
			d()
		}
	})
	t.Run("a wait ends with Wait", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		done := startOK(t, l, key, tool.CallLimit{Concurrent: 1})
		defer done()
		_, err := l.Start(ctx, key, tool.CallLimit{Concurrent: 1, Wait: storeTTL / 3}, hold)
		var le *tool.LimitError
		if !errors.As(err, &le) || !le.Busy {
			t.Fatalf("Start after waiting Wait for a held place = %v; want a busy *tool.LimitError", err)
		}
	})
	t.Run("Burst calls start at once, then the Rate, with the time until the next", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		lim := tool.CallLimit{Rate: 2, Per: time.Minute}
		for range 2 {
			if d := startOK(t, l, key, lim); d != nil {
				d()
			}
		}
		_, err := l.Start(ctx, key, lim, hold)
		var le *tool.LimitError
		switch {
		case !errors.As(err, &le):
			t.Fatalf("a third start within a minute of a rate of 2 per minute = %v; want a *tool.LimitError", err)
		case le.Busy:
			t.Error("a rate's refusal says Busy")
		case le.RetryAfter <= 20*time.Second || le.RetryAfter > 30*time.Second:
			t.Errorf("RetryAfter = %v; want about 30s (a token every 30 s)", le.RetryAfter)
		}
	})
	t.Run("the rate refills", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		lim := tool.CallLimit{Rate: 1, Per: storeTTL}
		startOK(t, l, key, lim)
		time.Sleep(storeTTL + storeSettle)
		if d := startOK(t, l, key, lim); d != nil {
			d()
		}
	})
	t.Run("a place taken for a call its rate refuses is given back", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		lim := tool.CallLimit{Concurrent: 1, Rate: 1, Per: storeTTL}
		startOK(t, l, key, lim)()
		wantRefused(t, l, key, lim, false)
		time.Sleep(storeTTL + storeSettle) // the token comes back; the place must be free too
		startOK(t, l, key, lim)()
	})
	t.Run("keys are kept apart", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		lim := tool.CallLimit{Concurrent: 1, Rate: 1}
		startOK(t, l, key, lim)
		for _, other := range []string{key + "x", key + "\x00s", "\x00" + key} {
			startOK(t, l, other, lim)
		}
	})
	t.Run("of many concurrent starts exactly Concurrent win", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		lim := tool.CallLimit{Concurrent: 3}
		var wins atomic.Int32
		var mu sync.Mutex
		var dones []func()
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := l.Start(ctx, key, lim, hold)
				var le *tool.LimitError
				switch {
				case err == nil:
					wins.Add(1)
					mu.Lock()
					dones = append(dones, d)
					mu.Unlock()
				case !errors.As(err, &le):
					t.Errorf("concurrent Start: %v", err)
				}
			}()
		}
		wg.Wait()
		if n := wins.Load(); n != 3 {
			t.Fatalf("%d of 16 concurrent starts won 3 places", n)
		}
		for _, d := range dones {
			if d != nil {
				d()
			}
		}
	})
	t.Run("a done context returns promptly", func(t *testing.T) {
		l, key := newLimiter(t), storeID()
		held := startOK(t, l, key, tool.CallLimit{Concurrent: 1})
		defer held()
		dead, cancel := context.WithCancel(ctx)
		cancel()
		prompt(t, "Start", func() string {
			d, err := l.Start(dead, key, tool.CallLimit{Concurrent: 1, Wait: time.Hour}, hold)
			if err == nil {
				if d != nil {
					d()
				}
				return "Start with a cancelled context took a held place"
			}
			return ""
		})
	})
}

func startOK(t *testing.T, l tool.Limiter, key string, lim tool.CallLimit) func() {
	t.Helper()
	d, err := l.Start(context.Background(), key, lim, time.Minute)
	if err != nil {
		t.Fatalf("Start(%+v): %v; want a place", lim, err)
	}
	if d == nil && lim.Concurrent > 0 {
		t.Fatalf("Start(%+v) gave no done func for a place among Concurrent", lim)
	}
	if d == nil {
		return func() {}
	}
	return d
}

func wantRefused(t *testing.T, l tool.Limiter, key string, lim tool.CallLimit, busy bool) {
	t.Helper()
	d, err := l.Start(context.Background(), key, lim, time.Minute)
	var le *tool.LimitError
	if !errors.As(err, &le) {
		if d != nil {
			d()
		}
		t.Fatalf("Start(%+v) = %v; want a *tool.LimitError", lim, err)
	}
	if le.Busy != busy {
		t.Errorf("Start(%+v) refused with Busy = %v, want %v", lim, le.Busy, busy)
	}
}
