package expiring_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool/internal/expiring"
)

func TestSetBoundsAndExpiry(t *testing.T) {
	now := time.Unix(1_000, 0)
	later := now.Add(time.Minute)
	tests := []struct {
		name      string
		evictLive bool
		wantAdd   bool // the third key fits
		wantFirst bool // the first key is still there
	}{
		{"evicts the oldest live key", true, true, false},
		{"refuses past its bound", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := expiring.New(2, 0, tt.evictLive)
			for i := range 2 {
				assert.True(t, s.Add(strconv.Itoa(i), strconv.Itoa(i), later, now))
			}
			assert.Equal(t, tt.wantAdd, s.Add("2", "2", later, now))
			assert.Equal(t, tt.wantFirst, s.Has("0", now))
			assert.False(t, s.Has("1", later), "expired at its expiry")
			assert.True(t, s.Add("3", "3", later.Add(time.Minute), later), "an expired key makes room")
		})
	}
}

func TestGroupBounds(t *testing.T) {
	now := time.Unix(1_000, 0)
	later := now.Add(time.Minute)
	tests := []struct {
		name      string
		evictLive bool
		wantAdd   bool // a group's third key fits
		wantFirst bool // the group's first key is still there
	}{
		{"evicts the group's oldest live key", true, true, false},
		{"refuses past the group's bound", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := expiring.New(100, 2, tt.evictLive)
			assert.True(t, s.Add("other", "b", later, now))
			for i := range 2 {
				assert.True(t, s.Add("a"+strconv.Itoa(i), "a", later, now))
			}
			assert.Equal(t, tt.wantAdd, s.Add("a2", "a", later, now))
			assert.Equal(t, tt.wantFirst, s.Has("a0", now))
			assert.True(t, s.Has("other", now), "another group's key is never touched")
			assert.True(t, s.Add("b2", "b", later, now), "another group still has room")
			// A flood of one group leaves the others room.
			for i := range 1000 {
				s.Add("flood"+strconv.Itoa(i), "a", later, now)
			}
			assert.LessOrEqual(t, s.Len(), 4)
			assert.True(t, s.Add("c0", "c", later, now), "another group still has room after the flood")
			// An expired key behind a live one makes room in its group.
			s2 := expiring.New(100, 2, false)
			assert.True(t, s2.Add("long", "a", later.Add(time.Hour), now))
			assert.True(t, s2.Add("short", "a", now.Add(time.Second), now))
			assert.True(t, s2.Add("next", "a", later, now.Add(2*time.Second)))
		})
	}
}
