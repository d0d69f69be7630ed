package tool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool"
)

func TestMiddlewarePanicIsRecovered(t *testing.T) {
	r := newRegistry(t, newSearch())
	r.Use(func(tool.Handler[struct{}]) tool.Handler[struct{}] {
		return func(context.Context, *tool.Call[struct{}]) *tool.Result { panic("middleware bug") }
	})
	assert.Equal(t, tool.StatusPanicked, call(r, "search", `{"query":"x"}`).Status)
}
