package toolredis_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

// secret is what the replicas of one deployment share to sign cursors and
// approval states.
var secret = []byte("replicas share this secret: 32+ bytes of it")

// replica is one process of an agent backend: its own registry, middleware
// and approver, and the deployment's shared Redis and keyring.
type replica struct {
	reg      *tool.Registry[struct{}]
	approver *tooltest.Approver
	writes   *writes
}

// writes records what write_file did, across replicas.
type writes struct {
	mu   sync.Mutex
	done []string
}

func (w *writes) add(s string) { w.mu.Lock(); w.done = append(w.done, s); w.mu.Unlock() }
func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.done...)
}

// buildLog is a long result: its middle is cut by the 4 KiB cap.
func buildLog() string {
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "[%04d] compiling pkg%04d.go ... ok\n", i, i)
	}
	b.WriteString("error: undefined: frobnicate\n")
	return b.String()
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func newReplica(t *testing.T, rdb redis.UniversalClient, opts *toolredis.Options, w *writes, gate <-chan struct{}, steps ...tooltest.Step) *replica {
	t.Helper()
	keys, err := keyring.FromSecret(secret)
	require.NoError(t, err)
	r := &replica{approver: tooltest.NewApprover(steps...), writes: w}
	r.reg = tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys, Spill: toolredis.NewSpillStore(rdb, opts)})
	r.reg.MustAdd(
		tool.New(tool.Definition{Name: "build_log", Description: "Builds and returns the whole log.", Safety: tool.SafetyReadOnly, MaxOutputBytes: 4096},
			func(ctx context.Context, _ struct{}) (string, error) {
				if gate != nil {
					<-gate // the test does something to Redis while the tool runs
				}
				return buildLog(), nil
			}),
		tool.New(tool.Definition{Name: "write_file", Description: "Writes a file.", Safety: tool.SafetyMutating},
			func(_ context.Context, in writeArgs) (string, error) {
				w.add(in.Path + "=" + in.Content)
				return "written", nil
			}),
	)
	r.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: r.approver, Store: toolredis.NewApprovalStore(rdb, opts)}))
	return r
}

func (r *replica) call(id, session, name, args string) *tool.Result {
	return r.reg.Call(context.Background(), struct{}{}, tool.Request{ID: id, Name: name, Args: []byte(args), Session: session})
}

var cursorRE = regexp.MustCompile(`call read_output with \{"cursor":"([^"]+)"\}`)

// cutPart returns the part of full that the cap cut from kept (the head and
// tail around the marker).
func cutPart(t *testing.T, full, kept string) string {
	t.Helper()
	head, rest, ok := strings.Cut(kept, "\n[… ")
	require.True(t, ok, "no cut marker in:\n%s", kept)
	_, tail, ok := strings.Cut(rest, "…]\n")
	require.True(t, ok, "no end of the cut marker in:\n%s", kept)
	require.True(t, strings.HasPrefix(full, head) && strings.HasSuffix(full, tail), "head and tail are not the output's")
	return full[len(head) : len(full)-len(tail)]
}

// readAll follows read_output cursors from res, alternating between the
// replicas, and returns what was read.
func readAll(t *testing.T, session string, res *tool.Result, replicas ...*replica) (string, int) {
	t.Helper()
	var b strings.Builder
	calls := 0
	for {
		m := cursorRE.FindStringSubmatch(res.Text())
		if m == nil {
			return b.String(), calls
		}
		r := replicas[calls%len(replicas)]
		calls++
		res = r.call(fmt.Sprint("read-", calls), session, tool.ReadOutputTool, `{"cursor":"`+m[1]+`"}`)
		tooltest.WantOK(t, res)
		text := res.Text()
		i := strings.LastIndex(text, "\n[bytes ")
		require.GreaterOrEqual(t, i, 0, "read_output without its trailer:\n%s", text)
		b.WriteString(text[:i])
		require.Less(t, calls, 1000, "read_output does not end")
	}
}

