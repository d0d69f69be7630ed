package toolredis_test

import (
	"context"
	"errors"
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

// claimOnce claims id of session in s with a value of its own, and
// reports whether it was granted, or the error.
func claimOnce(s tool.RecordStore, session, id string) (bool, error) {
	_, ok, err := s.Claim(context.Background(), session, id, "claim of "+id, time.Now().Add(time.Second))
	return ok, err
}

// trusted waits until s grants a claim (a Redis without persistence is
// not trusted for the claims' lifetime after it starts), within limit.
func trusted(t *testing.T, s tool.RecordStore, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for i := 0; ; i++ {
		ok, err := claimOnce(s, "probe", fmt.Sprint("probe-", i))
		if ok {
			return
		}
		require.ErrorIs(t, err, tool.ErrStoreLostData)
		require.True(t, time.Now().Before(deadline), "still refused after %v: %v", limit, err)
		time.Sleep(100 * time.Millisecond)
	}
}

func TestLostDataIsNoticedAndFailsClosed(t *testing.T) {
	t.Parallel()
	const lifetime = 2 * time.Second
	t.Run("a restart without persistence: refused until the claims' lifetime after it", func(t *testing.T) {
		t.Parallel()
		srv := redistest.NewWith(t, redistest.Config{Ephemeral: true})
		rdb := client(t, srv)
		s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace(), ClaimLifetime: lifetime})
		ok, err := claimOnce(s, "conv", "before")
		assert.False(t, ok, "a server without persistence that just started is trusted at once")
		assert.ErrorIs(t, err, tool.ErrStoreLostData)
		assert.ErrorContains(t, err, "without persistence")
		trusted(t, s, 10*time.Second)
		ok, err = claimOnce(s, "conv", "ran")
		require.NoError(t, err)
		require.True(t, ok)

		require.NoError(t, srv.Restart())
		restarted := time.Now()
		ok, err = claimOnce(s, "conv", "ran")
		assert.False(t, ok, "a call that ran before the restart would run again")
		assert.ErrorIs(t, err, tool.ErrStoreLostData)
		ok, err = claimOnce(s, "another conv", "new")
		assert.False(t, ok, "a restart without persistence lost every session's claims")
		assert.ErrorIs(t, err, tool.ErrStoreLostData)
		trusted(t, s, 10*time.Second)
		assert.GreaterOrEqual(t, time.Since(restarted), lifetime-500*time.Millisecond, "trusted before the claims' lifetime was up")
	})
	t.Run("a restart with persistence: nothing lost, nothing refused", func(t *testing.T) {
		t.Parallel()
		srv := redistest.New(t) // appendonly yes, appendfsync always
		rdb := client(t, srv)
		s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace(), ClaimLifetime: time.Hour})
		ok, err := claimOnce(s, "conv", "ran")
		require.NoError(t, err)
		require.True(t, ok, "a new server that keeps what it acknowledged is trusted at once")
		require.NoError(t, srv.Restart())
		kept, ok, err := s.Claim(context.Background(), "conv", "ran", "again", time.Now().Add(time.Second))
		require.NoError(t, err)
		assert.False(t, ok)
		assert.Equal(t, "claim of ran", kept)
		ok, err = claimOnce(s, "conv", "new")
		require.NoError(t, err)
		assert.True(t, ok)
	})
	t.Run("a flush while the store runs", func(t *testing.T) {
		t.Parallel()
		srv := redistest.New(t)
		rdb := client(t, srv)
		s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace(), ClaimLifetime: time.Hour})
		ok, err := claimOnce(s, "conv", "ran")
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, rdb.FlushAll(context.Background()).Err())
		ok, err = claimOnce(s, "conv", "ran")
		assert.False(t, ok)
		assert.ErrorIs(t, err, tool.ErrStoreLostData)
		assert.ErrorContains(t, err, "its data is gone")
	})
	t.Run("keys evicted", func(t *testing.T) {
		t.Parallel()
		srv := redistest.NewWith(t, redistest.Config{MaxMemory: "4mb", MaxMemoryPolicy: "allkeys-lru"})
		rdb := client(t, srv)
		s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace(), ClaimLifetime: time.Hour})
		ok, err := claimOnce(s, "conv", "ran")
		require.NoError(t, err)
		require.True(t, ok)
		ctx := context.Background()
		for i := 0; ; i++ {
			require.NoError(t, rdb.Set(ctx, fmt.Sprint("junk-", i), strings.Repeat("x", 10<<10), 0).Err())
			info, err := rdb.Info(ctx, "stats").Result()
			require.NoError(t, err)
			if !strings.Contains(info, "evicted_keys:0\r\n") {
				break
			}
			require.Less(t, i, 10_000, "nothing was evicted")
		}
		ok, err = claimOnce(s, "conv", "new")
		assert.False(t, ok, "a claim was granted by a Redis that evicted keys")
		assert.ErrorIs(t, err, tool.ErrStoreLostData)
	})
	t.Run("the host accepts lost data: nothing is checked", func(t *testing.T) {
		t.Parallel()
		srv := redistest.NewWith(t, redistest.Config{Ephemeral: true})
		rdb := client(t, srv)
		s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace(), Durability: toolredis.DurabilityLossAccepted})
		ok, err := claimOnce(s, "conv", "ran")
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, srv.Restart())
		ok, err = claimOnce(s, "conv", "ran")
		require.NoError(t, err)
		assert.True(t, ok, "as the host accepted: the call may run again")
	})
}

