package tool_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// gated is a tool whose calls wait on gate and count their runs.
type gated struct {
	gate    chan struct{}
	started chan struct{}
	runs    atomic.Int32
}

func newGated(def tool.Definition) (*gated, tool.AnyTool) {
	g := &gated{gate: make(chan struct{}), started: make(chan struct{}, 100)}
	if def.Name == "" {
		def.Name = "fetch"
	}
	def.Description = "Fetches from a paid API."
	def.Safety = tool.SafetyReadOnly
	return g, tool.New(def, func(ctx context.Context, _ struct{}) (string, error) {
		g.runs.Add(1)
		g.started <- struct{}{}
		select {
		case <-g.gate:
		case <-ctx.Done():
		}
		return "fetched", nil
	})
}

// open lets every call through.
func (g *gated) open() *gated { close(g.gate); return g }

func limitCall(r *tool.Registry[struct{}], ctx context.Context, id, session string) *tool.Result {
	return r.Call(ctx, struct{}{}, tool.Request{ID: id, Name: "fetch", Session: session})
}

func TestConcurrencyLimit(t *testing.T) {
	t.Run("a busy tool refuses at once, and says so", func(t *testing.T) {
		rec := &tooltest.Recorder{}
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Concurrent: 1}}})
		r := registryWith(t, &tool.RegistryOptions{Observer: rec}, ft)
		first := make(chan *tool.Result)
		go func() { first <- limitCall(r, context.Background(), "1", "s") }()
		<-g.started
		res := limitCall(r, context.Background(), "2", "s")
		tooltest.WantStatus(t, res, tool.StatusLimited)
		tooltest.WantTextContains(t, res, "did not run", "busy", "1 call of it running", "do something else")
		var le *tool.LimitError
		require.ErrorAs(t, res.Err, &le)
		assert.True(t, le.Busy)
		assert.Equal(t, "fetch", le.Tool)
		assert.Equal(t, "started limited finished", rec.Kinds("2"))
		assert.Equal(t, int32(1), g.runs.Load(), "the refused call never ran")
		g.open()
		tooltest.WantOK(t, <-first)
		tooltest.WantOK(t, limitCall(r, context.Background(), "3", "s"))
	})
	t.Run("with Wait, a call waits for a place", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Concurrent: 1, Wait: time.Minute}}})
		r := registryWith(t, nil, ft)
		first := make(chan *tool.Result)
		go func() { first <- limitCall(r, context.Background(), "1", "s") }()
		<-g.started
		second := make(chan *tool.Result)
		go func() { second <- limitCall(r, context.Background(), "2", "s") }()
		select {
		case res := <-second:
			t.Fatalf("the second call did not wait: %v %s", res.Status, res.Text())
		case <-time.After(50 * time.Millisecond):
		}
		assert.Equal(t, int32(1), g.runs.Load())
		g.open()
		tooltest.WantOK(t, <-first)
		tooltest.WantOK(t, <-second)
	})
	t.Run("a wait ends with the caller's deadline, and nothing runs", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Concurrent: 1, Wait: time.Hour}}})
		r := registryWith(t, nil, ft)
		go limitCall(r, context.Background(), "1", "s")
		<-g.started
		defer g.open()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		res := limitCall(r, ctx, "2", "s")
		tooltest.WantStatus(t, res, tool.StatusTimedOut)
		tooltest.WantTextContains(t, res, "before it started. It did not run.")
		assert.Less(t, time.Since(start), 30*time.Second, "waited past the deadline")
		assert.Equal(t, int32(1), g.runs.Load())
	})
	t.Run("per session, one session's calls leave the others room", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Concurrent: 1, PerSession: true}}})
		r := registryWith(t, nil, ft)
		go limitCall(r, context.Background(), "1", "a")
		<-g.started
		res := limitCall(r, context.Background(), "2", "a")
		tooltest.WantStatus(t, res, tool.StatusLimited)
		var le *tool.LimitError
		require.ErrorAs(t, res.Err, &le)
		assert.Equal(t, "a", le.Session)
		other := make(chan *tool.Result)
		go func() { other <- limitCall(r, context.Background(), "3", "b") }()
		<-g.started
		g.open()
		tooltest.WantOK(t, <-other)
	})
}

