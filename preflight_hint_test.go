package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// The validator visits properties in map order; the hint lists problems in
// the schema's order, the same every time.
func TestProblemsInSchemaOrder(t *testing.T) {
	type args struct {
		Zeta  int    `json:"zeta" jsonschema:"maximum=1"`
		Alpha string `json:"alpha" jsonschema:"minLength=3"`
		Mid   []int  `json:"mid" jsonschema:"maxItems=1"`
	}
	tl := tool.New(tool.Definition{Name: "order", Description: "Order."}, func(context.Context, args) (string, error) { return "", nil })
	var first string
	for i := range 50 {
		res := tooltest.Run(t, tl, `{"mid":[1,2],"alpha":"x","zeta":5}`, nil)
		if i == 0 {
			first = res.Text()
			z, a, m := strings.Index(first, "/zeta"), strings.Index(first, "/alpha"), strings.Index(first, "/mid")
			require.True(t, z >= 0 && z < a && a < m, "problems not in the schema's order (zeta, alpha, mid):\n%s", first)
		} else {
			require.Equal(t, first, res.Text(), "the hint changed between calls")
		}
	}
}

// Describing a problem is not free (the closest allowed value is an edit
// distance to each), so only the problems the model is shown are
// described: a call that fails thousands of times against a long enum, or
// sends thousands of unknown keys beside thousands of declared ones, costs
// about what validating it costs. Before, every failure was described:
// seconds and hundreds of megabytes for one call.
func TestManyProblemsDescribedBounded(t *testing.T) {
	long := strings.Repeat("x", 20000)
	var props, unknown []string
	for i := range 3000 {
		props = append(props, fmt.Sprintf(`"p%d":{}`, i))
		unknown = append(unknown, fmt.Sprintf(`"p%dq":1`, i))
	}
	tests := []struct {
		name, schema, args string
		total              int
	}{
		{"long enum", `{"type":"object","properties":{"a":{"type":"array","items":{"enum":["` + long + `"]}}}}`,
			`{"a":[` + strings.TrimSuffix(strings.Repeat(`"`+strings.Repeat("y", 200)+`",`, 500), ",") + `]}`, 500},
		{"unknown keys", `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false}`,
			"{" + strings.Join(unknown, ",") + "}", 3000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistry(t, tool.NewRaw(tool.Definition{Name: "t", Description: "T.", InputSchema: []byte(tt.schema)},
				func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil }))
			var res *tool.Result
			alloc := totalAlloc(func() {
				res = r.Call(context.Background(), struct{}{}, tool.Request{Name: "t", Args: json.RawMessage(tt.args)})
			})
			require.Equal(t, tool.StatusInvalid, res.Status)
			var ae *tool.ArgsError
			require.ErrorAs(t, res.Err, &ae)
			assert.Equal(t, tt.total, ae.Total, "every problem is counted")
			assert.Len(t, ae.Problems, 8, "the first ones are described")
			assert.Less(t, alloc, uint64(40<<20), "bytes allocated by the call (measured 2-4 MB; 240 MB and more when every problem was described)")
		})
	}
}

// totalAlloc returns the bytes f allocated.
func totalAlloc(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The validator lists an object's unknown keys in map order; the hint
// lists them in one order, so the same call gets the same hint every time,
// including which ones are shown when there are more than fit.
func TestUnknownKeysInOneOrder(t *testing.T) {
	var unknown []string
	for i := range 12 {
		unknown = append(unknown, fmt.Sprintf(`"k%02d":1`, 11-i))
	}
	tests := []struct {
		name, schema, args string
		first              string // the pointer of the first problem shown
	}{
		{"root", `{"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false}`,
			"{" + strings.Join(unknown, ",") + "}", "/k00"},
		{"nested", `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{}},"additionalProperties":false}}}`,
			`{"o":{` + strings.Join(unknown, ",") + "}}", "/o/k00"},
		{"property names", `{"type":"object","propertyNames":{"anyOf":[{"maxLength":2},{"pattern":"^k0"}]}}`, "{" + strings.Join(unknown, ",") + "}", ""},
		{"dependent required", `{"type":"object","dependentRequired":{"k00":["x0"],"k01":["x1"],"k02":["x2"],"k03":["x3"],"k04":["x4"],"k05":["x5"],"k06":["x6"],"k07":["x7"],"k08":["x8"],"k09":["x9"]}}`,
			"{" + strings.Join(unknown, ",") + "}", ""},
		{"pattern properties", `{"type":"object","patternProperties":{"^k":{"maximum":0},"0":{"maximum":-1},"1$":{"maximum":-2},"^.0":{"maximum":-3}}}`,
			"{" + strings.Join(unknown, ",") + "}", "/k00"},
		{"beside a missing key", `{"type":"object","properties":{"a":{},"b":{}},"required":["b","a"],"additionalProperties":false}`,
			"{" + strings.Join(unknown[:4], ",") + "}", "/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistry(t, tool.NewRaw(tool.Definition{Name: "t", Description: "T.", InputSchema: []byte(tt.schema)},
				func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil }))
			var first string
			for i := range 50 {
				res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "t", Args: json.RawMessage(tt.args)})
				require.Equal(t, tool.StatusInvalid, res.Status)
				if i == 0 {
					first = res.Text()
					var ae *tool.ArgsError
					require.ErrorAs(t, res.Err, &ae)
					require.NotEmpty(t, ae.Problems)
					if tt.first != "" {
						assert.Equal(t, tt.first, ae.Problems[0].Pointer)
					}
					continue
				}
				require.Equal(t, first, res.Text(), "the hint changed between identical calls")
			}
		})
	}
}

