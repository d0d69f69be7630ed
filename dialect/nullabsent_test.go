package dialect_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	"github.com/toolbelt-go/tool/tooltest"
)

// strictSchemas are input schemas whose optional keys sit where a strict
// model sends null for them: top level, nested objects, arrays of objects,
// definitions, anyOf branches.
var strictSchemas = map[string]string{
	"flat": `{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer","minimum":1,"default":10},` +
		`"lang":{"type":"string","enum":["go","md"]},"on":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}}},` +
		`"required":["q"],"additionalProperties":false}`,
	"nested": `{"type":"object","properties":{"where":{"type":"object","properties":{"dir":{"type":"string"},"depth":{"type":"integer"},` +
		`"opts":{"type":"object","properties":{"hidden":{"type":"boolean"}},"additionalProperties":false}},"required":["dir"],"additionalProperties":false},` +
		`"edits":{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"note":{"type":"string"}},"required":["path"],"additionalProperties":false}}},` +
		`"additionalProperties":false}`,
	"defs": `{"type":"object","properties":{"a":{"$ref":"#/$defs/P"},"b":{"$ref":"#/$defs/P"}},"required":["a"],"additionalProperties":false,` +
		`"$defs":{"P":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"}},"required":["x"],"additionalProperties":false}}}`,
	"anyOf": `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]},` +
		`"shape":{"anyOf":[{"type":"object","properties":{"r":{"type":"number"},"label":{"type":"string"}},"required":["r"],"additionalProperties":false},` +
		`{"type":"object","properties":{"w":{"type":"number"},"h":{"type":"number"}},"required":["w"],"additionalProperties":false}]}},` +
		`"required":["shape"],"additionalProperties":false}`,
	// r is required in one branch and optional in the other: the strict
	// schema offers null for it in the second, where null means absent.
	"union": `{"type":"object","properties":{"shape":{"anyOf":[` +
		`{"type":"object","properties":{"r":{"type":"number"}},"required":["r"],"additionalProperties":false},` +
		`{"type":"object","properties":{"r":{"type":"number"},"w":{"type":"number"}},"required":["w"],"additionalProperties":false}]}},` +
		`"required":["shape"],"additionalProperties":false}`,
	// Where a branch takes null as a value, a null stays a null.
	"nullable branch": `{"type":"object","properties":{"shape":{"anyOf":[` +
		`{"type":"object","properties":{"r":{"type":["number","null"]},"k":{"const":"a"}},"required":["r","k"],"additionalProperties":false},` +
		`{"type":"object","properties":{"r":{"type":"number"},"w":{"type":"number"}},"required":["w"],"additionalProperties":false}]}},` +
		`"required":["shape"],"additionalProperties":false}`,
	// Keys whose type comes with an allOf, an if/then or a reference to
	// one, with a branch of no type of its own: null is valid in that
	// branch alone, not in the key's schema.
	"allOf": `{"type":"object","properties":{"s":{"allOf":[{"type":"string"},{"minLength":1}]},` +
		`"t":{"type":"string","allOf":[{"maxLength":9}]},"u":{"type":"string","if":{"minLength":3},"then":{"pattern":"^x"}},` +
		`"r":{"$ref":"#/$defs/R"},"b":{"allOf":[{"type":"boolean"},{"title":"b"}],"default":true},` +
		`"n":{"allOf":[{"type":["string","null"]},{"minLength":1}]}},` +
		`"additionalProperties":false,"$defs":{"R":{"allOf":[{"type":"integer"},{"minimum":1}]}}}`,
}

// A model given a strict schema sends every key, null for those it does
// not use. With Request.NullMeansAbsent the registry must hand the tool
// exactly what it hands it when those keys are left out. (The argument
// generator does not follow references or anyOf: TestStrictNullCases covers
// those by hand.)
func TestStrictNullsMeanAbsentThroughTheRegistry(t *testing.T) {
	for _, name := range []string{"flat", "nested"} {
		schema := strictSchemas[name]
		t.Run(name, func(t *testing.T) {
			c, err := dialect.Convert(json.RawMessage(schema), dialect.OpenAIStrict)
			require.NoError(t, err)
			require.Equal(t, dialect.OpenAIStrict, c.Target, "%v", c.Warnings)
			strict, err := parseJSON(c.Schema)
			require.NoError(t, err)
			reg, got := recordingRegistry(t, schema)
			compared := 0
			for seed := range uint64(40) {
				args, err := tooltest.GenerateArgs(json.RawMessage(schema), seed)
				require.NoError(t, err)
				plain := call(reg, got, args, false)
				if plain.res.Status != tool.StatusOK {
					continue // the generator missed; the comparison needs a valid call
				}
				var v any
				require.NoError(t, json.Unmarshal([]byte(args), &v))
				fillNulls(strict, strict, v)
				sent, err := json.Marshal(v)
				require.NoError(t, err)
				withNulls := call(reg, got, string(sent), true)
				require.Equal(t, tool.StatusOK, withNulls.res.Status, "strict args %s:\n%s", sent, withNulls.res.Text())
				assert.JSONEq(t, plain.args, withNulls.args, "the tool must receive the same arguments for %s", sent)
				compared++
			}
			assert.Greater(t, compared, 10, "too few generated arguments were valid to compare")
		})
	}
}

