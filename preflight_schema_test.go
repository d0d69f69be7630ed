package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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

// A schema's numbers follow the rule the arguments' numbers follow
// (Limits.MaxNumberLength, Limits.MaxExponent, the float64 range): no call
// can need a bigger one, and checking arguments against one costs time
// and memory that grow with its digits. Before, `multipleOf: 1e-100000`
// registered, and a call of 9,999 numbers took a second and 1.4 GB
// allocated; `maximum: 1e100000`, 0.3 s and 0.5 GB; a 200,000-digit
// maximum took 89 MB to register.
func TestSchemaNumbersWithinArgumentLimits(t *testing.T) {
	items := func(kw, num string) string {
		return `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number","` + kw + `":` + num + `}}}}`
	}
	type small struct {
		N int `json:"n" jsonschema:"maximum=1e20"`
	}
	raw := func(schema string) tool.Definer {
		return tool.NewRaw(tool.Definition{Name: "t", Description: "T.", InputSchema: []byte(schema)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil })
	}
	tests := []struct {
		name   string
		tool   tool.Definer
		limits tool.Limits
		want   []string // in the registration error; none: registers
	}{
		{"tiny multipleOf", raw(items("multipleOf", "1e-100000")), tool.Limits{},
			[]string{"1e-100000", "/properties/a/items/multipleOf", "exponent beyond ±400", "Limits.MaxExponent"}},
		{"huge maximum", raw(items("maximum", "1E+100000")), tool.Limits{}, []string{"/properties/a/items/maximum", "±400"}},
		{"long digits", raw(items("maximum", "1"+strings.Repeat("0", 200000))), tool.Limits{},
			[]string{"more than 100 characters", "Limits.MaxNumberLength", "fewer digits"}},
		{"beyond float64", raw(items("minimum", "-2e308")), tool.Limits{}, []string{"float64"}},
		{"in an enum", raw(`{"type":"object","properties":{"e":{"enum":[1,2,3e999]}}}`), tool.Limits{}, []string{"/properties/e/enum/2"}},
		{"the host's own limits", raw(items("maximum", "1e20")), tool.Limits{MaxExponent: 10}, []string{"±10"}},
		{"a typed tool under the host's limits", tool.New(tool.Definition{Name: "t", Description: "T."},
			func(context.Context, small) (string, error) { return "", nil }), tool.Limits{MaxExponent: 10}, []string{"/properties/n/maximum", "±10"}},
		{"within the limits", raw(items("multipleOf", "1."+strings.Repeat("7", 90)+"e-400")), tool.Limits{}, nil},
		{"a typed tool within them", tool.New(tool.Definition{Name: "t", Description: "T."},
			func(context.Context, small) (string, error) { return "", nil }), tool.Limits{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Limits: tt.limits})
			var err error
			alloc := totalAlloc(func() { err = r.Add(tt.tool) })
			assert.Less(t, alloc, uint64(8<<20), "bytes allocated by registration (89 MB for 200,000 digits when the compiler read them)")
			if len(tt.want) == 0 {
				require.NoError(t, err)
				return
			}
			var de *tool.DefinitionError
			require.ErrorAs(t, err, &de)
			for _, w := range tt.want {
				assert.Contains(t, de.Problem, w)
			}
		})
	}

	// The worst a schema within the limits can do to a call of 9,999
	// numbers (each failing): 42 MB measured.
	r := newRegistry(t, raw(items("multipleOf", "1."+strings.Repeat("7", 90)+"e-400")))
	args := `{"a":[` + strings.TrimSuffix(strings.Repeat("1."+strings.Repeat("3", 90)+"e307,", 9999), ",") + `]}`
	var res *tool.Result
	alloc := totalAlloc(func() {
		res = r.Call(context.Background(), struct{}{}, tool.Request{Name: "t", Args: json.RawMessage(args)})
	})
	assert.Equal(t, tool.StatusInvalid, res.Status)
	assert.Less(t, alloc, uint64(200<<20), "bytes allocated by a call against the largest numbers the limits allow")
}
