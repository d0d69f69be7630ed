package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// todoArgs has a rule across fields that its schema cannot say: adding
// needs a text.
type todoArgs struct {
	Action string `json:"action" jsonschema:"enum=add,enum=remove"`
	Text   string `json:"text,omitempty"`
}

func (a todoArgs) Validate() error {
	if a.Action == "add" && a.Text == "" {
		return errors.New("text is required when action is add")
	}
	return nil
}

// evenN is a tool with an ArgsValidator of its own.
type evenN struct{ tool.AnyTool }

func (evenN) ValidateArgs(any) error { return errors.New("n must be even") }

// A hint that does not help is worse than none (issue 27): the retry hint
// shows an expected shape only where it says more than the arguments that
// failed, and suggests a key only when it is close to the one sent.
func TestHintsSuggestOnlyWhatWouldPass(t *testing.T) {
	todo := tool.New(tool.Definition{Name: "todo", Description: "Adds or removes a to-do."},
		func(context.Context, todoArgs) (string, error) { return "done", nil })
	// The same rule said in the schema, as a raw tool would.
	todoRaw := tool.NewRaw(tool.Definition{Name: "todo_raw", Description: "Adds or removes a to-do.", InputSchema: json.RawMessage(`{
		"type": "object",
		"properties": {"action": {"enum": ["add", "remove"]}, "text": {"type": "string"}},
		"required": ["action"],
		"additionalProperties": false,
		"if": {"properties": {"action": {"const": "add"}}},
		"then": {"required": ["text"]}}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("done"), nil })
	// A rule no shape can show: the only value the shape could offer is
	// the one sent.
	mode := tool.NewRaw(tool.Definition{Name: "mode", Description: "Sets the mode.", InputSchema: json.RawMessage(`{
		"type": "object",
		"properties": {"mode": {"enum": ["a", "b"]}},
		"required": ["mode"],
		"additionalProperties": false,
		"not": {"properties": {"mode": {"const": "a"}}}}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("done"), nil })
	one := tool.New(tool.Definition{Name: "one", Description: "Takes a."},
		func(context.Context, struct {
			A int `json:"a"`
		}) (string, error) {
			return "done", nil
		})
	validator := evenN{tool.NewRaw(tool.Definition{Name: "checked", Description: "Checked by its tool.", InputSchema: json.RawMessage(`{
		"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("done"), nil })}
	reg := registryWith(t, nil, todo, todoRaw, mode, one, validator, lister())

	tests := []struct {
		name, tool, args string
		says             []string
		shape            string // the expected shape shown; "" for none
		saysNot          []string
	}{
		{name: "a cross-field Validate error shows no shape", tool: "todo", args: `{"action":"add"}`,
			says: []string{"text is required when action is add"}},
		{name: "a tool's ArgsValidator error shows no shape", tool: "checked", args: `{"n":3}`,
			says: []string{"n must be even"}},
		{name: "a refused cursor shows no shape", tool: "list", args: `{"dir":"src","cursor":"AQ-invented"}`,
			says: []string{"without a cursor"}},
		{name: "a key an if/then requires is in the shape", tool: "todo_raw", args: `{"action":"add"}`,
			says: []string{`missing required key "text"`}, shape: `{"action": "add", "text": "<string>"}`},
		{name: "a shape equal to what was sent is left out", tool: "mode", args: `{"mode":"a"}`},
		{name: "a missing key still gets a shape", tool: "todo", args: `{}`,
			says: []string{`missing required key "action"`}, shape: `{"action": "add"}`},
		{name: "no suggestion that shares nothing", tool: "one", args: `{"a":1,"b":2}`,
			says: []string{`unknown key "b"; allowed keys: a`}, saysNot: []string{"Did you mean"}, shape: `{"a": 0}`},
		{name: "a close key is suggested", tool: "todo", args: `{"action":"add","txt":"milk"}`,
			says: []string{`Did you mean "text"?`}, shape: `{"action": "add", "text": "<string>"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: tt.tool, Args: []byte(tt.args), Session: "s"})
			tooltest.WantStatus(t, res, tool.StatusInvalid)
			tooltest.WantTextContains(t, res, tt.says...)
			for _, s := range tt.saysNot {
				assert.NotContains(t, res.Text(), s)
			}
			var ae *tool.ArgsError
			require.ErrorAs(t, res.Err, &ae)
			assert.Equal(t, tt.shape, ae.Example)
			if tt.shape == "" {
				assert.NotContains(t, res.Text(), "Expected shape")
				return
			}
			assert.Contains(t, res.Text(), "Expected shape: "+tt.shape)
			assert.NotEqual(t, canonicalJSON(t, tt.args), canonicalJSON(t, tt.shape), "the shape repeats what was sent")
		})
	}
	t.Run("the shape of an if/then passes when sent back", func(t *testing.T) {
		res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "todo_raw", Args: []byte(`{"action": "add", "text": "<string>"}`)})
		tooltest.WantOK(t, res)
	})
}

func canonicalJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
