package tooleino_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	einotool "github.com/cloudwego/eino/components/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	"github.com/toolbelt-go/tool/tooleino"
)

// shapes are tools of the shapes typed tools have, whose schemas Eino's
// type must carry whole.
func shapes() []tool.Definer {
	type inner struct {
		Name string   `json:"name" jsonschema:"minLength=1"`
		Tags []string `json:"tags,omitempty" jsonschema:"maxItems=5,uniqueItems=true"`
	}
	type all struct {
		Text    string            `json:"text" jsonschema:"description=Some text,maxLength=10,pattern=^a"`
		Count   int               `json:"count,omitempty" jsonschema:"minimum=0,maximum=9,default=3"`
		Ratio   float64           `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0"`
		Kind    string            `json:"kind,omitempty" jsonschema:"enum=a,enum=b"`
		Inner   inner             `json:"inner"`
		List    []inner           `json:"list,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		Maybe   *string           `json:"maybe,omitempty"`
		Flag    bool              `json:"flag,omitempty"`
		Any     any               `json:"any,omitempty"`
		Numbers []float64         `json:"numbers,omitempty" jsonschema:"minItems=1"`
	}
	return []tool.Definer{
		tool.New(tool.Definition{Name: "empty", Description: "No arguments."}, func(context.Context, struct{}) (string, error) { return "", nil }),
		tool.New(tool.Definition{Name: "all", Description: "Every shape."}, func(context.Context, all) (string, error) { return "", nil }),
	}
}

// TestInfo: the model is shown each tool under its name, with its
// description and its own schema, whole: Eino's type keeps every keyword
// the struct tags write.
func TestInfo(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(shapes()...)
	h := newHost(t, hostOptions{})
	for _, r := range []*tool.Registry[struct{}]{reg, h.reg} {
		a := tooleino.New(r, nil)
		ts, err := a.Tools()
		if err != nil {
			t.Fatal(err)
		}
		defs := r.Definitions()
		for i, x := range ts {
			info, err := x.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			d := defs[i]
			if info.Name != d.Name || info.Desc != d.Description {
				t.Errorf("%s: shown as %q, %q", d.Name, info.Name, info.Desc)
			}
			s, err := info.ToJSONSchema()
			if err != nil {
				t.Fatal(err)
			}
			shown, _ := json.Marshal(s)
			if !sameJSON(t, shown, d.InputSchema) {
				t.Errorf("%s: shown\n%s\nits schema\n%s", d.Name, shown, d.InputSchema)
			}
		}
		if ws := a.Warnings(); len(ws) != 0 {
			t.Errorf("warnings: %v", ws)
		}
	}
}

// sameJSON reports whether a and b are the same JSON value, but for the
// forms Eino writes differently that mean the same ({} as true, false and
// [] left out).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	for _, p := range []struct {
		b []byte
		v *any
	}{{a, &x}, {b, &y}} {
		d := json.NewDecoder(bytes.NewReader(p.b))
		d.UseNumber()
		if err := d.Decode(p.v); err != nil {
			t.Fatal(err)
		}
	}
	return reflect.DeepEqual(normalize(x), normalize(y))
}

func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if e == false || (reflect.ValueOf(e).Kind() == reflect.Slice && reflect.ValueOf(e).Len() == 0) {
				continue
			}
			out[k] = normalize(e)
		}
		if len(out) == 0 {
			return true
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// TestWarnings: what Eino's schema type cannot hold is a warning, Lossy
// for a keyword that constrains the call, Info for one that does not; a
// provider's dialect adds its own.
func TestWarnings(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.NewRaw(tool.Definition{Name: "raw", Description: "A hand-written schema.", InputSchema: json.RawMessage(`{
		"type": "object",
		"properties": {
			"a": {"type": "string", "x-order": 1},
			"b": {"allOf": [{"type": "object", "properties": {"c": {"type": "integer"}}, "unevaluatedProperties": false}]},
			"d": {"type": ["string", "null"], "default": null}
		},
		"additionalProperties": false
	}`)}, func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil }))
	type found struct {
		pointer, keyword string
		severity         dialect.Severity
	}
	var got []found
	for _, w := range tooleino.New(reg, nil).Warnings() {
		if w.Tool != "raw" || w.Action != dialect.Dropped {
			t.Errorf("warning %v", w)
		}
		got = append(got, found{w.Pointer, w.Keyword, w.Severity})
	}
	want := []found{
		{"/properties/a", "x-order", dialect.Info},
		{"/properties/b/allOf/0", "unevaluatedProperties", dialect.Lossy},
		{"/properties/d", "default", dialect.Info},
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%v\nwant\n%v", got, want)
	}

	// Eino's decoder reads keys in any case: an extension named "Type" is
	// read as "type", and a null there panics it.
	reg = tool.NewRegistry[struct{}](nil)
	raw := func(name, schema string) tool.AnyTool {
		return tool.NewRaw(tool.Definition{Name: name, Description: "d", InputSchema: json.RawMessage(schema)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil })
	}
	reg.MustAdd(raw("cased", `{"type":"object","properties":{"a":{"Type":"integer"}}}`),
		raw("panics", `{"type":"object","properties":{"a":{"Type":null}}}`))
	a := tooleino.New(reg, nil)
	if got := names(t, mustTools(t, a)); !slices.Equal(got, []string{"cased"}) {
		t.Errorf("offered %q", got)
	}
	var severities []string
	for _, w := range a.Warnings() {
		severities = append(severities, w.Tool+" "+w.Severity.String()+" "+w.Action.String()+" "+w.Keyword)
	}
	if want := []string{"cased info dropped Type", "cased notice rewritten type", "panics severe left out "}; !slices.Equal(severities, want) {
		t.Errorf("warnings %q, want %q", severities, want)
	}

	// OpenAI's strict mode moves the pattern to the description.
	h := newHost(t, hostOptions{})
	ws := tooleino.New(h.reg, &tooleino.Options[struct{}]{Target: dialect.OpenAIStrict}).Warnings()
	if !hasWarning(ws, dialect.Moved) {
		t.Errorf("OpenAI strict: %v", ws)
	}
}

func mustTools(t *testing.T, a *tooleino.Adapter[struct{}]) []einotool.BaseTool {
	t.Helper()
	ts, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	return ts
}