func TestRateLimit(t *testing.T) {
	t.Run("over the rate, the model is told when to retry", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Rate: 2}}})
		g.open()
		r := registryWith(t, nil, ft)
		for i := range 2 {
			tooltest.WantOK(t, limitCall(r, context.Background(), fmt.Sprint(i), "s"))
		}
		res := limitCall(r, context.Background(), "3", "s")
		tooltest.WantStatus(t, res, tool.StatusLimited)
		tooltest.WantTextContains(t, res, "rate limited (at most 2 calls per minute)", "Retry after about 3")
		var le *tool.LimitError
		require.ErrorAs(t, res.Err, &le)
		assert.False(t, le.Busy)
		assert.InDelta(t, 30*time.Second, le.RetryAfter, float64(5*time.Second), "a token comes every 30 s")
		assert.Equal(t, int32(2), g.runs.Load())
	})
	t.Run("a call waits for a token that comes within Wait", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Rate: 1, Per: 20 * time.Millisecond, Wait: time.Minute}}})
		g.open()
		r := registryWith(t, nil, ft)
		for i := range 3 {
			tooltest.WantOK(t, limitCall(r, context.Background(), fmt.Sprint(i), "s"))
		}
	})
	t.Run("a call does not wait for a token that comes after Wait", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Rate: 1, Per: time.Hour, Wait: time.Minute}}})
		g.open()
		r := registryWith(t, nil, ft)
		tooltest.WantOK(t, limitCall(r, context.Background(), "1", "s"))
		start := time.Now()
		tooltest.WantStatus(t, limitCall(r, context.Background(), "2", "s"), tool.StatusLimited)
		assert.Less(t, time.Since(start), 30*time.Second, "refused at once, not after waiting its minute")
	})
	t.Run("the registry's options set limits by name", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Rate: 100}}})
		g.open()
		r := registryWith(t, &tool.RegistryOptions{CallLimits: map[string][]tool.CallLimit{"fetch": {{Rate: 1, PerSession: true}}}}, ft)
		tooltest.WantOK(t, limitCall(r, context.Background(), "1", "a"))
		tooltest.WantStatus(t, limitCall(r, context.Background(), "2", "a"), tool.StatusLimited)
		tooltest.WantOK(t, limitCall(r, context.Background(), "3", "b"))
	})
	t.Run("every limit must let a call start", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Rate: 100}, {Rate: 1, PerSession: true}}})
		g.open()
		r := registryWith(t, nil, ft)
		tooltest.WantOK(t, limitCall(r, context.Background(), "1", "a"))
		tooltest.WantStatus(t, limitCall(r, context.Background(), "2", "a"), tool.StatusLimited)
	})
}

func TestCallLimitsAreCheckedAtRegistration(t *testing.T) {
	for _, tt := range []struct {
		lim  tool.CallLimit
		want string
	}{
		{tool.CallLimit{}, "sets neither Concurrent nor Rate"},
		{tool.CallLimit{Concurrent: -1}, "negative"},
		{tool.CallLimit{Concurrent: 1, Burst: 2}, "without a Rate"},
	} {
		_, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{tt.lim}})
		err := tool.NewRegistry[struct{}](nil).Add(ft)
		require.Error(t, err, "%+v", tt.lim)
		assert.Contains(t, err.Error(), tt.want)
		_, ft = newGated(tool.Definition{})
		err = tool.NewRegistry[struct{}](&tool.RegistryOptions{CallLimits: map[string][]tool.CallLimit{"fetch": {tt.lim}}}).Add(ft)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "RegistryOptions.CallLimits")
	}
}

// limiterFunc adapts a function to tool.Limiter.
type limiterFunc func(ctx context.Context, key string, lim tool.CallLimit, hold time.Duration) (func(), error)

func (f limiterFunc) Start(ctx context.Context, key string, lim tool.CallLimit, hold time.Duration) (func(), error) {
	return f(ctx, key, lim, hold)
}

