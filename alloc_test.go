package tool_test

import (
	"context"
	"testing"

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
		if res := r.Call(ctx, struct{}{}, req); res.IsError {
			t.Fatal(res.Text())
		}
	})
	if allocs > budget {
		t.Fatalf("Registry.Call allocates %.0f times per valid call; budget %d", allocs, budget)
	}
}
