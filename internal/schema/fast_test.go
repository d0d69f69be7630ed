package schema

import (
	"encoding/json"
	"testing"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

var fuzzSchemas = []string{
	`{"type":"object","additionalProperties":false,"required":["query"],"properties":{
		"query":{"type":"string","minLength":1,"maxLength":20},
		"path":{"type":"string","pattern":"^[a-z/]*$"},
		"lang":{"type":"string","enum":["go","rust"]},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5},
		"flag":{"type":"boolean"},
		"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3},
		"opt":{"type":["string","null"]},
		"n":{"enum":[1,"one",null,true]},
		"c":{"const":3},
		"m":{"type":"object","additionalProperties":{"type":"integer"},"maxProperties":2}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","minimum":-9007199254740993}},"minProperties":1}`,
	`{"type":"object","properties":{"when":{"type":"string","format":"date-time"},"x":false,"y":true}}`,
	`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
}

var fuzzLimits = jsonparse.Limits{MaxBytes: 1 << 16, MaxDepth: 32, MaxStringBytes: 4096, MaxNumberLen: 100, MaxExponent: 400, MaxElements: 1000}

// FuzzFastPathNeverAcceptsWhatTheAuthorityRejects is the condition under
// which the fast path may exist: whatever it calls valid, the authority
// calls valid too.
func FuzzFastPathNeverAcceptsWhatTheAuthorityRejects(f *testing.F) {
	for _, s := range []string{
		`{"query":"x"}`, `{"query":"x","limit":5}`, `{"query":"x","limit":5.0}`, `{"query":"x","limit":0}`,
		`{"query":"x","ratio":1.5}`, `{"query":"x","ratio":1.4999999999999999999}`, `{"query":"x","tags":["a"]}`,
		`{"query":"x","opt":null}`, `{"query":"x","n":1.0}`, `{"query":"x","c":3.0}`, `{"query":"x","m":{"a":1}}`,
		`{"a":-9007199254740992}`, `{"a":-9007199254740993}`, `{"when":"not a date","y":1}`, `{"x":1}`, `{"a":"s"}`,
		`{"query":"ab\u00e9","lang":"go","path":"/a/b"}`,
	} {
		for i := range fuzzSchemas {
			f.Add(uint8(i), []byte(s))
		}
	}
	compiled := make([]*Schema, len(fuzzSchemas))
	for i, s := range fuzzSchemas {
		c, err := Compile(json.RawMessage(s))
		if err != nil {
			f.Fatalf("schema %d: %v", i, err)
		}
		compiled[i] = c
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := compiled[int(which)%len(compiled)]
		v, err := jsonparse.Parse(data, fuzzLimits)
		if err != nil {
			return
		}
		if s.Valid(v) {
			if err := s.Validate(v); err != nil {
				t.Fatalf("fast path accepted %s, authority says %v", data, err)
			}
		}
	})
}

func TestFastPathCoversCommonSchemas(t *testing.T) {
	s, err := Compile(json.RawMessage(fuzzSchemas[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Root().Fast {
		t.Fatal("the common keywords must stay on the fast path")
	}
	v, _ := jsonparse.Parse([]byte(`{"query":"x","limit":5,"lang":"go","tags":["a"],"flag":true,"ratio":0.5,"opt":null,"n":"one","c":3,"m":{"a":1}}`), fuzzLimits)
	if !s.Valid(v) {
		t.Fatal("fast path should accept a plainly valid value")
	}
	anyOf, _ := Compile(json.RawMessage(fuzzSchemas[3]))
	if anyOf.Root().Fast {
		t.Fatal("anyOf is not implemented by the fast path and must go to the authority")
	}
}

func TestCompileRejects(t *testing.T) {
	for _, s := range []string{`[]`, `{"type":"array"}`, `{"type":"object","$ref":"x.json"}`, `{"type":"object","properties":{"a":{"$ref":"http://h/x"}}}`, `{"type":"object","properties":{"a":{"type":"nope"}}}`, `{"type":"object"} x`} {
		if _, err := Compile(json.RawMessage(s)); err == nil {
			t.Errorf("Compile(%s) succeeded", s)
		}
	}
	if _, err := Compile(json.RawMessage(`{"type":"object","$defs":{"p":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/p"}}}`)); err != nil {
		t.Errorf("a local reference must compile: %v", err)
	}
}
