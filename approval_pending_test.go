package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func pendingOf(session, state string, size int) *tool.PendingApproval {
	return &tool.PendingApproval{State: state, Expires: time.Now().Add(time.Minute), Session: session, Request: tool.ApprovalRequest{
		Tool: "edit_file", Session: session, Args: json.RawMessage(`{}`),
		Preview: tool.Preview{Edits: []tool.Edit{{Path: "a", New: strings.Repeat("x", size)}}, Locations: []string{"a"}},
	}}
}

func TestMemoryPendingApprovalStoreBounds(t *testing.T) {
	ctx := context.Background()
	t.Run("bytes: full of live approvals, a new one is refused", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := tool.NewMemoryPendingApprovalStore(5 << 10)
			require.NoError(t, m.Offer(ctx, pendingOf("s", "a", 1500), time.Now().Add(time.Minute)))
			require.NoError(t, m.Offer(ctx, pendingOf("s", "b", 1500), time.Now().Add(2*time.Minute)))
			err := m.Offer(ctx, pendingOf("s", "c", 1500), time.Now().Add(time.Minute))
			assert.ErrorIs(t, err, tool.ErrPendingFull, "a waiting approval is never forgotten to make room")
			assert.LessOrEqual(t, m.Len(), 5<<10)
			time.Sleep(time.Minute + time.Second)
			require.NoError(t, m.Offer(ctx, pendingOf("s", "c", 1500), time.Now().Add(time.Minute)), "one past its keep time makes room")
			_, _, err = m.Get(ctx, "a")
			assert.ErrorIs(t, err, tool.ErrPendingGone)
		})
	})
	t.Run("bytes: an approval larger than the store is refused", func(t *testing.T) {
		m := tool.NewMemoryPendingApprovalStore(1 << 10)
		err := m.Offer(ctx, pendingOf("s", "big", 2<<10), time.Now().Add(time.Minute))
		assert.ErrorIs(t, err, tool.ErrPendingFull)
		assert.Zero(t, m.Len())
	})
	t.Run("one session's large approvals leave room for the others'", func(t *testing.T) {
		// Before, one session's 64 approvals of 1 MiB filled the 64 MiB
		// store and every other session's were refused.
		for _, tt := range []struct {
			name string
			size int
			n    int
		}{{"large approvals", 1 << 20, 64}, {"small approvals, at the count bound", 100, tool.MaxPendingPerSession + 1}} {
			t.Run(tt.name, func(t *testing.T) {
				m := tool.NewMemoryPendingApprovalStore(0)
				refused := 0
				for i := range tt.n {
					if err := m.Offer(ctx, pendingOf("flood", fmt.Sprint("f", i), tt.size), time.Now().Add(time.Minute)); err != nil {
						assert.ErrorIs(t, err, tool.ErrPendingFull)
						refused++
					}
				}
				assert.Positive(t, refused, "the flooding session is refused at its own bound")
				assert.LessOrEqual(t, m.Len(), (64<<20)/16+tt.size)
				require.NoError(t, m.Offer(ctx, pendingOf("victim", "v", 1<<20), time.Now().Add(time.Minute)), "another session's approval fits")
			})
		}
	})
	t.Run("an answer counts against the bound", func(t *testing.T) {
		m := tool.NewMemoryPendingApprovalStore(0)
		require.NoError(t, m.Offer(ctx, pendingOf("s", "a", 0), time.Now().Add(time.Minute)))
		before := m.Len()
		_, err := m.Answer(ctx, "a", tool.Decision{Kind: tool.DecisionEdit, Reason: "why", Args: json.RawMessage(`{"x":1}`)})
		require.NoError(t, err)
		assert.Equal(t, before+len("why")+len(`{"x":1}`), m.Len())
	})
	t.Run("entries past their keep time are dropped", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := tool.NewMemoryPendingApprovalStore(0)
			for i := range 10 {
				require.NoError(t, m.Offer(ctx, pendingOf(fmt.Sprint("s", i), fmt.Sprint("p", i), 100), time.Now().Add(time.Minute)))
			}
			time.Sleep(2 * time.Minute)
			require.NoError(t, m.Offer(ctx, pendingOf("s", "new", 100), time.Now().Add(time.Minute)))
			assert.Less(t, m.Len(), 2*pendingSize(t), "ten entries past their keep time still counted")
		})
	})
}

// pendingSize is what one of pendingOf's approvals of 100 bytes costs.
func pendingSize(t *testing.T) int {
	m := tool.NewMemoryPendingApprovalStore(0)
	require.NoError(t, m.Offer(context.Background(), pendingOf("s", "p", 100), time.Now().Add(time.Minute)))
	return m.Len()
}

func TestMemoryPendingApprovalStoreKeepsCopies(t *testing.T) {
	ctx := context.Background()
	m := tool.NewMemoryPendingApprovalStore(0)
	p := pendingOf("s", "a", 3)
	require.NoError(t, m.Offer(ctx, p, time.Now().Add(time.Minute)))
	p.Request.Args[0] = 'X'
	p.Request.Preview.Edits[0].Path = "changed"
	p.Request.Preview.Locations[0] = "changed"

	got, _, err := m.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(got.Request.Args))
	assert.Equal(t, "a", got.Request.Preview.Edits[0].Path)
	assert.Equal(t, "a", got.Request.Preview.Locations[0])
	got.Request.Preview.Edits[0].Path = "changed too"
	listed, err := m.List(ctx, "s")
	require.NoError(t, err)
	require.Len(t, listed, 1)
	assert.Equal(t, "a", listed[0].Request.Preview.Edits[0].Path, "what Get returned is the caller's")

	d := tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(`{"x":1}`)}
	first, err := m.Answer(ctx, "a", d)
	require.NoError(t, err)
	require.True(t, first)
	d.Args[1] = 'Y'
	_, answer, err := m.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, `{"x":1}`, string(answer.Args))
}

// Sessions that read the same once escaped are two sessions: each has its
// own list and its own bound. Before, the store keyed sessions by
// Request.Session, escaped for showing, so the session of the text
// team\u202e listed, and filled, the session team followed by a real
// U+202E.
func TestMemoryPendingApprovalStoreKeysRawSessions(t *testing.T) {
	ctx := context.Background()
	m := tool.NewMemoryPendingApprovalStore(0)
	shown := `team\u202e`
	for i := range tool.MaxPendingPerSession {
		p := pendingOf(`team\u202e`, fmt.Sprint("literal-", i), 10)
		p.Request.Session = shown
		require.NoError(t, m.Offer(ctx, p, time.Now().Add(time.Minute)))
	}
	p := pendingOf("team\u202e", "real", 10)
	p.Request.Session = shown
	require.NoError(t, m.Offer(ctx, p, time.Now().Add(time.Minute)), "the other session's bound is its own")
	got, err := m.List(ctx, "team\u202e")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "real", got[0].State)
	got, err = m.List(ctx, `team\u202e`)
	require.NoError(t, err)
	assert.Len(t, got, tool.MaxPendingPerSession)
}
