package tool_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestApprovalStoreBounds(t *testing.T) {
	ctx := context.Background()
	t.Run("answers: the oldest is forgotten", func(t *testing.T) {
		m := tool.NewMemoryApprovalStore(2)
		later := time.Now().Add(time.Hour)
		for _, k := range []string{"a", "b", "c"} {
			require.NoError(t, m.Remember(ctx, "s", k, later))
		}
		for k, want := range map[string]bool{"a": false, "b": false, "c": true} {
			ok, err := m.Allowed(ctx, "s", k)
			require.NoError(t, err)
			assert.Equal(t, want, ok, k)
		}
		ok, _ := m.Allowed(ctx, "other", "c")
		assert.False(t, ok, "per session")
	})
	t.Run("answers: one session's flood forgets only its own", func(t *testing.T) {
		m := tool.NewMemoryApprovalStore(1000) // a session holds 10
		later := time.Now().Add(time.Hour)
		require.NoError(t, m.Remember(ctx, "quiet", "k", later))
		for i := range 5000 {
			require.NoError(t, m.Remember(ctx, "flood", fmt.Sprint("k", i), later))
		}
		ok, err := m.Allowed(ctx, "quiet", "k")
		require.NoError(t, err)
		assert.True(t, ok, "another session's answer survives the flood")
	})
	t.Run("claims: never forgotten before they expire", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := tool.NewMemoryApprovalStore(2)
			for _, s := range []string{"s1", "s2"} {
				first, err := m.Claim(ctx, s, "x", time.Now().Add(time.Minute))
				require.NoError(t, err)
				assert.True(t, first)
			}
			first, err := m.Claim(ctx, "s1", "x", time.Now().Add(time.Minute))
			require.NoError(t, err)
			assert.False(t, first, "a second claim")
			_, err = m.Claim(ctx, "s3", "z", time.Now().Add(time.Minute))
			assert.True(t, errors.Is(err, tool.ErrApprovalStoreFull), "full of live claims: refused, not forgotten")
			time.Sleep(2 * time.Minute)
			first, err = m.Claim(ctx, "s3", "z", time.Now().Add(time.Minute))
			require.NoError(t, err)
			assert.True(t, first, "expired claims make room")
		})
	})
	t.Run("claims: a session holds a hundredth of the store", func(t *testing.T) {
		m := tool.NewMemoryApprovalStore(500) // a session holds 5
		later := time.Now().Add(time.Hour)
		for i := range 5 {
			first, err := m.Claim(ctx, "flood", fmt.Sprint(i), later)
			require.NoError(t, err)
			require.True(t, first)
		}
		_, err := m.Claim(ctx, "flood", "5", later)
		assert.ErrorIs(t, err, tool.ErrApprovalStoreFull, "the session's sixth claim")
		first, err := m.Claim(ctx, "other", "5", later)
		require.NoError(t, err)
		assert.True(t, first, "another session still claims")
	})
}

// TestOneSessionCannotLockOutTheOthers is issue 24's flood: a client that
// declines its own deferred calls, one after another, takes a claim each
// time. Before claims were bounded per session, it filled the store's
// claims and from then on every other session's approved resume was
// refused until the claims expired.
func TestOneSessionCannotLockOutTheOthers(t *testing.T) {
	const args = `{"path":"a","content":"x"}`
	store := tool.NewMemoryApprovalStore(300) // a session holds 3 claims
	steps := make([]tooltest.Step, 0, 301)
	for range 301 {
		steps = append(steps, tooltest.Defer())
	}
	f := newFixture(t, tool.ApprovalOptions[struct{}]{Store: store}, steps...)
	deny := tool.Decision{Kind: tool.DecisionDeny, Reason: "no"}
	for i := range 300 {
		res := f.callIn("flood", fmt.Sprint("f", i), "write_file", args)
		require.Equal(t, tool.StatusAwaitingApproval, res.Status, res.Text())
		declined := f.resume("flood", args, res.Pending, deny)
		require.Equal(t, tool.StatusDenied, declined.Status)
	}
	res := f.callIn("victim", "v", "write_file", args)
	require.Equal(t, tool.StatusAwaitingApproval, res.Status, res.Text())
	resumed := f.resume("victim", args, res.Pending, tool.Decision{Kind: tool.DecisionAllowOnce})
	tooltest.WantOK(t, resumed)
	assert.Equal(t, []string{"write a x"}, f.runs(), "the other session's approved call ran, once")
}

// TestMemoryApprovalStoreBytesDoNotFollowKeyLengths: sessions and claim
// IDs come from the wire; the store's bound in entries must bound its
// bytes whatever their lengths (64 KiB sessions once held 1.1 GB for 8,000
// entries).
func TestMemoryApprovalStoreBytesDoNotFollowKeyLengths(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("s", 64<<10)
	later := time.Now().Add(time.Hour)
	tests := []struct {
		name string
		add  func(st *tool.MemoryApprovalStore, i int)
	}{
		{"claims with long sessions", func(st *tool.MemoryApprovalStore, i int) {
			_, _ = st.Claim(ctx, fmt.Sprint(long, i%10), fmt.Sprint("id", i), later)
		}},
		{"claims with long ids", func(st *tool.MemoryApprovalStore, i int) {
			_, _ = st.Claim(ctx, fmt.Sprint("s", i%10), fmt.Sprint(long, i), later)
		}},
		{"answers with long sessions", func(st *tool.MemoryApprovalStore, i int) {
			_ = st.Remember(ctx, fmt.Sprint(long, i%10), fmt.Sprint("key", i), later)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tool.NewMemoryApprovalStore(1000) // ten per session
			before := liveHeap()
			for i := range 2000 {
				tt.add(st, i)
			}
			grew := liveHeap() - before
			runtime.KeepAlive(st)
			// 100 entries: a few hundred bytes each; 64 KiB each would be 6.5 MB.
			assert.Less(t, grew, int64(1<<20), "bytes held by 100 entries")
			// A long pair is still told apart from the others.
			first, err := st.Claim(ctx, long+"x", long, later)
			require.NoError(t, err)
			assert.True(t, first)
			again, err := st.Claim(ctx, long+"x", long, later)
			require.NoError(t, err)
			assert.False(t, again)
		})
	}
}

func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
