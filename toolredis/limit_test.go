package toolredis_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

// limitedReplica is one process of an agent whose fetch tool calls a paid
// API: its own registry, the deployment's shared Redis limiter.
type limitedReplica struct {
	reg *tool.Registry[struct{}]
}

func newLimitedReplica(t *testing.T, rdb redis.UniversalClient, opts *toolredis.Options, runs *atomic.Int32, gate <-chan struct{}, limits ...tool.CallLimit) *limitedReplica {
	t.Helper()
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Limiter: toolredis.NewLimiter(rdb, opts)})
	r.MustAdd(tool.New(tool.Definition{Name: "fetch", Description: "Calls a paid API.", Safety: tool.SafetyReadOnly, CallLimits: limits, Timeout: time.Minute},
		func(ctx context.Context, _ struct{}) (string, error) {
			runs.Add(1)
			if gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
				}
			}
			return "fetched", nil
		}))
	return &limitedReplica{reg: r}
}

func (r *limitedReplica) call(ctx context.Context, id, session string) *tool.Result {
	return r.reg.Call(ctx, struct{}{}, tool.Request{ID: id, Name: "fetch", Session: session})
}

func TestLimitsHoldAcrossReplicas(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()

	t.Run("two replicas share one rate", func(t *testing.T) {
		opts := &toolredis.Options{Namespace: namespace()}
		var runs atomic.Int32
		a := newLimitedReplica(t, rdb, opts, &runs, nil, tool.CallLimit{Rate: 4})
		b := newLimitedReplica(t, rdb, opts, &runs, nil, tool.CallLimit{Rate: 4})
		for i := range 4 {
			tooltest.WantOK(t, []*limitedReplica{a, b}[i%2].call(ctx, fmt.Sprint(i), "s"))
		}
		for _, r := range []*limitedReplica{a, b} {
			res := r.call(ctx, "over", "s")
			tooltest.WantStatus(t, res, tool.StatusLimited)
			tooltest.WantTextContains(t, res, "rate limited (at most 4 calls per minute)", "Retry after about 15 seconds")
			var le *tool.LimitError
			require.ErrorAs(t, res.Err, &le)
			assert.InDelta(t, 15*time.Second, le.RetryAfter, float64(2*time.Second))
		}
		assert.Equal(t, int32(4), runs.Load(), "two replicas allowed the rate once, not twice")
	})
	t.Run("per session, across replicas", func(t *testing.T) {
		opts := &toolredis.Options{Namespace: namespace()}
		var runs atomic.Int32
		lim := tool.CallLimit{Rate: 1, PerSession: true}
		a, b := newLimitedReplica(t, rdb, opts, &runs, nil, lim), newLimitedReplica(t, rdb, opts, &runs, nil, lim)
		tooltest.WantOK(t, a.call(ctx, "1", "conv-a"))
		tooltest.WantStatus(t, b.call(ctx, "2", "conv-a"), tool.StatusLimited)
		tooltest.WantOK(t, b.call(ctx, "3", "conv-b"))
	})
	t.Run("calls running at once are counted across replicas", func(t *testing.T) {
		opts := &toolredis.Options{Namespace: namespace()}
		var runs atomic.Int32
		gate := make(chan struct{})
		a := newLimitedReplica(t, rdb, opts, &runs, gate, tool.CallLimit{Concurrent: 1})
		b := newLimitedReplica(t, rdb, opts, &runs, nil, tool.CallLimit{Concurrent: 1, Wait: 30 * time.Second})
		c := newLimitedReplica(t, rdb, opts, &runs, nil, tool.CallLimit{Concurrent: 1})
		first := make(chan *tool.Result)
		go func() { first <- a.call(ctx, "1", "s") }()
		require.Eventually(t, func() bool { return runs.Load() == 1 }, 5*time.Second, time.Millisecond)
		res := c.call(ctx, "2", "s")
		tooltest.WantStatus(t, res, tool.StatusLimited)
		tooltest.WantTextContains(t, res, "busy")
		waiter := make(chan *tool.Result)
		go func() { waiter <- b.call(ctx, "3", "s") }()
		select {
		case res := <-waiter:
			t.Fatalf("b did not wait for a's call: %v %s", res.Status, res.Text())
		case <-time.After(100 * time.Millisecond):
		}
		close(gate)
		tooltest.WantOK(t, <-first)
		tooltest.WantOK(t, <-waiter)
		assert.Equal(t, int32(2), runs.Load())
	})
	t.Run("a dead replica's places come back when their leases lapse", func(t *testing.T) {
		opts := &toolredis.Options{Namespace: namespace()}
		l := toolredis.NewLimiter(rdb, opts)
		lim := tool.CallLimit{Concurrent: 1}
		const hold = 500 * time.Millisecond
		start := time.Now()
		done, err := l.Start(ctx, "fetch\x000", lim, hold)
		require.NoError(t, err)
		require.NotNil(t, done) // the replica dies: done is never called
		_, err = l.Start(ctx, "fetch\x000", lim, time.Minute)
		if time.Since(start) < hold/2 { // a machine too busy to ask in time checks only the lapse
			var le *tool.LimitError
			require.ErrorAs(t, err, &le)
			assert.True(t, le.Busy)
		}
		time.Sleep(time.Until(start.Add(hold)) + 150*time.Millisecond)
		done2, err := l.Start(ctx, "fetch\x000", lim, time.Minute)
		require.NoError(t, err, "the lease lapsed with its hold")
		done2()
	})
	t.Run("a lease taken for a call the rate refuses is given back", func(t *testing.T) {
		opts := &toolredis.Options{Namespace: namespace()}
		l := toolredis.NewLimiter(rdb, opts)
		lim := tool.CallLimit{Concurrent: 1, Rate: 1}
		done, err := l.Start(ctx, "k", lim, time.Minute)
		require.NoError(t, err)
		done()
		_, err = l.Start(ctx, "k", lim, time.Minute)
		var le *tool.LimitError
		require.ErrorAs(t, err, &le)
		assert.False(t, le.Busy, "over the rate")
		assert.Empty(t, keys(t, rdb, opts.Namespace), "no lease left behind (an empty set is no key)")
	})
}

