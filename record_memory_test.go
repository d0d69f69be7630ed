package tool_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestMemoryRecordStoreBounds(t *testing.T) {
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	kept := func(s *tool.MemoryRecordStore, session, id string) bool {
		_, claimed, err := s.Claim(ctx, session, id, "probe", later)
		require.NoError(t, err)
		if claimed {
			_, _ = s.Replace(ctx, session, id, "probe", "", time.Time{})
		}
		return !claimed
	}
	t.Run("one session's flood forgets only its own records", func(t *testing.T) {
		s := tool.NewMemoryRecordStore(1 << 20) // a session holds 64 KiB
		_, ok, err := s.Claim(ctx, "quiet", "c1", "record", later)
		require.NoError(t, err)
		require.True(t, ok)
		record := strings.Repeat("x", 4<<10)
		for i := range 1000 { // 4 MiB from one session
			_, ok, err := s.Claim(ctx, "flood", fmt.Sprint("c", i), record, later)
			require.NoError(t, err)
			require.True(t, ok)
		}
		assert.True(t, kept(s, "quiet", "c1"), "another session's record survives the flood")
		assert.True(t, kept(s, "flood", "c999"), "the flood's newest record is kept")
		assert.False(t, kept(s, "flood", "c0"), "the flood's oldest record made room")
	})
	t.Run("many sessions: the store's oldest records make room", func(t *testing.T) {
		s := tool.NewMemoryRecordStore(1 << 20)
		record := strings.Repeat("x", 4<<10)
		for i := range 1000 {
			_, ok, err := s.Claim(ctx, fmt.Sprint("s", i), "c", record, later)
			require.NoError(t, err)
			require.True(t, ok)
		}
		assert.False(t, kept(s, "s0", "c"))
		assert.True(t, kept(s, "s999", "c"))
	})
	t.Run("a record larger than a session may hold is refused", func(t *testing.T) {
		s := tool.NewMemoryRecordStore(1 << 20)
		_, _, err := s.Claim(ctx, "s", "c", "claim", later)
		require.NoError(t, err)
		ok, err := s.Replace(ctx, "s", "c", "claim", strings.Repeat("x", 100<<10), later)
		assert.ErrorIs(t, err, tool.ErrRecordTooLarge)
		assert.False(t, ok)
		assert.True(t, kept(s, "s", "c"), "the claim stays")
	})
}
