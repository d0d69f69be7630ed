package tooleino

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/toolbelt-go/tool"
)

// FuzzEinoLosses: any schema (a remote MCP server's is untrusted) is
// checked against Eino's type without a panic, and what Eino writes back
// is a schema it keeps whole.
func FuzzEinoLosses(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"a":{"type":"string","minLength":1,"x-order":1}},"required":["a"],"additionalProperties":false}`,
		`{"type":"object","properties":{"b":{"allOf":[{"unevaluatedProperties":false}]},"d":{"type":["string","null"],"default":null}}}`,
		`{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"n":{"$ref":"#/$defs/n"}}}`,
		`{"type":"object","properties":{"e":{"enum":[1,"a",null,{"x":[]}]},"c":{"const":9007199254740993}}}`,
		`{"type":"object","properties":{"t":{"prefixItems":[true,false,{}],"items":false}}}`,
		`{"type":"object","dependentRequired":{"a":["b"]},"dependentSchemas":{"a":{"required":["c"]}}}`,
		`{"type":"object","properties":{"a/b~c":{"minimum":1e400}}}`,
		`{}`, `true`, `null`, `[]`, `"x"`, `{"type":`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		ws := einoLosses("t", 0, schema)
		for _, w := range ws {
			if w.Tool != "t" || w.Severity == 0 || w.Action == 0 || w.Note == "" {
				t.Fatalf("warning %+v", w)
			}
		}
		s, err := einoSchema(schema)
		if err != nil || s == nil {
			return
		}
		back, err := json.Marshal(s)
		if err != nil {
			return
		}
		if ws := einoLosses("t", 0, back); len(ws) != 0 {
			t.Fatalf("Eino's own %s loses %v", back, ws)
		}
	})
}

// FuzzInvokableRun: whatever arguments Eino hands a tool, it answers the
// model with text, never an error that would end the run, and the tool
// runs only with arguments its schema accepts.
func FuzzInvokableRun(f *testing.F) {
	for _, s := range []string{
		`{"query":"x"}`, `{"query":""}`, `{"query":"x","limit":5000}`, `{`, ``, `null`, `"{\"query\":\"x\"}"`,
		`{"query":"x","query":"y"}`, `{"Query":"x"}`, `{"query":"\ud800"}`, "{\"query\":\"\xff\"}", `[]`, `{"query":"x"} {}`,
	} {
		f.Add(s)
	}
	type args struct {
		Query string `json:"query" jsonschema:"minLength=1"`
		Limit int    `json:"limit,omitempty" jsonschema:"maximum=500"`
	}
	var bad atomic.Bool
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "search", Description: "Searches.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in args) (string, error) {
			if in.Query == "" || in.Limit > 500 || !utf8.ValidString(in.Query) {
				bad.Store(true)
			}
			return "found", nil
		}))
	ts, err := New(reg, nil).Tools()
	if err != nil {
		f.Fatal(err)
	}
	t := ts[0].(*einoTool[struct{}])
	f.Fuzz(func(tt *testing.T, a string) {
		text, err := t.InvokableRun(context.Background(), a)
		if err != nil || text == "" {
			tt.Fatalf("%q: %q, %v", a, text, err)
		}
		if text != "found" && !strings.Contains(text, "search") {
			tt.Fatalf("%q: %q", a, text)
		}
		if bad.Load() {
			tt.Fatalf("%q: the tool ran with arguments its schema refuses", a)
		}
	})
}
