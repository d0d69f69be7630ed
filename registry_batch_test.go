package tool_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

type stepArgs struct {
	N int `json:"n"`
}

// batchLog records when each call of a batch starts and ends, in fake time.
type batchLog struct {
	mu      sync.Mutex
	events  []string
	running atomic.Int32
	peak    atomic.Int32
}

func (l *batchLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, s)
}

func (l *batchLog) tool(name string, safety tool.Safety, d time.Duration) tool.AnyTool {
	return tool.New(tool.Definition{Name: name, Description: "Takes a while.", Safety: safety},
		func(ctx context.Context, in stepArgs) (string, error) {
			n := l.running.Add(1)
			for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
			}
			defer l.running.Add(-1)
			l.add("start " + name + strconv.Itoa(in.N))
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			l.add("end " + name + strconv.Itoa(in.N))
			return name + strconv.Itoa(in.N), nil
		})
}

func reqs(specs ...string) []tool.Request {
	out := make([]tool.Request, len(specs))
	for i, s := range specs {
		out[i] = tool.Request{ID: strconv.Itoa(i), Name: s[:len(s)-1], Args: []byte(`{"n":` + s[len(s)-1:] + `}`)}
	}
	return out
}

func TestBatchOrderAndParallelism(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &batchLog{}
		r := registryWith(t, nil, l.tool("read", tool.SafetyReadOnly, time.Second), l.tool("write", tool.SafetyMutating, time.Second))
		start := time.Now()
		res := r.CallBatch(context.Background(), struct{}{}, reqs("read1", "read2", "write3", "write4", "read5", "read6", "read7"), nil)
		require.Len(t, res, 7)
		for i, want := range []string{"read1", "read2", "write3", "write4", "read5", "read6", "read7"} {
			tooltest.WantText(t, res[i], want)
			assert.Equal(t, strconv.Itoa(i), res[i].CallID)
		}
		assert.Equal(t, 4*time.Second, time.Since(start), "two reads together, each write alone, three reads together")
		assert.Equal(t, []string{"start write3", "end write3", "start write4", "end write4"}, l.events[4:8],
			"writes run alone and in order, after the reads before them")
		assert.EqualValues(t, 3, l.peak.Load())
	})
}

func TestBatchParallelismBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &batchLog{}
		r := registryWith(t, nil, l.tool("read", tool.SafetyReadOnly, 10*time.Millisecond))
		calls := make([]tool.Request, 64)
		for i := range calls {
			calls[i] = tool.Request{ID: strconv.Itoa(i), Name: "read", Args: []byte(`{"n":1}`)}
		}
		start := time.Now()
		r.CallBatch(context.Background(), struct{}{}, calls, &tool.BatchOptions{Parallelism: 8})
		assert.Equal(t, 80*time.Millisecond, time.Since(start))
		assert.EqualValues(t, 8, l.peak.Load())

		l.peak.Store(0)
		r.CallBatch(context.Background(), struct{}{}, calls[:20], nil)
		assert.EqualValues(t, tool.DefaultParallelism, l.peak.Load())
	})
}

func TestBatchFailuresStayInTheirCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &batchLog{}
		boom := tool.New(tool.Definition{Name: "boom", Description: "Panics.", Safety: tool.SafetyReadOnly},
			func(context.Context, stepArgs) (string, error) { panic("boom") })
		hang := tool.New(tool.Definition{Name: "hang", Description: "Ignores its context.", Safety: tool.SafetyReadOnly, Timeout: time.Second},
			func(context.Context, stepArgs) (string, error) { time.Sleep(time.Hour); return "", nil })
		r := registryWith(t, &tool.RegistryOptions{Grace: time.Second}, l.tool("read", tool.SafetyReadOnly, 100*time.Millisecond), boom, hang)
		start := time.Now()
		res := r.CallBatch(context.Background(), struct{}{}, reqs("read1", "boom1", "hang1", "nope1", "read2"), nil)
		tooltest.WantText(t, res[0], "read1")
		tooltest.WantStatus(t, res[1], tool.StatusPanicked)
		tooltest.WantStatus(t, res[2], tool.StatusTimedOut)
		tooltest.WantStatus(t, res[3], tool.StatusUnknownTool)
		tooltest.WantText(t, res[4], "read2")
		assert.Equal(t, 2*time.Second, time.Since(start), "the hang ends at its deadline and grace")
		time.Sleep(time.Hour)
	})
}

func TestBatchCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &batchLog{}
		r := registryWith(t, nil, l.tool("read", tool.SafetyReadOnly, time.Second), l.tool("write", tool.SafetyMutating, time.Second))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(1500*time.Millisecond, cancel)
		res := r.CallBatch(ctx, struct{}{}, reqs("write1", "write2", "write3", "read4"), nil)
		tooltest.WantOK(t, res[0])
		tooltest.WantStatus(t, res[1], tool.StatusCanceled)
		tooltest.WantTextContains(t, res[1], "may have done part")
		for _, r := range res[2:] {
			tooltest.WantStatus(t, r, tool.StatusCanceled)
			tooltest.WantTextContains(t, r, "before it started")
		}
		assert.Equal(t, []string{"start write1", "end write1", "start write2"}, l.events)
	})
}

// A tool that is read-only for some arguments runs in parallel only for
// those.
func TestBatchUsesTheClassifier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var running, peak atomic.Int32
		sh := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "sh", Description: "Runs a command.", Safety: tool.SafetyMutating},
			func(ctx context.Context, in shellArgs) (string, error) {
				n := running.Add(1)
				defer running.Add(-1)
				if n > peak.Load() {
					peak.Store(n)
				}
				time.Sleep(time.Second)
				return in.Command, nil
			}), tool.ApprovalHooks[shellArgs]{Classify: func(in shellArgs) tool.Safety {
			if in.Command == "ls" {
				return tool.SafetyReadOnly
			}
			return tool.SafetyUnspecified
		}})
		r := registryWith(t, nil, sh)
		ls := tool.Request{Name: "sh", Args: []byte(`{"command":"ls"}`)}
		mk := tool.Request{Name: "sh", Args: []byte(`{"command":"make"}`)}
		start := time.Now()
		r.CallBatch(context.Background(), struct{}{}, []tool.Request{ls, ls, ls, mk, mk}, nil)
		assert.Equal(t, 3*time.Second, time.Since(start))
		assert.EqualValues(t, 3, peak.Load())
	})
}

func TestBatchEmpty(t *testing.T) {
	r := tool.NewRegistry[struct{}](nil)
	assert.Empty(t, r.CallBatch(context.Background(), struct{}{}, nil, nil))
}

// A reply may hold thousands of tool calls: only the first MaxCalls of a
// batch run, and every other is answered, in order, without running.
func TestBatchMaxCalls(t *testing.T) {
	for _, tc := range []struct {
		name     string
		calls    int
		maxCalls int
		ran      int
	}{
		{"default bound", 10000, 0, tool.DefaultMaxCalls},
		{"under the bound", 5, 0, 5},
		{"at the bound", 3, 3, 3},
		{"past a set bound", 7, 3, 3},
		{"no bound", 300, -1, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int64
			r := registryWith(t, nil,
				tool.New(tool.Definition{Name: "read", Description: "Reads.", Safety: tool.SafetyReadOnly},
					func(context.Context, stepArgs) (string, error) { ran.Add(1); return "read", nil }),
				tool.New(tool.Definition{Name: "write", Description: "Writes.", Safety: tool.SafetyMutating},
					func(context.Context, stepArgs) (string, error) { ran.Add(1); return "wrote", nil }))
			calls := make([]tool.Request, tc.calls)
			for i := range calls {
				name := "read"
				if i%3 == 2 {
					name = "write"
				}
				calls[i] = tool.Request{ID: "call_" + strconv.Itoa(i), Name: name, Args: []byte(`{"n":1}`)}
			}
			res := r.CallBatch(context.Background(), struct{}{}, calls, &tool.BatchOptions{MaxCalls: tc.maxCalls})
			require.Len(t, res, tc.calls)
			assert.EqualValues(t, tc.ran, ran.Load())
			for i, res := range res {
				require.NotNil(t, res)
				assert.Equal(t, "call_"+strconv.Itoa(i), res.CallID)
				if i < tc.ran {
					assert.Equal(t, tool.StatusOK, res.Status, "call %d", i)
					continue
				}
				assert.Equal(t, tool.StatusLimited, res.Status, "call %d", i)
				assert.ErrorIs(t, res.Err, tool.ErrTooManyCalls)
				assert.True(t, res.IsError)
				assert.Contains(t, res.Text(), "only the first "+strconv.Itoa(tc.ran)+" run")
			}
		})
	}
}