// TestFrozenRedisLimiterFailsClosed freezes the server: a limited call
// does not run, and ends by the store's timeout.
func TestFrozenRedisLimiterFailsClosed(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	rdb := client(t, srv)
	var runs atomic.Int32
	r := newLimitedReplica(t, rdb, &toolredis.Options{Namespace: namespace(), Timeout: 200 * time.Millisecond}, &runs, nil, tool.CallLimit{Concurrent: 2, Rate: 10})
	if err := srv.Freeze(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = srv.Thaw() }()
	start := time.Now()
	res := r.call(context.Background(), "1", "s")
	tooltest.WantStatus(t, res, tool.StatusFailed)
	assert.ErrorIs(t, res.Err, tool.ErrLimiterFailed)
	assert.Less(t, time.Since(start), 3*time.Second, "bounded by the store's timeout") // generous for a loaded machine
	assert.Zero(t, runs.Load())
}

// BenchmarkLimiter compares the Redis-backed checks with a bare Redis
// round trip (EXISTS) in the same run: a rate check is one script, a
// lease two round trips (take, give back).
func BenchmarkLimiter(b *testing.B) {
	srv := redistest.New(b)
	rdb := client(b, srv)
	ctx := context.Background()
	l := toolredis.NewLimiter(rdb, &toolredis.Options{Namespace: namespace()})
	b.Run("floor=EXISTS", func(b *testing.B) {
		for b.Loop() {
			if err := rdb.Exists(ctx, "some-key").Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		lim  tool.CallLimit
	}{
		{"rate", tool.CallLimit{Rate: 1 << 30, Per: time.Second}},
		{"concurrent", tool.CallLimit{Concurrent: 64}},
		{"concurrent+rate", tool.CallLimit{Concurrent: 64, Rate: 1 << 30, Per: time.Second}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				done, err := l.Start(ctx, c.name, c.lim, time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				if done != nil {
					done()
				}
			}
		})
	}
}

func TestLimiterConforms(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	rdb := client(t, srv)
	tooltest.TestLimiter(t, func(*testing.T) tool.Limiter {
		return toolredis.NewLimiter(rdb, &toolredis.Options{Namespace: namespace()})
	})
}
