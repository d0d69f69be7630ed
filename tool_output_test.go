package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestCapItems(t *testing.T) {
	items := make([]int, 120)
	for i := range items {
		items[i] = i
	}
	g := tool.OutputGuard{ExploreCap: 100}
	next := func(n int) *int { return &n }
	tests := []struct {
		name      string
		args      tool.OutputArgs
		wantFirst int
		wantLen   int
		overflow  *tool.Overflow
		hint      string
	}{
		{name: "exploring: capped", args: tool.OutputArgs{}, wantLen: 100,
			overflow: &tool.Overflow{Shown: 100, Total: 120}, hint: `detail_level "full"`},
		{name: "exploring: explicit limit", args: tool.OutputArgs{Limit: 10}, wantLen: 10,
			overflow: &tool.Overflow{Shown: 10, Total: 120}},
		{name: "exploring: all fit", args: tool.OutputArgs{Limit: 500}, wantLen: 120},
		{name: "focused: first page", args: tool.OutputArgs{DetailLevel: "full"}, wantLen: 50,
			overflow: &tool.Overflow{Shown: 50, Total: 120, NextOffset: next(50)}, hint: "offset 50"},
		{name: "focused: middle page", args: tool.OutputArgs{DetailLevel: "full", Offset: 50, Limit: 30}, wantFirst: 50, wantLen: 30,
			overflow: &tool.Overflow{Shown: 30, Total: 120, NextOffset: next(80)}},
		{name: "focused: last page", args: tool.OutputArgs{DetailLevel: "full", Offset: 100}, wantFirst: 100, wantLen: 20,
			overflow: &tool.Overflow{Shown: 20, Total: 120}, hint: "last page"},
		{name: "focused: past the end", args: tool.OutputArgs{DetailLevel: "full", Offset: 500},
			overflow: &tool.Overflow{Shown: 0, Total: 120}, hint: "past the end"},
		{name: "focused: everything", args: tool.OutputArgs{DetailLevel: "full", Limit: 1000}, wantLen: 120},
		{name: "an offset pages in any mode", args: tool.OutputArgs{Offset: 50}, wantFirst: 50, wantLen: 50,
			overflow: &tool.Overflow{Shown: 50, Total: 120, NextOffset: next(100)}, hint: "offset 100"},
		{name: "an offset with a limit", args: tool.OutputArgs{DetailLevel: "compact", Offset: 110, Limit: 5}, wantFirst: 110, wantLen: 5,
			overflow: &tool.Overflow{Shown: 5, Total: 120, NextOffset: next(115)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, o := tool.CapItems(g, items, tt.args)
			assert.Len(t, got, tt.wantLen)
			if tt.wantLen > 0 {
				assert.Equal(t, tt.wantFirst, got[0])
			}
			if tt.overflow == nil {
				assert.Nil(t, o)
				return
			}
			require.NotNil(t, o)
			assert.Equal(t, tt.overflow.Shown, o.Shown)
			assert.Equal(t, tt.overflow.Total, o.Total)
			assert.Equal(t, tt.overflow.NextOffset, o.NextOffset)
			assert.Contains(t, o.Hint, tt.hint)
		})
	}
	_, o := tool.CapFiles(tool.OutputGuard{}, make([]string, 300), tool.OutputArgs{})
	assert.Equal(t, 200, o.Shown, "default exploring cap")
	assert.Contains(t, o.Hint, "files")
	_, o = tool.CapFiles(tool.OutputGuard{}, make([]string, 300), tool.OutputArgs{DetailLevel: "full"})
	assert.Equal(t, 50, o.Shown, "default page limit")
	b, _ := json.Marshal(o)
	assert.Contains(t, string(b), `"next_offset":50`)
	b, _ = json.Marshal(tool.Overflow{Shown: 1, Total: 2})
	assert.NotContains(t, string(b), "next_offset")
}

// A typed tool that embeds OutputArgs gets detail_level, offset and limit
// in its schema.
func TestOutputArgsEmbed(t *testing.T) {
	type grepArgs struct {
		Pattern string `json:"pattern"`
		tool.OutputArgs
	}
	g := tool.New(tool.Definition{Name: "grep", Description: "Finds lines."},
		func(_ context.Context, in grepArgs) (any, error) {
			lines := make([]string, 500)
			shown, o := tool.CapItems(tool.OutputGuard{}, lines, in.OutputArgs)
			return map[string]any{"lines": len(shown), "overflow": o}, nil
		})
	res := tooltest.Run(t, g, `{"pattern":"x","detail_level":"full","offset":450}`, nil)
	tooltest.WantOK(t, res)
	tooltest.WantTextContains(t, res, `"lines":50`, `"hint":`)
	tooltest.WantStatus(t, tooltest.Run(t, g, `{"pattern":"x","detail_level":"everything"}`, nil), tool.StatusInvalid)
	var props map[string]any
	require.NoError(t, json.Unmarshal(tool.OutputArgsSchema(), &props))
	assert.Len(t, props, 3)
}
