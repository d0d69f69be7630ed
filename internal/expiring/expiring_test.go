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
			s := expiring.New(2, tt.evictLive)
			for i := range 2 {
				assert.True(t, s.Add(strconv.Itoa(i), later, now))
			}
			assert.Equal(t, tt.wantAdd, s.Add("2", later, now))
			assert.Equal(t, tt.wantFirst, s.Has("0", now))
			assert.False(t, s.Has("1", later), "expired at its expiry")
			assert.True(t, s.Add("3", later.Add(time.Minute), later), "an expired key makes room")
		})
	}
}
