package dialect_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

type step struct {
	Name  string `json:"name"`
	Retry int    `json:"retry,omitempty" jsonschema:"default=3"`
}

type plan struct {
	Steps []step `json:"steps"`
	Mode  string `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow,default=fast"`
}

// The same call reaches the tool with the same defaults filled, whatever
// the tool's tier and whether the model was given the strict form: items,
// references and nested objects alike.
func TestDefaultsTheSameOnEveryPath(t *testing.T) {
	var typed plan
	var raw json.RawMessage
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(
		tool.New(tool.Definition{Name: "typed", Description: "Typed."}, func(_ context.Context, in plan) (string, error) {
			typed = in
			return "ok", nil
		}),
		tool.NewRaw(tool.Definition{Name: "raw", Description: "Raw.", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"steps":{"type":"array","items":{"$ref":"#/$defs/Step"}},"mode":{"type":"string","enum":["fast","slow"],"default":"fast"}},` +
			`"required":["steps"],"additionalProperties":false,` +
			`"$defs":{"Step":{"type":"object","properties":{"name":{"type":"string"},"retry":{"type":"integer","default":3}},"required":["name"],"additionalProperties":false}}}`)},
			func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
				raw = args
				return tool.TextResult("ok"), nil
			}),
	))
	calls := []struct {
		args   string
		strict bool
	}{
		{`{"steps":[{"name":"a"},{"name":"b","retry":1}]}`, false},
		{`{"steps":[{"name":"a","retry":null},{"name":"b","retry":1}],"mode":null}`, true},
	}
	for _, c := range calls {
		res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "typed", Args: json.RawMessage(c.args), NullMeansAbsent: c.strict})
		require.Equal(t, tool.StatusOK, res.Status, res.Text())
		assert.Equal(t, plan{Steps: []step{{Name: "a", Retry: 3}, {Name: "b", Retry: 1}}, Mode: "fast"}, typed, "strict=%v", c.strict)
		res = reg.Call(context.Background(), struct{}{}, tool.Request{Name: "raw", Args: json.RawMessage(c.args), NullMeansAbsent: c.strict})
		require.Equal(t, tool.StatusOK, res.Status, res.Text())
		assert.JSONEq(t, `{"steps":[{"name":"a","retry":3},{"name":"b","retry":1}],"mode":"fast"}`, string(raw), "strict=%v", c.strict)
	}
}

// A default that would make the call invalid is left out of it: the tool
// runs with what the model sent, which its schema accepts, and the
// registry warned at registration.
func TestDefaultsThatWouldBreakTheCall(t *testing.T) {
	var got json.RawMessage
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(tool.NewRaw(tool.Definition{Name: "t", Description: "T.", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"retry":{"type":"integer","default":3},"backoff":{"type":"string"},"mode":{"type":"string","default":"fast"}},` +
		`"dependentRequired":{"retry":["backoff"]},"maxProperties":2}`)},
		func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			got = args
			return tool.TextResult("ok"), nil
		})))
	tests := []struct{ args, want string }{
		{`{}`, `{"mode":"fast"}`},
		{`{"backoff":"exp"}`, `{"backoff":"exp","retry":3}`},
		{`{"backoff":"exp","mode":"slow"}`, `{"backoff":"exp","mode":"slow"}`},
	}
	for _, tt := range tests {
		res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "t", Args: json.RawMessage(tt.args)})
		require.Equal(t, tool.StatusOK, res.Status, res.Text())
		assert.JSONEq(t, tt.want, string(got), tt.args)
	}
	require.Len(t, reg.Warnings(), 1)
	assert.Contains(t, reg.Warnings()[0].Error(), "a default filled in at the root may make a valid call invalid")
}
