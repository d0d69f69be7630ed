package tool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
)

// TestCallAllocationBudget keeps the hot path from growing silently: a
// valid call of the benchmark's search tool, preflight included.
func TestCallAllocationBudget(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts are checked in full runs without -race")
	}
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "search", Description: "Search the code base."}, benchSearch))
	req := tool.Request{ID: "1", Name: "search", Args: benchValid}
	ctx := context.Background()
	const budget = 22 // measured 21: the floor itself makes 12
	allocs := testing.AllocsPerRun(200, func() {
		res := r.Call(ctx, struct{}{}, req)
		require.False(t, res.IsError, res.Text())
	})
	assert.LessOrEqual(t, allocs, float64(budget), "Registry.Call allocations per valid call")
}

// TestInvalidCallAllocationBudget keeps the invalid path from growing
// silently: the benchmark's invalid call (an enum and a maximum broken),
// whose hint names both problems and shows the expected shape, through
// Registry.Call. The schema validator's own verdict is about half of it.
func TestInvalidCallAllocationBudget(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts are checked in full runs without -race")
	}
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "search", Description: "Search the code base."}, benchSearch))
	req := tool.Request{ID: "1", Name: "search", Args: benchInvalid}
	ctx := context.Background()
	const budget = 91 // measured 90 (144 before): the schema validator's own verdict makes about 60
	allocs := testing.AllocsPerRun(200, func() {
		res := r.Call(ctx, struct{}{}, req)
		require.Equal(t, tool.StatusInvalid, res.Status, res.Text())
	})
	assert.LessOrEqual(t, allocs, float64(budget), "Registry.Call allocations per invalid call")
}