func TestTwoReplicasShareOneRedis(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	opts := &toolredis.Options{Namespace: namespace()}
	w := &writes{}

	t.Run("output cut on one replica is read back through the other", func(t *testing.T) {
		a, b := newReplica(t, rdb, opts, w, nil), newReplica(t, rdb, opts, w, nil)
		res := a.call("1", "conv", "build_log", `{}`)
		tooltest.WantOK(t, res)
		full := buildLog()
		require.Greater(t, res.Truncated, 100_000)
		read, calls := readAll(t, "conv", res, b, a)
		assert.Equal(t, cutPart(t, full, res.Text()), read, "the cut part, read back through both replicas")
		assert.Greater(t, calls, 3, "read a cap-sized part (32 KiB, the registry's cap) at a time")
	})
	t.Run("a cursor of one conversation is refused in another, on any replica", func(t *testing.T) {
		a, b := newReplica(t, rdb, opts, w, nil), newReplica(t, rdb, opts, w, nil)
		m := cursorRE.FindStringSubmatch(a.call("1", "conv", "build_log", `{}`).Text())
		require.NotNil(t, m)
		res := b.call("2", "other-conv", tool.ReadOutputTool, `{"cursor":"`+m[1]+`"}`)
		tooltest.WantStatus(t, res, tool.StatusInvalid)
	})
	t.Run("allow always given on one replica holds on the other", func(t *testing.T) {
		a := newReplica(t, rdb, opts, w, nil, tooltest.AllowAlways())
		b := newReplica(t, rdb, opts, w, nil, tooltest.Deny("asked on b"))
		tooltest.WantOK(t, a.call("1", "conv-allow", "write_file", `{"path":"a","content":"1"}`))
		tooltest.WantOK(t, b.call("2", "conv-allow", "write_file", `{"path":"b","content":"2"}`))
		assert.Equal(t, 0, b.approver.Asked(), "b used the answer a remembered")
		res := b.call("3", "another-conv", "write_file", `{"path":"c","content":"3"}`)
		tooltest.WantStatus(t, res, tool.StatusDenied)
		assert.Equal(t, 1, b.approver.Asked(), "another conversation is asked")
	})
	t.Run("an approval deferred on one replica is resumed once, on the other", func(t *testing.T) {
		a := newReplica(t, rdb, opts, w, nil, tooltest.Defer())
		b := newReplica(t, rdb, opts, w, nil)
		const args = `{"path":"deferred","content":"x"}`
		res := a.call("1", "conv-defer", "write_file", args)
		tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
		require.NotNil(t, res.Pending)
		answer := &tool.ApprovalAnswer{State: res.Pending.State, Decision: tool.Decision{Kind: tool.DecisionAllowOnce}}
		resume := func(r *replica) *tool.Result {
			return r.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "write_file", Args: []byte(args), Session: "conv-defer", Approval: answer})
		}
		tooltest.WantOK(t, resume(b))
		replay := resume(a)
		tooltest.WantStatus(t, replay, tool.StatusDenied)
		assert.Contains(t, replay.Text(), "already used")
		assert.Equal(t, 1, strings.Count(strings.Join(w.all(), " "), "deferred=x"), "it ran once")
	})
}

// TestRedisGoesAwayMidCall kills, or freezes, the Redis two replicas share
// while a call runs: the call's output is cut without a way to read on,
// "allow always" is asked again, a resumed approval does not run, and no
// call takes much longer than the stores' timeout.
func TestRedisGoesAwayMidCall(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	for _, how := range []string{"killed", "frozen"} {
		t.Run(how, func(t *testing.T) {
			srv := redistest.New(t)
			rdb := client(t, srv)
			opts := &toolredis.Options{Namespace: namespace()} // the default timeout, 1 s
			w := &writes{}
			gate := make(chan struct{})
			a := newReplica(t, rdb, opts, w, gate, tooltest.AllowAlways(), tooltest.Defer(), tooltest.AllowOnce())
			b := newReplica(t, rdb, opts, w, nil)

			// Before: an answer remembered, an approval deferred, output spilled.
			tooltest.WantOK(t, a.call("1", "conv", "write_file", `{"path":"a","content":"1"}`))
			pending := a.call("2", "conv-2", "write_file", `{"path":"p","content":"2"}`)
			tooltest.WantStatus(t, pending, tool.StatusAwaitingApproval)
			before := b.call("3", "conv", "build_log", `{}`) // b's build_log does not wait on the gate
			m := cursorRE.FindStringSubmatch(before.Text())
			require.NotNil(t, m, "spilled while Redis was up")

			// A call is running when Redis goes away.
			done := make(chan *tool.Result, 1)
			go func() { done <- a.call("4", "conv", "build_log", `{}`) }()
			switch how {
			case "killed":
				srv.Kill()
			case "frozen":
				if err := srv.Freeze(); err != nil {
					t.Skip(err)
				}
			}
			start := time.Now()
			close(gate)
			res := <-done
			// A hang check: the stores' timeout is 1 s, the client's a
			// minute; 10 s leaves room for a loaded machine.
			assert.Less(t, time.Since(start), 10*time.Second, "the call waited on Redis")
			tooltest.WantOK(t, res)
			assert.Greater(t, res.Truncated, 100_000, "cut to its cap")
			assert.Contains(t, res.Text(), "bytes cut here")
			assert.NotContains(t, res.Text(), "read_output", "no way to read on is offered when nothing was kept")
			assert.LessOrEqual(t, len(res.Text()), 4096)

			t.Run("allow always is asked again", func(t *testing.T) {
				start := time.Now()
				res := a.call("5", "conv", "write_file", `{"path":"b","content":"3"}`)
				assert.Less(t, time.Since(start), 10*time.Second)
				tooltest.WantOK(t, res) // the approver, asked again, allowed once
				assert.Equal(t, 3, a.approver.Asked())
			})
			t.Run("a resumed approval does not run", func(t *testing.T) {
				start := time.Now()
				res := b.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "6", Name: "write_file", Args: []byte(`{"path":"p","content":"2"}`), Session: "conv-2",
					Approval: &tool.ApprovalAnswer{State: pending.Pending.State, Decision: tool.Decision{Kind: tool.DecisionAllowOnce}}})
				assert.Less(t, time.Since(start), 10*time.Second)
				tooltest.WantStatus(t, res, tool.StatusDenied)
				assert.Contains(t, res.Text(), "could not be checked")
				assert.NotContains(t, strings.Join(w.all(), " "), "p=2")
			})
			t.Run("reading spilled output fails, in time", func(t *testing.T) {
				start := time.Now()
				res := b.call("7", "conv", tool.ReadOutputTool, `{"cursor":"`+m[1]+`"}`)
				assert.Less(t, time.Since(start), 10*time.Second)
				assert.True(t, res.IsError)
				assert.ErrorContains(t, res.Err, "toolredis")
				assert.NotContains(t, res.Text(), "no longer kept", "the output is kept; Redis is unavailable")
			})
		})
	}
}
