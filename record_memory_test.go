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
	// record claims session's id and records value in its place.
	record := func(s *tool.MemoryRecordStore, session, id, value string) {
		t.Helper()
		_, ok, err := s.Claim(ctx, session, id, "claim", later)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = s.Record(ctx, session, id, "claim", value, later)
		require.NoError(t, err)
		require.True(t, ok)
	}
	t.Run("one session's flood forgets only its own records", func(t *testing.T) {
		s := tool.NewMemoryRecordStore(1 << 20) // a session holds 64 KiB
		record(s, "quiet", "c1", "record")
		for i := range 1000 { // 4 MiB from one session
			record(s, "flood", fmt.Sprint("c", i), strings.Repeat("x", 4<<10))
		}
		assert.True(t, kept(s, "quiet", "c1"), "another session's record survives the flood")
		assert.True(t, kept(s, "flood", "c999"), "the flood's newest record is kept")
		assert.False(t, kept(s, "flood", "c0"), "the flood's oldest record made room")
	})
	t.Run("many sessions: the store's oldest records make room", func(t *testing.T) {
		s := tool.NewMemoryRecordStore(1 << 20)
		for i := range 1000 {
			record(s, fmt.Sprint("s", i), "c", strings.Repeat("x", 4<<10))
		}
		assert.False(t, kept(s, "s0", "c"))
		assert.True(t, kept(s, "s999", "c"))
	})
	t.Run("a claim is never forgotten to make room; a new one is refused", func(t *testing.T) {
		s := tool.NewMemoryRecordStore(64 << 10) // a session holds 4 KiB
		_, ok, err := s.Claim(ctx, "s", "running", "claim", later)
		require.NoError(t, err)
		require.True(t, ok)
		for i := range 40 { // the session's other calls, each of 1 KiB, far more than its room
			record(s, "s", fmt.Sprint("c", i), strings.Repeat("x", 1<<10))
		}
		kept, ok, err := s.Claim(ctx, "s", "running", "twin", later)
		require.NoError(t, err)
		assert.False(t, ok, "the running call's claim was forgotten: its twin would run it again")
		assert.Equal(t, "claim", kept)
		for i := 0; ; i++ { // claims alone fill the session's room
			_, ok, err := s.Claim(ctx, "s", fmt.Sprint("other", i), strings.Repeat("c", 512), later)
			if err != nil {
				assert.ErrorIs(t, err, tool.ErrRecordStoreFull)
				break
			}
			require.True(t, ok)
			require.Less(t, i, 100, "claims past the session's room were all kept")
		}
		kept, ok, err = s.Claim(ctx, "s", "running", "twin", later)
		require.NoError(t, err)
		assert.False(t, ok)
		assert.Equal(t, "claim", kept, "a full session still keeps its claims")
		_, ok, err = s.Claim(ctx, "another session", "c", "claim", later)
		require.NoError(t, err)
		assert.True(t, ok, "another session's claim has room")
	})
	t.Run("a record larger than a session may hold is refused", func(t *testing.T) {
		s := tool.NewMemoryRecordStore(1 << 20)
		_, _, err := s.Claim(ctx, "s", "c", "claim", later)
		require.NoError(t, err)
		ok, err := s.Record(ctx, "s", "c", "claim", strings.Repeat("x", 100<<10), later)
		assert.ErrorIs(t, err, tool.ErrRecordTooLarge)
		assert.False(t, ok)
		assert.True(t, kept(s, "s", "c"), "the claim stays")
	})
	t.Run("expired claims make room", func(t *testing.T) {
		s := tool.NewMemoryRecordStore(64 << 10)
		soon := time.Now().Add(20 * time.Millisecond)
		for i := 0; ; i++ {
			_, _, err := s.Claim(ctx, "s", fmt.Sprint("c", i), strings.Repeat("c", 512), soon)
			if err != nil {
				break
			}
			require.Less(t, i, 100)
		}
		time.Sleep(time.Until(soon) + 10*time.Millisecond)
		_, ok, err := s.Claim(ctx, "s", "after", "claim", later)
		require.NoError(t, err)
		assert.True(t, ok, "the lapsed claims still took the room")
	})
}
