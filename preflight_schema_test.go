package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

type strictArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,default=10"`
	Where *struct {
		Dir   string `json:"dir"`
		Depth int    `json:"depth,omitempty"`
	} `json:"where,omitempty"`
	Any any `json:"any,omitempty"`
}

// A model given a strict-mode schema sends null for every optional key it
// does not use; with Request.NullMeansAbsent that null means absent.
func TestNullMeansAbsent(t *testing.T) {
	var got strictArgs
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "find", Description: "Finds."}, func(_ context.Context, in strictArgs) (string, error) {
		got = in
		return "ok", nil
	}))
	call := func(args string, strict bool) *tool.Result {
		got = strictArgs{}
		return r.Call(context.Background(), struct{}{}, tool.Request{Name: "find", Args: json.RawMessage(args), NullMeansAbsent: strict})
	}
	tests := []struct {
		name   string
		args   string
		strict bool
		want   tool.Status
		check  func(t *testing.T)
	}{
		{"optional null, strict", `{"query":"x","limit":null,"where":null,"any":null}`, true, tool.StatusOK, func(t *testing.T) {
			assert.Equal(t, 10, got.Limit, "absent, so the default applies")
			assert.Nil(t, got.Where)
		}},
		{"nested optional null, strict", `{"query":"x","limit":null,"where":{"dir":"a","depth":null},"any":null}`, true, tool.StatusOK, func(t *testing.T) {
			require.NotNil(t, got.Where)
			assert.Equal(t, "a", got.Where.Dir)
		}},
		{"optional null, not strict", `{"query":"x","limit":null}`, false, tool.StatusInvalid, nil},
		{"required null, strict", `{"query":null}`, true, tool.StatusInvalid, nil},
		{"nested required null, strict", `{"query":"x","where":{"dir":null}}`, true, tool.StatusInvalid, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(tt.args, tt.strict)
			require.Equal(t, tt.want, res.Status, res.Text())
			if tt.check != nil {
				tt.check(t)
			}
		})
	}
}

// Keys that fold onto a declared property are refused at any depth, even
// where the schema allows other keys (a tool decoding them with
// encoding/json would read "Path" as "path"); distinct keys of a free-form
// map pass, whatever their case.
func TestFoldedKeys(t *testing.T) {
	schema := `{"type":"object","properties":{
		"kind":{"type":"string"},
		"env":{"type":"object","additionalProperties":{"type":"string"}},
		"opts":{"type":"object","properties":{"dry_run":{"type":"boolean"}}},
		"items":{"type":"array","items":{"$ref":"#/$defs/item"}}},
		"$defs":{"item":{"type":"object","properties":{"name":{"type":"string"}}}}}`
	r := newRegistry(t, tool.NewRaw(tool.Definition{Name: "cfg", Description: "Configures.", InputSchema: []byte(schema)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil }))
	tests := []struct {
		name, args string
		pointer    string // "" when the call must pass
	}{
		{"free-form map keys of any case", `{"env":{"Path":"a","PATH":"b","path":"c"}}`, ""},
		{"undeclared key that folds onto nothing", `{"Other":1}`, ""},
		{"top level", `{"Kind":"x"}`, "/Kind"},
		{"kelvin sign", "{\"\u212aind\":\"x\"}", "/\u212aind"},
		{"nested object", `{"opts":{"DRY_RUN":true}}`, "/opts/DRY_RUN"},
		{"through a $ref in an array", `{"items":[{"name":"a"},{"Name":"b"}]}`, "/items/1/Name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(r, "cfg", tt.args)
			if tt.pointer == "" {
				require.Equal(t, tool.StatusOK, res.Status, res.Text())
				return
			}
			require.Equal(t, tool.StatusInvalid, res.Status, res.Text())
			var ae *tool.ArgsError
			require.True(t, errors.As(res.Err, &ae))
			assert.Equal(t, "case_folded_key", ae.Problems[0].Code)
			assert.Equal(t, tt.pointer, ae.Problems[0].Pointer)
		})
	}
}
