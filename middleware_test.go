package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestWrapKeepsOptionalInterfaces(t *testing.T) {
	inner := rawWithCheck{tool.NewRaw(tool.Definition{Name: "read", Description: "reads", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("read"), nil })}
	adapted := tool.Adapt[struct{}](inner)
	wrapped := tool.Wrap(adapted, func(next tool.Handler[struct{}]) tool.Handler[struct{}] { return next })
	for name, tl := range map[string]any{"adapted": adapted, "wrapped": wrapped} {
		_, ok := tool.As[tool.ArgsValidator](tl)
		assert.True(t, ok, "%s lost ArgsValidator", name)
	}
	r := tool.NewRegistry[struct{}](nil)
	require.NoError(t, r.Add(wrapped))
	res := call(r, "read", `{"path":"/etc/passwd"}`)
	assert.Equal(t, tool.StatusInvalid, res.Status)
	assert.Contains(t, res.Text(), "off limits")
	assert.Equal(t, tool.StatusOK, call(r, "read", `{"path":"/tmp/x"}`).Status)
}

func TestWrapStandalone(t *testing.T) {
	var seen []string
	w := tool.Wrap(tool.Adapt[struct{}](newSearch()), func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
		return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
			seen = append(seen, c.Name)
			return next(ctx, c)
		}
	})
	call := func(args string) *tool.Call[struct{}] {
		c := &tool.Call[struct{}]{Name: "search"}
		c.SetArgs(json.RawMessage(args))
		return c
	}
	res, err := w.Run(context.Background(), call(`{"query":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, tool.StatusOK, res.Status)
	res, err = w.Run(context.Background(), call(`{"query":1}`))
	require.NoError(t, err)
	assert.Equal(t, tool.StatusInvalid, res.Status)
	assert.Equal(t, []string{"search"}, seen, "middlewares run after preflight")
}