// A call past the validation budget is told what made it costly, truly
// whichever it was, and what to send instead; the same call gets the same
// text every time. Before, every such call was told the schema's
// alternatives (anyOf, oneOf, $ref) were to blame, also when a long
// required list or a pattern was.
func TestTooCostlySaysWhy(t *testing.T) {
	names := make([]string, 6000)
	for i := range names {
		names[i] = fmt.Sprintf(`"n%d"`, i)
	}
	refs := strings.TrimSuffix(strings.Repeat(`{"$ref":"#/$defs/p"},`, 1000), ",")
	tests := []struct {
		name, schema, args string
		want, not          []string
	}{
		{"nested alternatives", nestedAlternatives(24), nestedArgs(24),
			[]string{"alternatives that lead into nested values", "send fewer or less deeply nested values"}, nil},
		{"a long required list", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","required":[` + strings.Join(names, ",") + `]}}}}`,
			`{"a":[` + strings.TrimSuffix(strings.Repeat("{},", 9000), ",") + `]}`,
			[]string{"long lists of required keys or allowed values", "send fewer"}, nil},
		{"a pattern run many times", `{"type":"object","properties":{"s":{"allOf":[` + refs + `]}},"$defs":{"p":{"pattern":"^[a-z]{1,40}x$"}}}`,
			`{"s":"` + strings.Repeat("a", 60000) + `"}`,
			[]string{"patterns would run over too much text", "send shorter strings"}, []string{"alternatives", "required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := registryWith(t, &tool.RegistryOptions{AllowCostlySchemas: true}, tool.NewRaw(tool.Definition{Name: "t", Description: "T.", InputSchema: []byte(tt.schema)},
				func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil }))
			var first string
			for i := range 5 {
				res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "t", Args: json.RawMessage(tt.args)})
				require.Equal(t, tool.StatusInvalid, res.Status)
				var ae *tool.ArgsError
				require.ErrorAs(t, res.Err, &ae)
				require.Equal(t, "too_costly", ae.Problems[0].Code)
				if i > 0 {
					require.Equal(t, first, res.Text(), "the hint changed between identical calls")
					continue
				}
				first = res.Text()
				for _, w := range tt.want {
					assert.Contains(t, first, w)
				}
				for _, n := range tt.not {
					assert.NotContains(t, first, n)
				}
			}
		})
	}
}

