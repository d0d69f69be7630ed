package jsonparse

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

var testLimits = Limits{MaxBytes: 1 << 20, MaxDepth: 64, MaxStringBytes: 64 << 10, MaxNumberLen: 100, MaxExponent: 400, MaxElements: 10000}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`{}`, map[string]any{}},
		{` {"a" : 1 , "b":[true,false,null], "c":"x"} `, map[string]any{"a": json.Number("1"), "b": []any{true, false, nil}, "c": "x"}},
		{`{"s":"\u00e9\ud83d\ude00\n\"\\\/"}`, map[string]any{"s": "é😀\n\"\\/"}},
		{`[1.5e3,-0,0.25,1E-2]`, []any{json.Number("1.5e3"), json.Number("-0"), json.Number("0.25"), json.Number("1E-2")}},
		{`"héllo"`, "héllo"},
		{`{"K":1,"k2":2}`, map[string]any{"K": json.Number("1"), "k2": json.Number("2")}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse([]byte(tt.in), testLimits)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	many := "[" + strings.Repeat("1,", 10000) + "1]"
	tests := []struct {
		name    string
		in      string
		kind    ErrorKind
		pointer string
	}{
		{"empty", "  \n", Empty, ""},
		{"bare brace", "{", Truncated, ""},
		{"cut in string", `{"file_path":"/src/ma`, Truncated, "/file_path"},
		{"cut after key", `{"a"`, Truncated, "/a"},
		{"cut after colon", `{"a":`, Truncated, "/a"},
		{"cut in literal", `{"a":tr`, Truncated, "/a"},
		{"cut in number", `{"a":-`, Truncated, "/a"},
		{"cut in escape", `{"a":"\u00`, Truncated, "/a"},
		{"cut in utf8", "{\"a\":\"\xc3", Truncated, "/a"},
		{"cut in array", `{"a":[1,2`, Truncated, "/a"},
		{"two documents", `{}{}`, TrailingData, ""},
		{"garbage after", `{} x`, TrailingData, ""},
		{"duplicate", `{"a":1,"a":2}`, DuplicateKey, ""},
		{"nested duplicate", `{"o":{"a":1,"a":2}}`, DuplicateKey, "/o"},
		{"number past float64", `{"a":1e309}`, NumberOutOfRange, "/a"},
		{"negative number past float64", `{"a":[-18e307]}`, NumberOutOfRange, "/a/0"},
		{"invalid utf8", "{\"a\":\"\xff\"}", InvalidUTF8, "/a"},
		{"lone high surrogate", `{"a":"\ud800"}`, LoneSurrogate, "/a"},
		{"lone low surrogate", `{"a":"\udc00x"}`, LoneSurrogate, "/a"},
		{"high then non-low", `{"a":"\ud800\u0041"}`, LoneSurrogate, "/a"},
		{"too deep", deep, TooDeep, "/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0"},
		{"too many", many, TooManyElements, ""},
		{"cut deep past eight keys", `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i/j":{"k~":[1,{"x":tr`, Truncated, "/a/b/c/d/e/f/g/h/i~1j/k~0/1/x"},
		{"duplicate deep past eight keys", `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"x":1,"x":2}}}}}}}}}}}`, DuplicateKey, "/a/b/c/d/e/f/g/h/i/j"},
		{"long string", `{"a":"` + strings.Repeat("x", 64<<10+1) + `"}`, StringTooLong, "/a"},
		{"long escaped string", `{"a":"` + strings.Repeat(`\n`, 64<<10+1) + `"}`, StringTooLong, "/a"},
		{"long number", `{"a":` + strings.Repeat("9", 101) + `}`, NumberTooLong, "/a"},
		{"huge exponent", `{"a":1e401}`, ExponentTooLarge, "/a"},
		{"tiny exponent", `{"a":1e-99999999999999999999}`, ExponentTooLarge, "/a"},
		{"leading zero", `{"a":01}`, Syntax, "/a"},
		{"single quotes", `{'a':1}`, Syntax, ""},
		{"raw newline in string", "{\"a\":\"x\ny\"}", Syntax, "/a"},
		{"bad escape", `{"a":"\x"}`, Syntax, "/a"},
		{"trailing comma", `{"a":1,}`, Syntax, ""},
		{"NaN", `{"a":NaN}`, Syntax, "/a"},
		{"too large", `"` + strings.Repeat("x", 1<<20) + `"`, TooLarge, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), testLimits)
			if err == nil {
				t.Fatalf("Parse accepted %.60q", tt.in)
			}
			if err.Kind != tt.kind {
				t.Fatalf("kind = %d (%v), want %d", err.Kind, err, tt.kind)
			}
			if err.Pointer != tt.pointer {
				t.Fatalf("pointer = %q, want %q (%v)", err.Pointer, tt.pointer, err)
			}
			if err.Error() == "" {
				t.Fatal("empty message")
			}
		})
	}
}

