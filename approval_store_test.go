package tool_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestApprovalStoreBounds(t *testing.T) {
	ctx := context.Background()
	t.Run("answers: the oldest is forgotten", func(t *testing.T) {
		m := tool.NewMemoryApprovalStore(2)
		later := time.Now().Add(time.Hour)
		for _, k := range []string{"a", "b", "c"} {
			require.NoError(t, m.Remember(ctx, "s", k, later))
		}
		for k, want := range map[string]bool{"a": false, "b": true, "c": true} {
			ok, err := m.Allowed(ctx, "s", k)
			require.NoError(t, err)
			assert.Equal(t, want, ok, k)
		}
		ok, _ := m.Allowed(ctx, "other", "c")
		assert.False(t, ok, "per session")
	})
	t.Run("claims: never forgotten before they expire", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := tool.NewMemoryApprovalStore(2)
			for _, id := range []string{"x", "y"} {
				first, err := m.Claim(ctx, id, time.Now().Add(time.Minute))
				require.NoError(t, err)
				assert.True(t, first)
			}
			first, err := m.Claim(ctx, "x", time.Now().Add(time.Minute))
			require.NoError(t, err)
			assert.False(t, first, "a second claim")
			_, err = m.Claim(ctx, "z", time.Now().Add(time.Minute))
			assert.True(t, errors.Is(err, tool.ErrApprovalStoreFull), "full of live claims: refused, not forgotten")
			time.Sleep(2 * time.Minute)
			first, err = m.Claim(ctx, "z", time.Now().Add(time.Minute))
			require.NoError(t, err)
			assert.True(t, first, "expired claims make room")
		})
	})
}
