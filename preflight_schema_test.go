package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// Filling in defaults costs what the schema declares for each object, and
// counts against Limits.MaxSchemaChecks as validation does. Before, every
// object cost a look at every declared property (2,000 properties, none
// with a default, against 3,000 objects: 1.6 s and 1.2 GB allocated), a
// valid call could have millions of defaults filled (600 × 900: 0.5 s, 323
// MB, a 4.7 MB value for the tool; 6,000 × 9,000 would be 54 million),
// and a default that broke the value (maxProperties) had each default
// tried by validating the whole value again (900 objects: 0.5 s, 245 MB).
func TestDefaultsBounded(t *testing.T) {
	props := func(n int, def bool) string {
		p := make([]string, n)
		for i := range p {
			p[i] = fmt.Sprintf(`"p%d":{"type":"integer"}`, i)
			if def {
				p[i] = fmt.Sprintf(`"p%d":{"default":%d}`, i, i)
			}
		}
		return strings.Join(p, ",")
	}
	items := func(n int, item string) string {
		return `{"a":[` + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + `]}`
	}
	type row struct {
		P0 int `json:"p0,omitempty" jsonschema:"default=7"`
		P1 int `json:"p1,omitempty" jsonschema:"default=8"`
		P2 int `json:"p2,omitempty" jsonschema:"default=9"`
		P3 int `json:"p3,omitempty" jsonschema:"default=10"`
	}
	type rows struct {
		A []row `json:"a"`
	}
	var typed rows
	typedTool := tool.New(tool.Definition{Name: "t", Description: "T."}, func(_ context.Context, in rows) (string, error) {
		typed = in
		return "ok", nil
	})
	var got json.RawMessage
	raw := func(schema string) tool.Definer {
		return tool.NewRaw(tool.Definition{Name: "t", Description: "T.", InputSchema: []byte(schema)},
			func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
				got = args
				return tool.TextResult("ok"), nil
			})
	}
	tests := []struct {
		name  string
		tool  tool.Definer
		args  string
		want  tool.Status
		bytes uint64 // allocated by the call, at most
		check func(t *testing.T)
	}{
		{"thousands declared, none with a default", raw(`{"type":"object","properties":{"d":{"default":1},"a":{"type":"array","items":{"type":"object","properties":{` + props(2000, false) + `}}}}}`),
			items(3000, "{}"), tool.StatusOK, 32 << 20, func(t *testing.T) { assert.Contains(t, string(got), `"d":1`) }},
		{"millions of defaults to fill", raw(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{` + props(600, true) + `}}}}}`),
			items(900, "{}"), tool.StatusInvalid, 32 << 20, nil},
		{"defaults tried one by one", raw(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","maxProperties":1,"properties":{` + props(2, true) + `}}}}}`),
			items(900, "{}"), tool.StatusInvalid, 16 << 20, nil},
		{"a few tried one by one", raw(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","maxProperties":1,"properties":{` + props(2, true) + `}}}}}`),
			items(3, "{}"), tool.StatusOK, 1 << 20, func(t *testing.T) { assert.JSONEq(t, `{"a":[{"p0":0},{"p0":0},{"p0":0}]}`, string(got)) }},
		{"within the budget", raw(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{` + props(20, true) + `}}}}}`),
			items(100, `{"p3":0}`), tool.StatusOK, 8 << 20, func(t *testing.T) { assert.Equal(t, 100*20, strings.Count(string(got), `"p`)) }},
		{"typed, within the budget", typedTool, items(100, `{"p1":1}`), tool.StatusOK, 8 << 20, func(t *testing.T) {
			require.Len(t, typed.A, 100)
			assert.Equal(t, row{7, 1, 9, 10}, typed.A[99])
		}},
		// 9,000 items of 4 defaults each: 36,000 values to fill.
		{"typed, past the budget", typedTool, items(9000, "{}"), tool.StatusInvalid, 64 << 20, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := registryWith(t, &tool.RegistryOptions{AllowCostlySchemas: true}, tt.tool)
			got, typed = nil, rows{}
			var res *tool.Result
			alloc := totalAlloc(func() {
				res = r.Call(context.Background(), struct{}{}, tool.Request{Name: "t", Args: json.RawMessage(tt.args)})
			})
			require.Equal(t, tt.want, res.Status, res.Text())
			assert.Less(t, alloc, tt.bytes, "bytes allocated by the call")
			if tt.want == tool.StatusInvalid {
				var ae *tool.ArgsError
				require.ErrorAs(t, res.Err, &ae)
				assert.Equal(t, "too_costly", ae.Problems[0].Code)
				assert.Contains(t, res.Text(), "send the optional keys' values yourself")
			}
			if tt.check != nil {
				tt.check(t)
			}
		})
	}
}