// The cases the issue names, one by one, and nulls reached through
// references and anyOf branches.
func TestStrictNullCases(t *testing.T) {
	tests := []struct {
		schema, name, args string
		want               tool.Status
		received           string
	}{
		{"nested", "optional nested object null", `{"where":null,"edits":null}`, tool.StatusOK, `{}`},
		{"nested", "optional int in a nested object null", `{"where":{"dir":"a","depth":null,"opts":null},"edits":null}`, tool.StatusOK, `{"where":{"dir":"a"}}`},
		{"nested", "optional key in array items null", `{"where":null,"edits":[{"path":"p","note":null}]}`, tool.StatusOK, `{"edits":[{"path":"p"}]}`},
		{"nested", "required key null is still refused", `{"where":{"dir":null,"depth":null,"opts":null},"edits":null}`, tool.StatusInvalid, ""},
		{"nested", "a wrong type is still refused", `{"where":{"dir":"a","depth":"3","opts":null},"edits":null}`, tool.StatusInvalid, ""},
		{"flat", "optional int null takes its default", `{"q":"x","n":null,"lang":null,"on":null,"tags":null}`, tool.StatusOK, `{"q":"x","n":10}`},
		{"defs", "optional reference null", `{"a":{"x":"1","y":null},"b":null}`, tool.StatusOK, `{"a":{"x":"1"}}`},
		{"defs", "required key in a definition null", `{"a":{"x":null,"y":null},"b":null}`, tool.StatusInvalid, ""},
		{"anyOf", "optional anyOf null", `{"v":null,"shape":{"r":1,"label":null}}`, tool.StatusOK, `{"shape":{"r":1}}`},
		{"anyOf", "optional key in the other branch null", `{"v":2,"shape":{"w":1,"h":null}}`, tool.StatusOK, `{"v":2,"shape":{"w":1}}`},
		{"union", "a key one branch requires, null for the branch where it is optional", `{"shape":{"r":null,"w":2}}`, tool.StatusOK, `{"shape":{"w":2}}`},
		{"union", "the branch that requires it", `{"shape":{"r":1}}`, tool.StatusOK, `{"shape":{"r":1}}`},
		{"union", "null where no branch fits without it", `{"shape":{"r":null}}`, tool.StatusInvalid, ""},
		{"nullable branch", "null is a value where a branch takes it", `{"shape":{"r":null,"k":"a"}}`, tool.StatusOK, `{"shape":{"r":null,"k":"a"}}`},
		{"allOf", "optional keys typed through allOf, if/then and a reference null", `{"s":null,"t":null,"u":null,"r":null,"b":null,"n":null}`,
			tool.StatusOK, `{"b":true,"n":null}`},
		{"allOf", "the same keys given", `{"s":"a","t":"b","u":"xyz","r":2,"b":false,"n":"c"}`, tool.StatusOK, `{"s":"a","t":"b","u":"xyz","r":2,"b":false,"n":"c"}`},
	}
	for _, tt := range tests {
		t.Run(tt.schema+"/"+tt.name, func(t *testing.T) {
			c, err := dialect.Convert(json.RawMessage(strictSchemas[tt.schema]), dialect.OpenAIStrict)
			require.NoError(t, err)
			require.Equal(t, dialect.OpenAIStrict, c.Target, "%v", c.Warnings)
			reg, got := recordingRegistry(t, strictSchemas[tt.schema])
			r := call(reg, got, tt.args, true)
			require.Equal(t, tt.want, r.res.Status, r.res.Text())
			if tt.received != "" {
				assert.JSONEq(t, tt.received, r.args)
			}
			if tt.want == tool.StatusInvalid {
				assert.Contains(t, r.res.Text(), "Invalid arguments")
			}
		})
	}
	// Without NullMeansAbsent a null is a null: refused where the schema
	// does not allow it.
	reg, got := recordingRegistry(t, strictSchemas["nested"])
	r := call(reg, got, `{"where":null}`, false)
	assert.Equal(t, tool.StatusInvalid, r.res.Status)
}

type called struct {
	res  *tool.Result
	args string
}

func recordingRegistry(t *testing.T, schema string) (*tool.Registry[struct{}], *string) {
	t.Helper()
	var got string
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(tool.NewRaw(tool.Definition{Name: "t", Description: "Records its arguments.", InputSchema: json.RawMessage(schema)},
		func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			got = string(args)
			return tool.TextResult("ok"), nil
		})))
	return reg, &got
}

func call(reg *tool.Registry[struct{}], got *string, args string, nullMeansAbsent bool) called {
	*got = ""
	res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "t", Args: json.RawMessage(args), NullMeansAbsent: nullMeansAbsent})
	return called{res: res, args: *got}
}

func parseJSON(b []byte) (map[string]any, error) {
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// fillNulls does what a strict model does with v: every property the strict
// schema s lists and v lacks is sent as null.
func fillNulls(root, s map[string]any, v any) {
	s = follow(root, s)
	switch x := v.(type) {
	case map[string]any:
		if branches, ok := s["anyOf"].([]any); ok {
			for _, b := range branches {
				bm, _ := b.(map[string]any)
				bm = follow(root, bm)
				if props, ok := bm["properties"].(map[string]any); ok && keysWithin(x, props) {
					s = bm
					break
				}
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			pm, _ := p.(map[string]any)
			if e, ok := x[k]; ok {
				fillNulls(root, pm, e)
			} else {
				x[k] = nil
			}
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for _, e := range x {
			fillNulls(root, items, e)
		}
	}
}

// follow resolves a $ref to a definition, and the non-null branch of a
// nullable anyOf.
func follow(root, s map[string]any) map[string]any {
	for range 8 {
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			defs, _ := root["$defs"].(map[string]any)
			s, _ = defs[name].(map[string]any)
			continue
		}
		if branches, ok := s["anyOf"].([]any); ok && len(branches) == 2 {
			if last, _ := branches[1].(map[string]any); last["type"] == "null" {
				s, _ = branches[0].(map[string]any)
				continue
			}
		}
		return s
	}
	return s
}

func keysWithin(v, props map[string]any) bool {
	for k := range v {
		if _, ok := props[k]; !ok {
			return false
		}
	}
	return true
}
