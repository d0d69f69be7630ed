package tool_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// recorded is a registry that keeps records, with a write tool that counts
// its runs, a failing tool and a tool with a long output.
type recorded struct {
	reg     *tool.Registry[struct{}]
	writes  atomic.Int32
	gate    chan struct{} // when set, write says it entered and waits on it
	entered chan struct{}
}

func newRecorded(t *testing.T, opts *tool.RegistryOptions) *recorded {
	t.Helper()
	r := &recorded{entered: make(chan struct{}, 10)}
	if opts == nil {
		opts = &tool.RegistryOptions{}
	}
	if opts.Records == nil {
		opts.Records = tool.NewMemoryRecordStore(0)
	}
	r.reg = registryWith(t, opts,
		tool.New(tool.Definition{Name: "write", Description: "Appends a line.", Safety: tool.SafetyMutating},
			func(ctx context.Context, in struct {
				Line string `json:"line"`
			}) (string, error) {
				if r.gate != nil {
					r.entered <- struct{}{}
					<-r.gate
				}
				n := r.writes.Add(1)
				return "wrote " + in.Line + " (write #" + string(rune('0'+n)) + ")", nil
			}),
		tool.New(tool.Definition{Name: "fail", Description: "Fails."},
			func(context.Context, struct{}) (string, error) { return "", errors.New("disk full") }),
		tool.New(tool.Definition{Name: "long", Description: "Writes a lot.", Safety: tool.SafetyReadOnly, MaxOutputBytes: 1024},
			func(context.Context, struct{}) (string, error) { return strings.Repeat("0123456789\n", 10_000), nil }),
	)
	return r
}

func (r *recorded) call(id, session, name, args string) *tool.Result {
	return r.reg.Call(context.Background(), struct{}{}, tool.Request{ID: id, Name: name, Args: []byte(args), Session: session})
}

