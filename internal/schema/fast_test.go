package schema

import (
	"encoding/json"
	"regexp"
	"strconv"
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
		c, err := Compile(json.RawMessage(s), jsonparse.Limits{})
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
	s, err := Compile(json.RawMessage(fuzzSchemas[0]), jsonparse.Limits{})
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
	anyOf, _ := Compile(json.RawMessage(fuzzSchemas[3]), jsonparse.Limits{})
	if anyOf.Root().Fast {
		t.Fatal("anyOf is not implemented by the fast path and must go to the authority")
	}
}

func TestCompileRejects(t *testing.T) {
	for _, s := range []string{`[]`, `{"type":"array"}`, `{"type":"object","$ref":"x.json"}`, `{"type":"object","properties":{"a":{"$ref":"http://h/x"}}}`, `{"type":"object","properties":{"a":{"type":"nope"}}}`, `{"type":"object"} x`} {
		if _, err := Compile(json.RawMessage(s), jsonparse.Limits{}); err == nil {
			t.Errorf("Compile(%s) succeeded", s)
		}
	}
	if _, err := Compile(json.RawMessage(`{"type":"object","$defs":{"p":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/p"}}}`), jsonparse.Limits{}); err != nil {
		t.Errorf("a local reference must compile: %v", err)
	}
}

// The fast path may only say "valid" when it is sure. Bounds that are not
// exactly a float64 round to a neighbour, and must not be mistaken for it.
func TestFastPathBoundsAreExact(t *testing.T) {
	tests := []struct {
		keyword, bound, value string
	}{
		{"minimum", "1.0000000000000001", "1"},
		{"minimum", "100.000000000000001", "100"},
		{"maximum", "0.99999999999999999", "1"},
		{"exclusiveMinimum", "1e-400", "0"},
		{"exclusiveMaximum", "-1e-400", "0"},
		{"maximum", "9007199254740993", "9007199254740994"},
		{"minimum", "9007199254740993", "9007199254740992"},
		{"exclusiveMinimum", "0.1", "0.1"},
		{"maximum", "1e-320", "2e-320"},
	}
	for _, tt := range tests {
		schema := `{"type":"object","properties":{"x":{"type":"number","` + tt.keyword + `":` + tt.bound + `}}}`
		s, err := Compile(json.RawMessage(schema), jsonparse.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		v, perr := jsonparse.Parse([]byte(`{"x":`+tt.value+`}`), fuzzLimits)
		if perr != nil {
			t.Fatal(perr)
		}
		if s.Validate(v) == nil {
			t.Fatalf("%s %s: the authority accepts %s; the test expects a value it refuses", tt.keyword, tt.bound, tt.value)
		}
		if s.Valid(v) {
			t.Errorf("%s %s: the fast path accepts %s, which the authority refuses", tt.keyword, tt.bound, tt.value)
		}
	}
}

// fastKeywordValues are keyword/value pairs the schema-varying fuzz target
// draws from; the fuzzer supplies the literal for the ones marked "".
var fastKeywordValues = []struct{ keyword, value string }{
	{"minimum", ""}, {"maximum", ""}, {"exclusiveMinimum", ""}, {"exclusiveMaximum", ""}, {"multipleOf", ""},
	{"minLength", ""}, {"maxLength", ""}, {"minItems", ""}, {"maxItems", ""}, {"minProperties", ""}, {"maxProperties", ""},
	{"enum", ""}, {"const", ""}, {"pattern", ""}, {"type", `"integer"`}, {"type", `"number"`}, {"type", `"string"`},
	{"type", `["string","null"]`}, {"type", `"array"`}, {"type", `"object"`}, {"items", `{"type":"integer","maximum":3}`},
	{"additionalProperties", `false`}, {"additionalProperties", `{"type":"string"}`}, {"required", `["y"]`},
	{"properties", `{"y":{"type":"integer","minimum":0}}`}, {"format", `"email"`},
}

// FuzzFastPathWithVaryingSchemas varies the schema as well as the data: two
// keywords on a property, with literals from the fuzzer (bounds that are
// not exact floats, lengths, enums, consts, patterns). Whatever the fast
// path calls valid, the authority must call valid too.
func FuzzFastPathWithVaryingSchemas(f *testing.F) {
	seeds := []struct {
		k1   uint8
		lit1 string
		k2   uint8
		lit2 string
		data string
	}{
		{0, "1.0000000000000001", 14, "", `{"x":1}`},
		{0, "100.000000000000001", 15, "", `{"x":100}`},
		{1, "0.99999999999999999", 15, "", `{"x":1}`},
		{2, "1e-400", 15, "", `{"x":0}`},
		{4, "0.1", 15, "", `{"x":0.3}`},
		{5, "2", 16, "", `{"x":"é"}`},
		{6, "1", 16, "", `{"x":"😀"}`},
		{11, `[1,"a",null]`, 14, "", `{"x":1.0}`},
		{12, `1e2`, 14, "", `{"x":100}`},
		{13, `"^a+$"`, 16, "", `{"x":"aaa"}`},
		{7, "1", 20, "", `{"x":[4]}`},
		{9, "1", 22, "", `{"x":{"a":1}}`},
	}
	for _, s := range seeds {
		f.Add(s.k1, s.lit1, s.k2, s.lit2, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, k1 uint8, lit1 string, k2 uint8, lit2 string, data []byte) {
		kw := func(k uint8, lit string) string {
			e := fastKeywordValues[int(k)%len(fastKeywordValues)]
			if e.value != "" {
				lit = e.value
			}
			return strconv.Quote(e.keyword) + ":" + lit
		}
		a, b := kw(k1, lit1), kw(k2, lit2)
		if fastKeywordValues[int(k1)%len(fastKeywordValues)].keyword == fastKeywordValues[int(k2)%len(fastKeywordValues)].keyword {
			b = `"title":"x"`
		}
		schema := `{"type":"object","properties":{"x":{` + a + `,` + b + `}}}`
		if !json.Valid([]byte(schema)) {
			return
		}
		s, err := Compile(json.RawMessage(schema), jsonparse.Limits{})
		if err != nil {
			return
		}
		v, perr := jsonparse.Parse(data, fuzzLimits)
		if perr != nil {
			return
		}
		if s.Valid(v) {
			if err := s.Validate(v); err != nil {
				t.Fatalf("schema %s: the fast path accepted %s, the authority says %v", schema, data, err)
			}
		}
	})
}

// The character-set matcher must agree with Go's regexp wherever it is
// used.
func FuzzCharsetPatternAgreesWithRegexp(f *testing.F) {
	for _, s := range []struct{ p, s string }{
		{`^[a-zA-Z0-9_./-]*$`, "internal/registry"}, {`^[a-z]+$`, ""}, {`^[0-9a-f]{2,4}$`, "abc"}, {`^[^/]*$`, "a/b"},
		{`^\w+$`, "héllo"}, {`^[é-ü]?$`, "ö"}, {`^\d{1,3}$`, "12345"}, {`^x$`, "x"}, {`^[\p{L}]+$`, "日本"}, {`^(?i)[a-c]+$`, "ABC"},
	} {
		f.Add(s.p, s.s)
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		c := compileCharset(p)
		if c == nil {
			return
		}
		re, err := regexp.Compile(p)
		if err != nil {
			t.Fatalf("%q: the matcher was built for a pattern regexp refuses: %v", p, err)
		}
		if got, want := c.MatchString(s), re.MatchString(s); got != want {
			t.Fatalf("%q on %q: the set matcher says %v, regexp %v", p, s, got, want)
		}
	})
}