func TestLimiterFaults(t *testing.T) {
	g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Concurrent: 5}}, Timeout: time.Minute})
	g.open()
	t.Run("a failing limiter: the call does not run", func(t *testing.T) {
		r := registryWith(t, &tool.RegistryOptions{Limiter: limiterFunc(func(context.Context, string, tool.CallLimit, time.Duration) (func(), error) {
			return nil, errors.New("redis: connection refused")
		})}, ft)
		res := limitCall(r, context.Background(), "1", "s")
		tooltest.WantStatus(t, res, tool.StatusFailed)
		assert.ErrorIs(t, res.Err, tool.ErrLimiterFailed)
		assert.NotContains(t, res.Text(), "redis", "the limiter's error is host data")
	})
	t.Run("a panicking limiter: the call does not run", func(t *testing.T) {
		r := registryWith(t, &tool.RegistryOptions{Limiter: limiterFunc(func(context.Context, string, tool.CallLimit, time.Duration) (func(), error) {
			panic("bug")
		})}, ft)
		res := limitCall(r, context.Background(), "1", "s")
		tooltest.WantStatus(t, res, tool.StatusFailed)
		assert.ErrorIs(t, res.Err, tool.ErrLimiterFailed)
	})
	t.Run("a limiter that answers too late has its place given back", func(t *testing.T) {
		var released atomic.Int32
		answered := make(chan struct{})
		r := registryWith(t, &tool.RegistryOptions{HookTimeout: 20 * time.Millisecond,
			Limiter: limiterFunc(func(context.Context, string, tool.CallLimit, time.Duration) (func(), error) {
				defer close(answered)
				time.Sleep(200 * time.Millisecond) // ignores its context
				return func() { released.Add(1) }, nil
			})}, ft)
		before := g.runs.Load()
		res := limitCall(r, context.Background(), "1", "s")
		tooltest.WantStatus(t, res, tool.StatusFailed)
		assert.ErrorIs(t, res.Err, tool.ErrHookTimeout)
		<-answered
		assert.Eventually(t, func() bool { return released.Load() == 1 }, 5*time.Second, 5*time.Millisecond)
		assert.Equal(t, before, g.runs.Load(), "nothing ran")
	})
	t.Run("the limiter is told the key, the limit and how long a place is held", func(t *testing.T) {
		var mu sync.Mutex
		var keys []string
		var holds []time.Duration
		r := registryWith(t, &tool.RegistryOptions{Grace: time.Second, Limiter: limiterFunc(func(_ context.Context, key string, lim tool.CallLimit, hold time.Duration) (func(), error) {
			mu.Lock()
			defer mu.Unlock()
			keys, holds = append(keys, key), append(holds, hold)
			return nil, nil
		})}, ft)
		tooltest.WantOK(t, limitCall(r, context.Background(), "1", "s"))
		assert.Equal(t, []string{"fetch\x000"}, keys)
		assert.Equal(t, []time.Duration{time.Minute + time.Second}, holds, "the tool's time limit and the grace")
	})
}

func TestDefinitionsWithLimitsStillMarshal(t *testing.T) {
	_, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Rate: 1}}})
	b, err := ft.Definition().MarshalJSON()
	require.NoError(t, err)
	assert.NotContains(t, string(b), "limit", "limits are host settings, not what the model sees")
}

// BenchmarkCallLimited compares a call to a tool with limits, counted in
// the process, with the same call to a tool without (the floor), in one
// run.
func BenchmarkCallLimited(b *testing.B) {
	cases := []struct {
		name   string
		limits []tool.CallLimit
	}{
		{"floor=unlimited", nil},
		{"concurrent", []tool.CallLimit{{Concurrent: 64}}},
		{"rate", []tool.CallLimit{{Rate: 1 << 30, Per: time.Second}}},
		{"concurrent+rate-per-session", []tool.CallLimit{{Concurrent: 64}, {Rate: 1 << 30, Per: time.Second, PerSession: true}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			r := tool.NewRegistry[struct{}](nil)
			r.MustAdd(tool.New(tool.Definition{Name: "search", Description: "Search the code base.", CallLimits: c.limits}, benchSearch))
			req := tool.Request{ID: "1", Name: "search", Args: benchValid, Session: "conv"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if res := r.Call(ctx, struct{}{}, req); res.IsError {
					b.Fatal(res.Text())
				}
			}
		})
	}
}
