package schema

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolbelt-go/tool/internal/canon"
	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// Skeleton says its example repeats what was sent exactly when writing the
// example, reading it back and comparing canonical JSON says so (the way
// the hint decided before), for
// every kind of node: objects key by key, leaves from defaults, examples,
// enums, consts and types, arrays, nodes past the depth Skeleton writes,
// numbers written another way, keys the schema does not declare.
func TestSkeletonRepeatsAsWritten(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"query":{"type":"string"},"lang":{"enum":["go","rust"]},"limit":{"type":"integer","minimum":1},"on":{"type":"boolean"}},"required":["query"]}`,
		`{"type":"object","properties":{"n":{"type":"number","enum":[1.5,2]},"m":{"const":{"a":[1,2]}},"d":{"default":null},"e":{"examples":[100]}}}`,
		`{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"enum":["x"]},"p":{"type":"object","properties":{"q":{"type":"object","properties":{"r":{"type":"object","properties":{"s":{"type":"string"}}}}}}}},"required":["k"]}},"required":["o"]}`,
		`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"empty":{"type":"array"},"any":{}}}`,
	}
	values := []string{
		`{}`, `{"query":"<string>"}`, `{"query":"x"}`, `{"query":"<string>","lang":"go"}`, `{"query":"<string>","lang":"go","limit":1}`,
		`{"query":"<string>","limit":1.0}`, `{"query":"<string>","limit":10e-1}`, `{"query":"<string>","on":false}`, `{"query":"<string>","on":true}`,
		`{"query":"<string>","extra":1}`, `{"query":null}`, `{"query":["<string>"]}`,
		`{"n":1.5}`, `{"n":15e-1}`, `{"n":"1.5"}`, `{"m":{"a":[1,2]}}`, `{"m":{"a":[1.0,2e0]}}`, `{"m":{"a":[1,2,3]}}`, `{"d":null}`, `{"d":0}`, `{"e":100}`, `{"e":1e2}`,
		`{"o":{"k":"x"}}`, `{"o":{"k":"x","z":1}}`, `{"o":{"k":"y"}}`, `{"o":1}`,
		`{"o":{"k":"x","p":{"q":{"r":{"s":"<string>"}}}}}`, `{"o":{"k":"x","p":{"q":{"r":null}}}}`, `{"o":{"k":"x","p":{"q":{"r":{"s":null}}}}}`,
		`{"tags":["<string>"]}`, `{"tags":["a"]}`, `{"tags":[]}`, `{"empty":[]}`, `{"any":null}`, `{"any":{}}`,
	}
	for _, src := range schemas {
		s, err := Compile(json.RawMessage(src), jsonparse.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for _, val := range values {
			v, perr := jsonparse.Parse([]byte(val), jsonparse.Limits{})
			if perr != nil {
				t.Fatal(perr)
			}
			ex, repeats := s.Skeleton(v, v, 1<<20)
			back, perr := jsonparse.Parse([]byte(ex), jsonparse.Limits{})
			want := perr == nil && bytes.Equal(canon.Encode(back), canon.Encode(v))
			if repeats != want {
				t.Errorf("schema %s, value %s: Skeleton says it repeats what was sent: %v, but the skeleton %s read back is %v", src, val, repeats, ex, want)
			}
		}
	}
}

// The shape may hold keys the value does not (a null where a problem says
// a key is missing): the skeleton then writes them, and is not the value.
func TestSkeletonWithMissingKeys(t *testing.T) {
	s, err := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"enum":["x"]},"b":{"enum":["y"]}}}`), jsonparse.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{"a": "x"}
	if _, repeats := s.Skeleton(v, v, 1024); !repeats {
		t.Error(`{"a":"x"} is its own skeleton`)
	}
	if _, repeats := s.Skeleton(map[string]any{"a": "x", "b": nil}, v, 1024); repeats {
		t.Error(`the skeleton of {"a":"x","b":null} names b, which {"a":"x"} lacks`)
	}
	if _, repeats := s.Skeleton(nil, nil, 1024); repeats {
		t.Error("nothing sent is repeated by nothing")
	}
}
