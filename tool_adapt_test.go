package tool_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool"
)

// countedArgs counts its Validate calls: preflight runs it once, and the
// tool must be handed what preflight decoded rather than read the raw
// arguments again.
type countedArgs struct {
	tool.PageArgs
	Q string `json:"q"`
}

var validations atomic.Int64

func (countedArgs) Validate() error { validations.Add(1); return nil }

func TestWrappedTypedToolsAreValidatedOnce(t *testing.T) {
	def := tool.Definition{Name: "t", Description: "Counts."}
	plain := func() tool.AnyTool {
		return tool.New(def, func(context.Context, countedArgs) (string, error) { return "ok", nil })
	}
	paged := func() tool.AnyTool {
		return tool.NewPaginated(def, func(context.Context, countedArgs, tool.Page) (string, []byte, error) { return "ok", nil, nil })
	}
	tests := map[string]tool.Definer{
		"New":                          plain(),
		"WithApprovalHooks":            tool.WithApprovalHooks(plain(), tool.ApprovalHooks[countedArgs]{}),
		"NewPaginated":                 paged(),
		"WithApprovalHooks(Paginated)": tool.WithApprovalHooks(paged(), tool.ApprovalHooks[countedArgs]{}),
		"NewPaginatedFor": tool.NewPaginatedFor(def, func(context.Context, *tool.Call[struct{}], countedArgs, tool.Page) (string, []byte, error) {
			return "ok", nil, nil
		}),
		"Rename": tool.Rename(tool.New(tool.Definition{Name: "before", Description: "Counts."},
			func(context.Context, countedArgs) (string, error) { return "ok", nil }), "t"),
		"RenameFor": tool.RenameFor(tool.NewFor(tool.Definition{Name: "before", Description: "Counts."},
			func(context.Context, *tool.Call[struct{}], countedArgs) (string, error) { return "ok", nil }), "t"),
	}
	for name, tl := range tests {
		t.Run(name, func(t *testing.T) {
			reg := tool.NewRegistry[struct{}](nil)
			reg.MustAdd(tl)
			validations.Store(0)
			res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "t", Args: []byte(`{"q":"x"}`), Session: "s"})
			assert.Equal(t, tool.StatusOK, res.Status, res.Text())
			assert.Equal(t, int64(1), validations.Load(), "Validate runs once per call")
		})
	}
}