func TestRepeatedCallIsAnsweredFromItsRecord(t *testing.T) {
	t.Run("the same ID, session and arguments: the record, not a second run", func(t *testing.T) {
		r := newRecorded(t, nil)
		first := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantOK(t, first)
		assert.False(t, first.FromRecord)
		// The same arguments, written differently: the canonical form binds.
		again := r.call("c1", "conv", "write", ` { "line" : "a" } `)
		tooltest.WantOK(t, again)
		assert.True(t, again.FromRecord, "marked as answered from the record")
		assert.Equal(t, first.Text(), again.Text(), "the model is given what it was given")
		assert.Equal(t, "c1", again.CallID)
		assert.Equal(t, int32(1), r.writes.Load(), "it ran once")
	})
	t.Run("the same ID with other arguments is refused, not answered", func(t *testing.T) {
		r := newRecorded(t, nil)
		tooltest.WantOK(t, r.call("c1", "conv", "write", `{"line":"a"}`))
		res := r.call("c1", "conv", "write", `{"line":"b"}`)
		tooltest.WantStatus(t, res, tool.StatusConflict)
		assert.ErrorIs(t, res.Err, tool.ErrCallIDReused)
		tooltest.WantTextContains(t, res, "did not run", "other arguments")
		other := r.call("c1", "conv", "long", `{}`)
		tooltest.WantStatus(t, other, tool.StatusConflict)
		assert.Equal(t, int32(1), r.writes.Load())
	})
	t.Run("other sessions, and calls with no session or ID, run", func(t *testing.T) {
		r := newRecorded(t, nil)
		for _, c := range []struct{ id, session string }{{"c1", "conv"}, {"c1", "other"}, {"c1", ""}, {"c1", ""}, {"", "conv"}, {"", "conv"}} {
			res := r.call(c.id, c.session, "write", `{"line":"a"}`)
			tooltest.WantOK(t, res)
			assert.False(t, res.FromRecord, "%+v", c)
		}
		assert.Equal(t, int32(6), r.writes.Load())
	})
	t.Run("a failure is recorded, with its status and cause", func(t *testing.T) {
		r := newRecorded(t, nil)
		first := r.call("c1", "conv", "fail", `{}`)
		tooltest.WantStatus(t, first, tool.StatusFailed)
		again := r.call("c1", "conv", "fail", `{}`)
		tooltest.WantStatus(t, again, tool.StatusFailed)
		assert.True(t, again.FromRecord)
		assert.Equal(t, first.Text(), again.Text())
		assert.ErrorIs(t, again.Err, tool.ErrFromRecord)
		assert.Contains(t, again.Err.Error(), "disk full")
	})
	t.Run("the record is what the model saw, capped", func(t *testing.T) {
		r := newRecorded(t, nil)
		first := r.call("c1", "conv", "long", `{}`)
		require.Greater(t, first.Truncated, 100_000)
		again := r.call("c1", "conv", "long", `{}`)
		assert.True(t, again.FromRecord)
		assert.Equal(t, first.Text(), again.Text())
		assert.LessOrEqual(t, len(again.Text()), 1024)
		assert.Equal(t, first.Truncated, again.Truncated)
	})
	t.Run("a call that did not run is not recorded", func(t *testing.T) {
		r := newRecorded(t, nil)
		approver := tooltest.NewApprover(tooltest.Deny("not now"), tooltest.AllowOnce())
		r.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver}))
		tooltest.WantStatus(t, r.call("c1", "conv", "write", `{"line":"a"}`), tool.StatusDenied)
		res := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantOK(t, res)
		assert.False(t, res.FromRecord, "the denial was not recorded: asked again, and it ran")
		assert.Equal(t, 2, approver.Asked())
		again := r.call("c1", "conv", "write", `{"line":"a"}`)
		assert.True(t, again.FromRecord, "then it is")
		assert.Equal(t, 2, approver.Asked(), "a call answered from its record is not asked about again")
	})
	t.Run("a resumed approval runs once, then is answered from its record", func(t *testing.T) {
		r := newRecorded(t, nil)
		r.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooltest.NewApprover(tooltest.Defer())}))
		const args = `{"line":"a"}`
		pending := r.call("c1", "conv", "write", args)
		tooltest.WantStatus(t, pending, tool.StatusAwaitingApproval)
		resume := func() *tool.Result {
			return r.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c1", Name: "write", Args: []byte(args), Session: "conv",
				Approval: &tool.ApprovalAnswer{State: pending.Pending.State, Decision: tool.Decision{Kind: tool.DecisionAllowOnce}}})
		}
		tooltest.WantOK(t, resume())
		replay := resume()
		tooltest.WantOK(t, replay)
		assert.True(t, replay.FromRecord, "the turn resumed again is answered, not refused as a used approval")
		assert.Equal(t, int32(1), r.writes.Load())
	})
	t.Run("a dry run is never recorded", func(t *testing.T) {
		r := newRecorded(t, nil)
		dry := r.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c1", Name: "write", Args: []byte(`{"line":"a"}`), Session: "conv", DryRun: true})
		tooltest.WantStatus(t, dry, tool.StatusDryRun)
		res := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantOK(t, res)
		assert.False(t, res.FromRecord)
	})
}

func TestTwinOfARunningCall(t *testing.T) {
	t.Run("waits for the first and is answered from its record", func(t *testing.T) {
		r := newRecorded(t, nil)
		r.gate = make(chan struct{})
		first := make(chan *tool.Result)
		go func() { first <- r.call("c1", "conv", "write", `{"line":"a"}`) }()
		twin := make(chan *tool.Result)
		<-r.entered // the first holds the ID
		go func() { twin <- r.call("c1", "conv", "write", `{"line":"a"}`) }()
		select {
		case res := <-twin:
			t.Fatalf("the twin did not wait: %v %s", res.Status, res.Text())
		case <-time.After(50 * time.Millisecond):
		}
		close(r.gate)
		a, b := <-first, <-twin
		tooltest.WantOK(t, a)
		tooltest.WantOK(t, b)
		assert.True(t, b.FromRecord)
		assert.Equal(t, int32(1), r.writes.Load(), "not run twice")
	})
	t.Run("a twin that waits past the first call's time limit is refused", func(t *testing.T) {
		r := newRecorded(t, &tool.RegistryOptions{DefaultTimeout: 50 * time.Millisecond, Grace: 50 * time.Millisecond})
		hang := tooltest.NewApprover(tooltest.Hang())
		r.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: hang}))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go r.reg.Call(ctx, struct{}{}, tool.Request{ID: "c1", Name: "write", Args: []byte(`{"line":"a"}`), Session: "conv"})
		require.Eventually(t, func() bool { return hang.Asked() == 1 }, 5*time.Second, time.Millisecond)
		res := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantStatus(t, res, tool.StatusConflict)
		assert.ErrorIs(t, res.Err, tool.ErrCallInFlight)
		tooltest.WantTextContains(t, res, "still in progress", "Check whether it took effect")
		assert.Equal(t, int32(0), r.writes.Load())
	})
	t.Run("a twin whose caller gives up ends cancelled", func(t *testing.T) {
		r := newRecorded(t, nil)
		r.gate = make(chan struct{})
		defer close(r.gate)
		go r.call("c1", "conv", "write", `{"line":"a"}`)
		<-r.entered
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		res := r.reg.Call(ctx, struct{}{}, tool.Request{ID: "c1", Name: "write", Args: []byte(`{"line":"a"}`), Session: "conv"})
		tooltest.WantStatus(t, res, tool.StatusTimedOut)
	})
}

