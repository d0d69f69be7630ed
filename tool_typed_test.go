package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestTypedToolStandalone(t *testing.T) {
	s := newSearch()
	res, err := s.Run(context.Background(), json.RawMessage(`{"query":"x","limt":1}`))
	require.NoError(t, err)
	assert.Equal(t, tool.StatusInvalid, res.Status)
	res, err = s.Run(context.Background(), json.RawMessage(`{"query":"x"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"query":"x","limit":10}`, string(res.Structured))
}

func TestNewForReceivesState(t *testing.T) {
	type session struct{ User string }
	greet := tool.NewFor(tool.Definition{Name: "greet", Description: "greets"}, func(_ context.Context, c *tool.Call[*session], in stateArgs) (string, error) {
		return "hello " + in.Name + " from " + c.State.User, nil
	})
	r := tool.NewRegistry[*session](nil)
	r.MustAdd(greet)
	res := r.Call(context.Background(), &session{User: "ana"}, tool.Request{Name: "greet", Args: []byte(`{"name":"bo"}`)})
	assert.Equal(t, "hello bo from ana", res.Text())
}
