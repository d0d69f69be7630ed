package tool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestCallInfoFrom(t *testing.T) {
	var got tool.CallInfo
	var ok bool
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "who", Description: "Says who called."}, func(ctx context.Context, _ struct{}) (string, error) {
		got, ok = tool.CallInfoFrom(ctx)
		return "", nil
	}))
	r.Call(context.Background(), struct{}{}, tool.Request{ID: "call_7", Name: "who", Session: "conv-1"})
	require.True(t, ok)
	assert.Equal(t, tool.CallInfo{ID: "call_7", Name: "who", Session: "conv-1"}, got)
	_, ok = tool.CallInfoFrom(context.Background())
	assert.False(t, ok)
}

func TestReportOutsideACallIsHarmless(t *testing.T) {
	tool.ReportProgress(context.Background(), tool.Progress{Message: "nobody listens"})
	tool.ReportPartial(context.Background(), tool.TextContent("x"))
}