// TestUsedApprovalIsNotUsedAgainAfterARestart resumes a deferred approval,
// restarts Redis without persistence, and resumes it again under another
// call ID: the one-time claim is gone with the data, and only the guard
// keeps the approval from being used twice.
func TestUsedApprovalIsNotUsedAgainAfterARestart(t *testing.T) {
	t.Parallel()
	srv := redistest.NewWith(t, redistest.Config{Ephemeral: true})
	rdb := client(t, srv)
	opts := &toolredis.Options{Namespace: namespace(), ClaimLifetime: 2 * time.Second}
	w := &writes{}
	a := newReplica(t, rdb, opts, w, nil, tooltest.Defer())
	const args = `{"path":"once","content":"x"}`
	pending := a.call("1", "conv", "write_file", args)
	tooltest.WantStatus(t, pending, tool.StatusAwaitingApproval)
	resume := func(id string) *tool.Result {
		return a.reg.Call(context.Background(), struct{}{}, tool.Request{ID: id, Name: "write_file", Args: []byte(args), Session: "conv",
			Approval: &tool.ApprovalAnswer{State: pending.Pending.State, Decision: tool.Decision{Kind: tool.DecisionAllowOnce}}})
	}
	// A server without persistence that just started is not trusted for
	// the claims' lifetime.
	require.Eventually(t, func() bool { return resume("2").Status == tool.StatusOK }, 10*time.Second, 100*time.Millisecond)
	require.NoError(t, srv.Restart())
	res := resume("3")
	tooltest.WantStatus(t, res, tool.StatusDenied)
	assert.ErrorIs(t, res.Err, tool.ErrStoreLostData)
	assert.Equal(t, []string{"once=x"}, w.all(), "the approval was used twice")
	time.Sleep(3 * time.Second) // past the lifetime the options give, not the claim's own
	res = resume("4")
	tooltest.WantStatus(t, res, tool.StatusDenied)
	assert.Equal(t, []string{"once=x"}, w.all(), "refused only for the lifetime the options gave, shorter than the claim's")
}

