package toolredis_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