// recordStoreFunc is a tool.RecordStore whose methods are the functions
// set, and the embedded store's for those left nil.
type recordStoreFunc struct {
	tool.RecordStore
	claim   func(ctx context.Context, session, id, value string, expires time.Time) (string, bool, error)
	replace func(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error)
	record  func(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error)
}

func (s recordStoreFunc) Claim(ctx context.Context, session, id, value string, expires time.Time) (string, bool, error) {
	if s.claim == nil {
		return s.RecordStore.Claim(ctx, session, id, value, expires)
	}
	return s.claim(ctx, session, id, value, expires)
}

func (s recordStoreFunc) Replace(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	if s.replace == nil {
		return s.RecordStore.Replace(ctx, session, id, old, value, expires)
	}
	return s.replace(ctx, session, id, old, value, expires)
}

func (s recordStoreFunc) Record(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	if s.record == nil {
		return s.RecordStore.Record(ctx, session, id, old, value, expires)
	}
	return s.record(ctx, session, id, old, value, expires)
}

func TestRecordStoreFaults(t *testing.T) {
	mem := tool.NewMemoryRecordStore(0)
	t.Run("a store that fails: the call does not run", func(t *testing.T) {
		r := newRecorded(t, &tool.RegistryOptions{Records: recordStoreFunc{RecordStore: mem,
			claim: func(context.Context, string, string, string, time.Time) (string, bool, error) {
				return "", false, errors.New("redis: i/o timeout")
			},
		}})
		res := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantStatus(t, res, tool.StatusFailed)
		assert.ErrorIs(t, res.Err, tool.ErrRecordStore)
		assert.NotContains(t, res.Text(), "redis")
		assert.Equal(t, int32(0), r.writes.Load())
	})
	t.Run("a store that hangs: the call ends by the hook timeout, unrun", func(t *testing.T) {
		r := newRecorded(t, &tool.RegistryOptions{HookTimeout: 20 * time.Millisecond, Records: recordStoreFunc{RecordStore: mem,
			claim: func(ctx context.Context, _, _, _ string, _ time.Time) (string, bool, error) {
				<-ctx.Done()
				return "", false, ctx.Err()
			},
		}})
		tooltest.WantStatus(t, r.call("c1", "conv", "write", `{"line":"a"}`), tool.StatusFailed)
		assert.Equal(t, int32(0), r.writes.Load())
	})
	t.Run("a middleware that panics gives the ID back", func(t *testing.T) {
		r := newRecorded(t, nil)
		panicked := false
		r.reg.Use(func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
			return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
				if !panicked {
					panicked = true
					panic("middleware bug")
				}
				return next(ctx, c)
			}
		})
		tooltest.WantStatus(t, r.call("c1", "conv", "write", `{"line":"a"}`), tool.StatusPanicked)
		res := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantOK(t, res)
		assert.False(t, res.FromRecord)
	})
}