func TestApprovalClaimBelongsToItsCall(t *testing.T) {
	t.Parallel()
	t.Run("a claim whose reply was lost, sent again, is the first", func(t *testing.T) {
		t.Parallel()
		srv := redistest.New(t)
		p := redistest.NewProxy(t, srv.Addr)
		rdb := redis.NewClient(&redis.Options{Addr: p.Addr, MaxRetries: 3})
		t.Cleanup(func() { _ = rdb.Close() })
		m := toolredis.NewApprovalStore(rdb, &toolredis.Options{Namespace: namespace()})
		ctx := context.Background()
		ok, err := m.Claim(ctx, "conv", "warm", time.Now().Add(time.Minute)) // the marker, and the script loaded
		require.NoError(t, err)
		require.True(t, ok)
		p.DropNext(1)
		ok, err = m.Claim(ctx, "conv", "resume-1", time.Now().Add(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, 1, p.Dropped(), "the claim's reply was not dropped")
		assert.True(t, ok, "the client's retry of its own claim was told the approval was used")
		ok, err = m.Claim(ctx, "conv", "resume-1", time.Now().Add(time.Minute))
		require.NoError(t, err)
		assert.False(t, ok, "a second claim is refused")
	})
	t.Run("a claim that timed out and was made later is given back", func(t *testing.T) {
		t.Parallel()
		srv := redistest.New(t)
		rdb := client(t, srv)
		ns := namespace()
		m := toolredis.NewApprovalStore(rdb, &toolredis.Options{Namespace: ns, Timeout: 200 * time.Millisecond})
		ctx := context.Background()
		require.NoError(t, rdb.Ping(ctx).Err())
		ok, err := m.Claim(ctx, "conv", "warm", time.Now().Add(time.Minute)) // the marker, and the script loaded
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, srv.Freeze())
		ok, err = m.Claim(ctx, "conv", "resume-1", time.Now().Add(time.Minute))
		require.Error(t, err)
		require.False(t, ok)
		require.NoError(t, srv.Thaw()) // the claim sent is made now
		deadline := time.Now().Add(10 * time.Second)
		for {
			ok, err := m.Claim(ctx, "conv", "resume-1", time.Now().Add(time.Minute))
			if err == nil && ok {
				break
			}
			require.True(t, time.Now().Before(deadline), "the approval of a call that never ran is still taken: %v, %v", ok, err)
			time.Sleep(100 * time.Millisecond)
		}
	})
}

func TestRecordStoreBoundsASession(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()
	ns := namespace()
	const bound = 64 << 10
	s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: ns, MaxSessionRecordBytes: bound})
	later := time.Now().Add(time.Hour)
	_, ok, err := s.Claim(ctx, "flood", "running", "claim", later)
	require.NoError(t, err)
	require.True(t, ok)
	_, ok, err = s.Claim(ctx, "quiet", "c1", "claim", later)
	require.NoError(t, err)
	require.True(t, ok)
	record := strings.Repeat("r", 1200)
	for i := range 2000 { // 2.4 MB from one session
		id := fmt.Sprint("c", i)
		_, ok, err := s.Claim(ctx, "flood", id, "claim", later)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = s.Record(ctx, "flood", id, "claim", record, later)
		require.NoError(t, err)
		require.True(t, ok)
	}
	held := 0
	for _, k := range keys(t, rdb, ns) {
		if strings.Contains(k, ":record:") {
			n, err := rdb.StrLen(ctx, k).Result()
			require.NoError(t, err)
			held += int(n)
		}
	}
	assert.LessOrEqual(t, held, bound, "the flooding session's records are not bounded")
	kept, ok, err := s.Claim(ctx, "flood", "running", "twin", later)
	require.NoError(t, err)
	assert.False(t, ok, "the claim of a call in progress was dropped to make room")
	assert.Equal(t, "claim", kept)
	kept, _, err = s.Claim(ctx, "flood", "c1999", "twin", later)
	require.NoError(t, err)
	assert.Equal(t, record, kept, "the newest record is kept")
	kept, ok, err = s.Claim(ctx, "quiet", "c1", "twin", later)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, "claim", kept, "another session's claim is untouched")

	var full atomic.Bool
	for i := 0; i < 1000 && !full.Load(); i++ {
		_, ok, err := s.Claim(ctx, "flood", fmt.Sprint("open-", i), strings.Repeat("c", 1000), later)
		if err != nil {
			assert.ErrorIs(t, err, tool.ErrRecordStoreFull)
			full.Store(true)
			break
		}
		require.True(t, ok)
	}
	assert.True(t, full.Load(), "claims past the session's bound were all granted")
	_, ok, err = s.Claim(ctx, "quiet", "c2", "claim", later)
	require.NoError(t, err)
	assert.True(t, ok, "a full session refuses other sessions' claims")
	assert.False(t, errors.Is(err, tool.ErrRecordStoreFull))
}
