package tool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestDefinitions(t *testing.T) {
	mk := func(name string, hidden bool) tool.AnyTool {
		return tool.New(tool.Definition{Name: name, Description: "d", Hidden: hidden}, func(context.Context, noArgs) (string, error) { return "", nil })
	}
	r := newRegistry(t, mk("zeta", false), mk("alpha", false), mk("secret", true))
	defs := r.Definitions()
	require.Len(t, defs, 2)
	assert.Equal(t, "alpha", defs[0].Name)
	assert.Equal(t, "zeta", defs[1].Name)
	assert.JSONEq(t, `{"type":"object","properties":{},"additionalProperties":false}`, string(defs[0].InputSchema))
	assert.Equal(t, tool.StatusOK, call(r, "secret", `{}`).Status, "hidden tools stay callable")
	defs[0].Name = "changed"
	assert.Equal(t, "alpha", r.Definitions()[0].Name, "callers cannot change the cached list")
}

func TestOnChange(t *testing.T) {
	r := tool.NewRegistry[struct{}](nil)
	changes := 0
	cancel := r.OnChange(func() { changes++ })
	ping := func(name string) tool.AnyTool {
		return tool.New(tool.Definition{Name: name, Description: "Answers pong."}, func(context.Context, struct{}) (string, error) { return "pong", nil })
	}
	require.NoError(t, r.Add(ping("a")))
	require.Error(t, r.Add(ping("a")), "a refused Add changes nothing")
	r.OnChange(func() { panic("a broken watcher") })
	require.NoError(t, r.Add(ping("b"), ping("c")))
	assert.Equal(t, 2, changes)
	cancel()
	require.NoError(t, r.Add(ping("d")))
	assert.Equal(t, 2, changes)
}