func TestClaimBelongsToItsCall(t *testing.T) {
	t.Run("a Claim retried after its reply was lost finds its own claim and goes on", func(t *testing.T) {
		mem := tool.NewMemoryRecordStore(0)
		// The store made the claim, the reply was lost, and the client sent
		// the command again: the second reply shows the claim, as kept.
		r := newRecorded(t, &tool.RegistryOptions{DefaultTimeout: 200 * time.Millisecond, Grace: 50 * time.Millisecond, Records: recordStoreFunc{RecordStore: mem,
			claim: func(ctx context.Context, session, id, value string, expires time.Time) (string, bool, error) {
				if kept, ok, err := mem.Claim(ctx, session, id, value, expires); err != nil || !ok {
					return kept, ok, err
				}
				return mem.Claim(ctx, session, id, value, expires)
			},
		}})
		res := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantOK(t, res)
		assert.Equal(t, int32(1), r.writes.Load())
		again := r.call("c1", "conv", "write", `{"line":"a"}`)
		assert.True(t, again.FromRecord, "recorded: %v %s", again.Status, again.Text())
	})
	t.Run("a claim the store could not confirm lapses, and the call runs when made again", func(t *testing.T) {
		mem := tool.NewMemoryRecordStore(0)
		first := true
		// The store gave up on the claim (a timeout) and Redis made it later.
		r := newRecorded(t, &tool.RegistryOptions{DefaultTimeout: 2 * time.Second, Records: recordStoreFunc{RecordStore: mem,
			claim: func(ctx context.Context, session, id, value string, expires time.Time) (string, bool, error) {
				if first {
					first = false
					_, _, _ = mem.Claim(ctx, session, id, value, expires)
					return "", false, errors.New("redis: i/o timeout")
				}
				return mem.Claim(ctx, session, id, value, expires)
			},
		}})
		tool.SetRecordLease(r.reg, 100*time.Millisecond)
		res := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantStatus(t, res, tool.StatusFailed)
		assert.ErrorIs(t, res.Err, tool.ErrRecordStore)
		tooltest.WantTextContains(t, res, "did not run", "try again in a few seconds")
		again := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantOK(t, again)
		assert.False(t, again.FromRecord)
		assert.Equal(t, int32(1), r.writes.Load())
	})
	t.Run("a call that waits to start keeps its claim past the lease", func(t *testing.T) {
		r := newRecorded(t, nil)
		// A lease long beside a loaded machine's scheduling delays (its
		// renewals come every quarter of it), short beside the wait.
		tool.SetRecordLease(r.reg, 400*time.Millisecond)
		release := make(chan struct{})
		r.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(func(ctx context.Context, _ tool.ApprovalRequest) (tool.Decision, error) {
			<-release
			return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
		})}))
		first := make(chan *tool.Result, 1)
		go func() { first <- r.call("c1", "conv", "write", `{"line":"a"}`) }()
		time.Sleep(1200 * time.Millisecond) // three leases
		twin := make(chan *tool.Result, 1)
		go func() { twin <- r.call("c1", "conv", "write", `{"line":"a"}`) }()
		time.Sleep(100 * time.Millisecond)
		close(release) // the twin, had it claimed the ID, waits for approval too
		tooltest.WantOK(t, <-first)
		res := <-twin
		tooltest.WantOK(t, res)
		assert.True(t, res.FromRecord, "the twin ran instead of waiting")
		assert.Equal(t, int32(1), r.writes.Load())
	})
}

