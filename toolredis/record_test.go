package toolredis_test

import (
	"context"
	"fmt"
	"strings"
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

func TestRecordStoreConforms(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	tooltest.TestRecordStore(t, func(*testing.T) tool.RecordStore {
		return toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace()})
	})
}

func TestRecordStoreKeysAndBounds(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()
	ns := namespace()
	s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: ns, MaxRecordBytes: 1000})
	expires := time.Now().Add(90 * time.Minute)
	session, id := strings.Repeat("s", 5000), strings.Repeat("i", 5000)
	_, ok, err := s.Claim(ctx, session, id, "claim", expires)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.Record(ctx, session, id, "claim", "record", expires)
	require.NoError(t, err)
	require.True(t, ok)
	// The entry, the session's records and costs (its set of claims is
	// empty), the bucket's marker, all with one hash tag: one slot of a
	// cluster.
	got := checkKeys(t, rdb, ns, expires)
	assert.Len(t, got, 4, "%q", got)
	for _, k := range got {
		assert.Contains(t, k, got[0][strings.Index(got[0], "{"):strings.Index(got[0], "}")+1])
	}

	_, ok, err = s.Claim(ctx, session, "other", "claim", expires)
	require.NoError(t, err)
	require.True(t, ok)
	for _, op := range []func() (bool, error){
		func() (bool, error) {
			return s.Replace(ctx, session, "other", "claim", strings.Repeat("x", 1001), expires)
		},
		func() (bool, error) {
			return s.Record(ctx, session, "other", "claim", strings.Repeat("x", 1001), expires)
		},
	} {
		ok, err := op()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "1000 bytes")
		assert.False(t, ok)
	}
	kept, _, err := s.Claim(ctx, session, "other", "again", expires)
	require.NoError(t, err)
	assert.Equal(t, "claim", kept, "a refused record leaves the claim")
}

// recordingReplica is one process of an agent that keeps records in the
// deployment's shared Redis.
func recordingReplica(t *testing.T, store tool.RecordStore, runs *atomic.Int32, gate <-chan struct{}, entered chan<- struct{}) *tool.Registry[struct{}] {
	t.Helper()
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: store})
	r.MustAdd(tool.New(tool.Definition{Name: "charge", Description: "Charges a card.", Safety: tool.SafetyMutating},
		func(_ context.Context, in struct {
			Cents int `json:"cents"`
		}) (string, error) {
			if gate != nil {
				entered <- struct{}{}
				<-gate
			}
			return fmt.Sprintf("charged %d cents (charge #%d)", in.Cents, runs.Add(1)), nil
		}))
	return r
}

func TestRecordsAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()
	charge := func(r *tool.Registry[struct{}], id, args string) *tool.Result {
		return r.Call(ctx, struct{}{}, tool.Request{ID: id, Name: "charge", Args: []byte(args), Session: "conv-7"})
	}

	t.Run("a call finished on one replica is answered from its record on the other", func(t *testing.T) {
		store := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace()})
		var runs atomic.Int32
		a, b := recordingReplica(t, store, &runs, nil, nil), recordingReplica(t, store, &runs, nil, nil)
		first := charge(a, "call_1", `{"cents":500}`)
		tooltest.WantOK(t, first)
		again := charge(b, "call_1", `{"cents":500}`)
		tooltest.WantOK(t, again)
		assert.True(t, again.FromRecord)
		assert.Equal(t, first.Text(), again.Text())
		assert.Equal(t, int32(1), runs.Load(), "charged once")
		other := charge(b, "call_1", `{"cents":900}`)
		tooltest.WantStatus(t, other, tool.StatusConflict)
		assert.Equal(t, int32(1), runs.Load())
	})
	t.Run("a twin on the other replica waits for the first and is not run twice", func(t *testing.T) {
		store := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace()})
		var runs atomic.Int32
		gate, entered := make(chan struct{}), make(chan struct{}, 1)
		a, b := recordingReplica(t, store, &runs, gate, entered), recordingReplica(t, store, &runs, nil, nil)
		first := make(chan *tool.Result)
		go func() { first <- charge(a, "call_2", `{"cents":100}`) }()
		<-entered // a holds the call's ID
		twin := make(chan *tool.Result)
		go func() { twin <- charge(b, "call_2", `{"cents":100}`) }()
		select {
		case res := <-twin:
			t.Fatalf("the twin did not wait: %v %s", res.Status, res.Text())
		case <-time.After(100 * time.Millisecond):
		}
		close(gate)
		tooltest.WantOK(t, <-first)
		res := <-twin
		tooltest.WantOK(t, res)
		assert.True(t, res.FromRecord)
		assert.Equal(t, int32(1), runs.Load(), "charged once")
	})
}

// TestRecordRefusedAtMaxmemory fills Redis past its maxmemory while a
// call runs: its record is refused (noeviction), and its twin, on another
// replica, is told at once that it ran and its result could not be kept,
// not left to wait for the first call's time limit.
func TestRecordRefusedAtMaxmemory(t *testing.T) {
	t.Parallel()
	srv := redistest.NewWith(t, redistest.Config{MaxMemory: "16mb"})
	rdb := client(t, srv)
	ctx := context.Background()
	opts := &toolredis.Options{Namespace: namespace()}
	var runs atomic.Int32
	fill := func() { overfill(t, rdb, "over") }
	newReplica := func() *tool.Registry[struct{}] {
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: toolredis.NewRecordStore(rdb, opts), DefaultTimeout: time.Minute})
		r.MustAdd(tool.New(tool.Definition{Name: "charge", Description: "Charges a card.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) {
				runs.Add(1)
				fill() // Redis is full by the time the call is recorded
				return "charged: " + strings.Repeat("receipt ", 4<<10), nil
			}))
		return r
	}
	a, b := newReplica(), newReplica()
	req := tool.Request{ID: "call_1", Name: "charge", Session: "conv"}
	tooltest.WantOK(t, a.Call(ctx, struct{}{}, req))
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second) // a hang check: the first call's time limit is a minute
	defer cancel()
	twin := b.Call(cctx, struct{}{}, req)
	require.Equal(t, tool.StatusConflict, twin.Status, "from its record: %v", twin.FromRecord)
	assert.ErrorIs(t, twin.Err, tool.ErrCallUnrecorded)
	tooltest.WantTextContains(t, twin, "already ran, but its result could not be kept")
	assert.Equal(t, int32(1), runs.Load())
}

// overfill fills Redis until it refuses writes (maxmemory, noeviction),
// then puts it 2 MiB over, under key, so that no write but a script
// allowed to (allow-oom) is let through until key is deleted.
func overfill(t *testing.T, rdb *redis.Client, key string) {
	t.Helper()
	ctx := context.Background()
	for i := 0; ; i++ {
		if err := rdb.Set(ctx, fmt.Sprint("junk-", key, "-", i), strings.Repeat("j", 256<<10), 0).Err(); err != nil {
			require.ErrorContains(t, err, "OOM")
			break
		}
	}
	require.NoError(t, rdb.Eval(ctx, "#!lua flags=allow-oom\nredis.call('SET', KEYS[1], ARGV[1]) return 1", []string{key}, strings.Repeat("o", 2<<20)).Err())
	require.ErrorContains(t, rdb.Set(ctx, "probe", "x", 0).Err(), "OOM", "Redis is not over its maxmemory")
}