// TestHintTextsGolden keeps every word of the retry hints: the whole text
// the model reads for invalid arguments of each kind, against
// testdata/hints.golden. A change of wording, or of the cost of writing
// it, must show here as a diff or not at all.
func TestHintTextsGolden(t *testing.T) {
	schemas := map[string]string{
		"nested":   `{"type":"object","properties":{"opts":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"]}},"required":["opts"]}`,
		"tags":     `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"maxItems":2}}}`,
		"closed":   `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"additionalProperties":false}`,
		"bounds":   `{"type":"object","properties":{"p":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":0.5},"q":{"type":"number","minimum":-1.25,"maximum":1e3}}}`,
		"levels":   `{"type":"object","properties":{"level":{"enum":[1,2,"high",null]}}}`,
		"langs":    `{"type":"object","properties":{"langs":{"type":"array","items":{"enum":["go","rust","python"]}}}}`,
		"ns":       `{"type":"object","properties":{"ns":{"type":"array","items":{"type":"integer","maximum":10}}}}`,
		"repeat":   `{"type":"object","properties":{"n":{"type":"number","enum":[1.5,2],"not":{"const":1.5}}},"required":["n"]}`,
		"inner":    `{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"enum":["x"]}},"required":["k"],"minProperties":3}},"required":["o"]}`,
		"if":       `{"type":"object","properties":{"action":{"enum":["add","remove"]},"text":{"type":"string"}},"required":["action"],"if":{"properties":{"action":{"const":"add"}}},"then":{"required":["text"]}}`,
		"empty":    `{"type":"object","properties":{},"additionalProperties":false}`,
		"defaults": `{"type":"object","properties":{"mode":{"type":"string","default":"fast","enum":["fast","slow"]},"n":{"type":"integer","default":3,"minimum":1}},"required":["mode"]}`,
	}
	var tools []tool.Definer
	for name, s := range schemas {
		tools = append(tools, tool.NewRaw(tool.Definition{Name: name, Description: "A tool.", InputSchema: json.RawMessage(s)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("done"), nil }))
	}
	tools = append(tools, tool.New(tool.Definition{Name: "search", Description: "Search the code base."}, benchSearch))
	reg := registryWith(t, nil, tools...)
	calls := []struct{ tool, args string }{
		{"search", string(benchInvalid)},
		{"search", `{}`},
		{"search", `{"query":""}`},
		{"search", `{"query":"x","path":"a b"}`},
		{"search", `{"query":"x","limit":"5"}`},
		{"search", `{"query":"x","limit":0.5,"offset":-1}`},
		{"search", `{"query":"x","lang":"Go"}`},
		{"search", `{"query":"x","lng":"go"}`},
		{"search", `{"Query":"x"}`},
		{"search", `{"query":"fun`},
		{"search", `{"query":"x"} {}`},
		{"search", `"{\"query\":\"x\"}"`},
		{"search", `[1]`},
		{"nested", `{"opts":{"b":1}}`},
		{"nested", `{"opts":3}`},
		{"tags", `{"tags":["a","b","c"]}`},
		{"tags", `{"tags":[1,"b"]}`},
		{"closed", `{"a":"x","c":1,"d":2,"e":3,"f":4,"g":5,"h":6,"i":7,"j":8,"k":9}`},
		{"bounds", `{"p":0.5,"q":-2}`},
		{"bounds", `{"p":0,"q":1001}`},
		{"levels", `{"level":3}`},
		{"langs", `{"langs":["golang","rustt","pyton"]}`},
		{"ns", `{"ns":[11,12,3]}`},
		{"repeat", `{"n":15e-1}`},
		{"repeat", `{"n":"1.5"}`},
		{"inner", `{"o":{"k":"x"}}`},
		{"inner", `{"o":{"k":"x","z":1}}`},
		{"if", `{"action":"add"}`},
		{"if", `{"action":"ad","txt":"milk"}`},
		{"empty", `{"a":1}`},
		{"defaults", `{"mode":"quick","n":0}`},
	}
	var b, fields strings.Builder
	for _, c := range calls {
		res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: c.tool, Args: []byte(c.args)})
		fmt.Fprintf(&b, "### %s %s\n%s\n\n", c.tool, c.args, res.Text())
		// The host's view of the same problems, field by field.
		fmt.Fprintf(&fields, "### %s %s\n", c.tool, c.args)
		var ae *tool.ArgsError
		if errors.As(res.Err, &ae) {
			for _, p := range ae.Problems {
				fmt.Fprintf(&fields, "%q %q expected=%q got=%q allowed=%q suggestion=%q\n", p.Pointer, p.Code, p.Expected, p.Got, p.Allowed, p.Suggestion)
			}
			fmt.Fprintf(&fields, "total=%d truncated=%v required=%q example=%q\n", ae.Total, ae.Truncated, ae.Required, ae.Example)
		}
		fields.WriteString("\n")
	}
	tooltest.Golden(t, "testdata/hints.golden", []byte(b.String()))
	tooltest.Golden(t, "testdata/problems.golden", []byte(fields.String()))
}

// A Problem's Allowed list is the host's to keep and change: the schema's
// own list of keys or values, which the next hint reads, is not shared.
func TestProblemListsAreTheHostsToChange(t *testing.T) {
	reg := registryWith(t, nil, tool.New(tool.Definition{Name: "search", Description: "Search the code base."}, benchSearch))
	for _, args := range []string{`{"query":"x","lng":"go"}`, `{"query":"x","lang":"golang"}`} {
		first := call(reg, "search", args)
		var ae *tool.ArgsError
		require.ErrorAs(t, first.Err, &ae)
		require.NotEmpty(t, ae.Problems[0].Allowed, args)
		for i := range ae.Problems[0].Allowed {
			ae.Problems[0].Allowed[i] = "changed"
		}
		assert.Equal(t, first.Text(), call(reg, "search", args).Text(), args)
	}
}