func TestTwinIsToldTheTruth(t *testing.T) {
	t.Run("a call that ran but whose record the store refused: said at once", func(t *testing.T) {
		mem := tool.NewMemoryRecordStore(0)
		r := newRecorded(t, &tool.RegistryOptions{DefaultTimeout: time.Minute, Records: recordStoreFunc{RecordStore: mem,
			record: func(context.Context, string, string, string, string, time.Time) (bool, error) {
				return false, errors.New("OOM command not allowed when used memory > 'maxmemory'")
			},
		}})
		tooltest.WantOK(t, r.call("c1", "conv", "write", `{"line":"a"}`))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // a hang check: the first call's time limit is a minute
		defer cancel()
		res := r.reg.Call(ctx, struct{}{}, tool.Request{ID: "c1", Name: "write", Args: []byte(`{"line":"a"}`), Session: "conv"})
		tooltest.WantStatus(t, res, tool.StatusConflict)
		assert.ErrorIs(t, res.Err, tool.ErrCallUnrecorded)
		tooltest.WantTextContains(t, res, "did not run again", "already ran, but its result could not be kept")
		assert.Equal(t, int32(1), r.writes.Load())
	})
	t.Run("a call that started and never ended: ran, result unknown, once its time is up", func(t *testing.T) {
		mem := tool.NewMemoryRecordStore(0)
		broken := errors.New("connection refused")
		// The store goes away once the tool started: neither the record
		// nor the mark that it ran is kept, as when the process dies.
		r := newRecorded(t, &tool.RegistryOptions{DefaultTimeout: 100 * time.Millisecond, Grace: 50 * time.Millisecond, Records: recordStoreFunc{RecordStore: mem,
			record: func(context.Context, string, string, string, string, time.Time) (bool, error) { return false, broken },
			replace: func(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error) {
				if strings.Contains(value, `"lost"`) {
					return false, broken
				}
				return mem.Replace(ctx, session, id, old, value, expires)
			},
		}})
		tooltest.WantOK(t, r.call("c1", "conv", "write", `{"line":"a"}`))
		res := r.call("c1", "conv", "write", `{"line":"a"}`)
		tooltest.WantStatus(t, res, tool.StatusConflict)
		assert.ErrorIs(t, res.Err, tool.ErrCallUnrecorded)
		assert.Equal(t, int32(1), r.writes.Load())
	})
	t.Run("a store that lost its data, or is full of calls in progress, says so", func(t *testing.T) {
		for _, c := range []struct {
			err  error
			want string
		}{
			{fmt.Errorf("toolredis: Redis restarted without its data: %w", tool.ErrStoreLostData), "may have lost what it held"},
			{fmt.Errorf("session full: %w", tool.ErrRecordStoreFull), "too many calls in progress"},
		} {
			r := newRecorded(t, &tool.RegistryOptions{Records: recordStoreFunc{RecordStore: tool.NewMemoryRecordStore(0),
				claim: func(context.Context, string, string, string, time.Time) (string, bool, error) {
					return "", false, c.err
				},
			}})
			res := r.call("c1", "conv", "write", `{"line":"a"}`)
			tooltest.WantStatus(t, res, tool.StatusFailed)
			assert.ErrorIs(t, res.Err, tool.ErrRecordStore)
			assert.ErrorIs(t, res.Err, c.err)
			tooltest.WantTextContains(t, res, "did not run", c.want)
			assert.Equal(t, int32(0), r.writes.Load())
		}
	})
}

func TestRunningCallIsNeverDropped(t *testing.T) {
	// A small store: a session holds 4 KiB, four records of the long tool.
	r := newRecorded(t, &tool.RegistryOptions{Records: tool.NewMemoryRecordStore(64 << 10)})
	r.gate = make(chan struct{})
	first := make(chan *tool.Result)
	go func() { first <- r.call("c1", "conv", "write", `{"line":"a"}`) }()
	<-r.entered // c1 runs
	for i := range 40 {
		res := r.call(fmt.Sprint("other-", i), "conv", "long", `{}`)
		tooltest.WantOK(t, res)
	}
	twin := make(chan *tool.Result)
	go func() { twin <- r.call("c1", "conv", "write", `{"line":"a"}`) }()
	select {
	case <-r.entered:
		t.Error("the twin ran the tool while the first call still ran: its claim was dropped to make room")
		r.gate <- struct{}{}
	case res := <-twin:
		t.Fatalf("the twin did not wait: %v %s", res.Status, res.Text())
	case <-time.After(100 * time.Millisecond):
	}
	close(r.gate)
	tooltest.WantOK(t, <-first)
	res := <-twin
	tooltest.WantOK(t, res)
	assert.True(t, res.FromRecord)
	assert.Equal(t, int32(1), r.writes.Load(), "the tool body ran twice")
}

// A middleware may make a result of its own of a call whose tool ran (a
// redaction): the call is recorded as the model saw it, and its twin is
// answered from the record, not told its record was lost.
func TestRecordOfAResultAMiddlewareMade(t *testing.T) {
	r := newRecorded(t, nil)
	r.reg.Use(func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
		return func(ctx context.Context, call *tool.Call[struct{}]) *tool.Result {
			res := next(ctx, call)
			return &tool.Result{Status: res.Status, Err: res.Err, Content: []tool.Content{tool.TextContent("[redacted]")}}
		}
	})
	first := r.call("x", "s", "write", `{"line":"a"}`)
	tooltest.WantOK(t, first)
	twin := r.call("x", "s", "write", `{"line":"a"}`)
	tooltest.WantOK(t, twin)
	assert.True(t, twin.FromRecord, "answered from its record")
	assert.Equal(t, "[redacted]", twin.Text())
	assert.Equal(t, int32(1), r.writes.Load())
}
