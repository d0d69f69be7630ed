package tool_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

// TestLoad drives 10,000 concurrent calls that mix valid, invalid,
// panicking, slow, abandoned and cancelled calls through a registry with an
// observer and approval, while tools are added, and checks what must hold
// under load: every call gets exactly its own result, each call's events
// are one started first and one finished last, and goroutines and heap
// return to their baseline. It reports latency, throughput and peak heap;
// it asserts no timing. Skipped with -short.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	const calls = 10_000
	type echoArgs struct {
		ID string `json:"id"`
	}
	obs := &orderChecker{calls: map[string][]tool.EventKind{}}
	var cancels sync.Map // call ID → its cancel function, for the calls cancelled while they run
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: obs, Grace: 50 * time.Millisecond})
	r.MustAdd(
		tool.New(tool.Definition{Name: "echo", Description: "Echoes.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in echoArgs) (string, error) { return "echo " + in.ID, nil }),
		tool.New(tool.Definition{Name: "write", Description: "Writes.", Safety: tool.SafetyMutating},
			func(_ context.Context, in echoArgs) (string, error) { return "wrote " + in.ID, nil }),
		tool.New(tool.Definition{Name: "crash", Description: "Crashes."},
			func(context.Context, echoArgs) (string, error) { panic("boom") }),
		tool.New(tool.Definition{Name: "slow", Description: "Sleeps.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, in echoArgs) (string, error) {
				tool.ReportProgress(ctx, tool.Progress{Message: in.ID})
				select {
				case <-time.After(20 * time.Millisecond):
					return "slept " + in.ID, nil
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}),
		tool.New(tool.Definition{Name: "cancelled", Description: "Is cancelled while it runs.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, in echoArgs) (string, error) {
				cancel, _ := cancels.Load(in.ID)
				cancel.(context.CancelCauseFunc)(errors.New("stop"))
				<-ctx.Done()
				return "finished anyway " + in.ID, nil // must never be reported
			}),
		tool.New(tool.Definition{Name: "stubborn", Description: "Ignores its context.", Safety: tool.SafetyReadOnly, Timeout: 10 * time.Millisecond},
			func(_ context.Context, in echoArgs) (string, error) {
				time.Sleep(100 * time.Millisecond)
				return "late " + in.ID, nil
			}),
	)
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
		return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
	})}))

	// The runtime keeps the descriptor of every goroutine that ever ran, for
	// reuse, and never frees it: some hundreds of bytes each, about 7 MiB for
	// the goroutines of 10,000 concurrent calls. Grow that pool before the
	// baseline, so the heap check below sees only what the calls keep.
	warmGoroutines(3 * calls)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	baseGoroutines := runtime.NumGoroutine()

	kinds := []string{"echo", "write", "bad", "crash", "slow", "cancel", "stubborn", "unknown"}
	results := make([]*tool.Result, calls)
	took := make([]time.Duration, calls)
	var peak uint64
	stopSampling := sampleHeap(&peak)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			kind := kinds[i%len(kinds)]
			id := fmt.Sprint(i)
			req := tool.Request{ID: id, Name: kind, Args: []byte(`{"id":"` + id + `"}`), Session: "s"}
			ctx := context.Background()
			switch kind {
			case "bad":
				req.Name, req.Args = "echo", []byte(`{"id":5}`)
			case "cancel":
				req.Name = "cancelled"
				c, cancel := context.WithCancelCause(ctx)
				cancels.Store(id, cancel)
				defer cancels.Delete(id)
				ctx = c
			case "unknown":
				req.Name = "ech0"
			}
			t0 := time.Now()
			results[i] = r.Call(ctx, struct{}{}, req)
			took[i] = time.Since(t0)
		})
		if i == calls/2 { // registration in flight
			wg.Go(func() {
				r.MustAdd(tool.New(tool.Definition{Name: "late_tool", Description: "Added under load."},
					func(context.Context, struct{}) (string, error) { return "", nil }))
			})
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopSampling()

	for i, res := range results {
		id := fmt.Sprint(i)
		require.NotNil(t, res, "call %d", i)
		require.Equal(t, id, res.CallID, "call %d got another call's result", i)
		want := map[string]tool.Status{"echo": tool.StatusOK, "write": tool.StatusOK, "bad": tool.StatusInvalid, "crash": tool.StatusPanicked,
			"slow": tool.StatusOK, "cancel": tool.StatusCanceled, "stubborn": tool.StatusTimedOut, "unknown": tool.StatusUnknownTool}[kinds[i%len(kinds)]]
		require.Equal(t, want, res.Status, "call %d (%s): %s", i, kinds[i%len(kinds)], res.Text())
		if res.Status == tool.StatusOK {
			require.True(t, strings.HasSuffix(res.Text(), " "+id), "call %d answered %q", i, res.Text())
		}
	}
	obs.check(t, calls)

	slices.Sort(took)
	t.Logf("%d calls in %v: %.0f calls/s; latency p50 %v, p99 %v, max %v; peak heap %.1f MiB (baseline %.1f MiB); stats %+v",
		calls, elapsed.Round(time.Millisecond), float64(calls)/elapsed.Seconds(), took[calls/2], took[calls*99/100], took[calls-1],
		float64(peak)/(1<<20), float64(before.HeapAlloc)/(1<<20), r.Stats())

	// The stubborn tools finish 100 ms after they were given up on; the
	// pool's idle workers leave after 50 ms.
	require.Eventually(t, func() bool { return r.Stats().AbandonedRunning == 0 }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= baseGoroutines+2 }, 10*time.Second, 10*time.Millisecond,
		"goroutines back to baseline (%d, now %d)", baseGoroutines, runtime.NumGoroutine())
	results, took = nil, nil
	obs.reset()
	var after runtime.MemStats
	require.Eventually(t, func() bool {
		runtime.GC()
		runtime.ReadMemStats(&after)
		return after.HeapAlloc < before.HeapAlloc+8<<20
	}, 10*time.Second, 50*time.Millisecond, "heap back to baseline (%d, now %d)", before.HeapAlloc, after.HeapAlloc)
}

// warmGoroutines runs n goroutines at once and waits for them to end.
func warmGoroutines(n int) {
	var started, wg sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	for range n {
		wg.Go(func() {
			started.Done()
			<-release
		})
	}
	started.Wait()
	close(release)
	wg.Wait()
}

// sampleHeap records the largest HeapAlloc it sees until stopped.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			*peak = max(*peak, m.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}

// orderChecker is an observer that records each call's event kinds.
type orderChecker struct {
	mu    sync.Mutex
	calls map[string][]tool.EventKind
}

func (o *orderChecker) Observe(e tool.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls[e.CallID] = append(o.calls[e.CallID], e.Kind)
}

func (o *orderChecker) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = nil
}

// check: every call has started first, finished last and exactly once.
func (o *orderChecker) check(t *testing.T, calls int) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	require.Len(t, o.calls, calls)
	for id, kinds := range o.calls {
		require.GreaterOrEqual(t, len(kinds), 2, "call %s: %v", id, kinds)
		assert.Equal(t, tool.EventStarted, kinds[0], "call %s: %v", id, kinds)
		assert.Equal(t, tool.EventFinished, kinds[len(kinds)-1], "call %s: %v", id, kinds)
		finished := 0
		for _, k := range kinds {
			if k == tool.EventFinished {
				finished++
			}
		}
		assert.Equal(t, 1, finished, "call %s: %v", id, kinds)
	}
}