// Keys that differ only by case are the schema's business (they are
// refused where they fold onto a declared property); the parser keeps them.
func TestParseKeepsKeysThatDifferByCase(t *testing.T) {
	v, err := Parse([]byte("{\"path\":1,\"PATH\":2,\"\u212a\":3,\"k\":4}"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if m := v.(map[string]any); len(m) != 4 {
		t.Fatalf("got %v", m)
	}
}

func TestFoldKeyAgreesWithEqualFold(t *testing.T) {
	pairs := [][2]string{{"a", "A"}, {"k", "\u212a"}, {"ſ", "S"}, {"Straße", "STRASSE"}, {"é", "É"}, {"x", "y"}}
	for _, p := range pairs {
		if got, want := FoldKey(p[0]) == FoldKey(p[1]), strings.EqualFold(p[0], p[1]); got != want {
			t.Errorf("FoldKey(%q)==foldKey(%q) is %v, EqualFold says %v", p[0], p[1], got, want)
		}
	}
}

// FuzzParse checks Parse against encoding/json: whatever Parse accepts,
// encoding/json accepts too and reads as the same value; Parse never panics,
// and rejects only with a classified error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":null}],"c":"\u00e9"}`, `{"a":1,"A":2}`, `[1e5,-0.5]`, `"x"`, `{"a":"\ud83d\ude00"}`, "{\"a\":\"\xff\"}", `{"a":1}{}`, `{`, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, perr := Parse(data, testLimits)
		if perr != nil {
			if perr.Kind == 0 || perr.Error() == "" {
				t.Fatalf("unclassified error %#v", perr)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("Parse accepted %q, encoding/json says %v", data, err)
		}
		if !utf8.Valid(data) {
			t.Fatalf("Parse accepted invalid UTF-8 %q", data)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("Parse(%q) = %#v, encoding/json = %#v", data, v, want)
		}
	})
}

func TestPointerTokens(t *testing.T) {
	for _, tt := range []struct{ token, escaped string }{
		{"plain", "plain"}, {"a/b", "a~1b"}, {"a~b", "a~0b"}, {"~1", "~01"}, {"/~", "~1~0"}, {"", ""},
	} {
		if got := EscapePointerToken(tt.token); got != tt.escaped {
			t.Errorf("EscapePointerToken(%q) = %q, want %q", tt.token, got, tt.escaped)
		}
		if got := UnescapePointerToken(tt.escaped); got != tt.token {
			t.Errorf("UnescapePointerToken(%q) = %q, want %q", tt.escaped, got, tt.token)
		}
	}
}

// ParseKeys reads what Parse reads; a key among keys is that string.
func TestParseKeysSharesKeys(t *testing.T) {
	doc := []byte(`{"query":"x","nested":{"query":1,"other":[{"query":null}]},"un\u0071uoted":2}`)
	keys := map[string]string{"query": "query", "nested": "nested"}
	want, err := Parse(doc, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseKeys(doc, testLimits, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseKeys = %#v, want %#v", got, want)
	}
	for k := range got.(map[string]any) {
		if shared, ok := keys[k]; ok && unsafe.StringData(k) != unsafe.StringData(shared) {
			t.Errorf("key %q is a copy, not the string of keys", k)
		}
	}
	known := []byte(`{"query":true,"nested":false}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseKeys(known, testLimits, keys) }); n > 2 {
		t.Errorf("ParseKeys of an object of known keys made %v allocations, want at most 2 (the map)", n)
	}
}
