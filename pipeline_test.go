package tool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestMiddlewareOrder(t *testing.T) {
	var order []string
	mw := func(name string) tool.Middleware[struct{}] {
		return func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
			return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
				_, validated := c.Value()
				order = append(order, name+":in:"+map[bool]string{true: "validated", false: "raw"}[validated])
				res := next(ctx, c)
				order = append(order, name+":out")
				return res
			}
		}
	}
	r := newRegistry(t, newSearch())
	r.Use(mw("a"), mw("b"))
	r.Use(mw("c"))
	require.Equal(t, tool.StatusOK, call(r, "search", `{"query":"x"}`).Status)
	assert.Equal(t, []string{"a:in:validated", "b:in:validated", "c:in:validated", "c:out", "b:out", "a:out"}, order)

	order = nil
	assert.Equal(t, tool.StatusInvalid, call(r, "search", `{}`).Status)
	assert.Empty(t, order, "middlewares never see invalid arguments")
}

type stateArgs struct {
	Name string `json:"name"`
}
