package plan

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolbelt-go/tool/internal/decode"
	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/schema"
)

type inner struct {
	Dir   string `json:"dir"`
	Depth int    `json:"depth,omitempty"`
}

type args struct {
	Query  string            `json:"query"`
	Path   string            `json:"path,omitempty"`
	Lang   string            `json:"lang,omitempty"`
	Limit  int               `json:"limit,omitempty"`
	Small  int8              `json:"small,omitempty"`
	Count  uint16            `json:"count,omitempty"`
	Ratio  float64           `json:"ratio,omitempty"`
	F32    float32           `json:"f32,omitempty"`
	Flag   bool              `json:"flag,omitempty"`
	Ptr    *int              `json:"ptr,omitempty"`
	Tags   []string          `json:"tags,omitempty"`
	Where  *inner            `json:"where,omitempty"`
	In     inner             `json:"in,omitempty"`
	Opaque map[string]string `json:"opaque,omitempty"`
}

const argsSchema = `{"type":"object","additionalProperties":false,"required":["query"],"properties":{
	"query":{"type":"string","minLength":1,"maxLength":50},
	"path":{"type":"string","pattern":"^[a-zA-Z0-9_./-]*$","default":"."},
	"lang":{"type":"string","enum":["go","rust","python"]},
	"limit":{"type":"integer","minimum":1,"maximum":500,"default":20},
	"small":{"type":"integer","minimum":-128,"maximum":127},
	"count":{"type":"integer","minimum":0,"maximum":65535},
	"ratio":{"type":"number","exclusiveMinimum":0,"maximum":1.0000000000000001},
	"f32":{"type":"number","minimum":-3.4028234663852886e38,"maximum":3.4028234663852886e38},
	"flag":{"type":"boolean","default":true},
	"ptr":{"type":"integer","minimum":0},
	"tags":{"type":"array","items":{"type":"string","maxLength":5},"maxItems":3},
	"where":{"type":"object","additionalProperties":false,"required":["dir"],"properties":{"dir":{"type":"string"},"depth":{"type":"integer","default":2}}},
	"in":{"type":"object","additionalProperties":false,"required":["dir"],"properties":{"dir":{"type":"string"},"depth":{"type":"integer"}}},
	"opaque":{"type":"object","additionalProperties":{"type":"string"}}}}`

var limits = jsonparse.Limits{MaxBytes: 1 << 20, MaxDepth: 64, MaxStringBytes: 64 << 10, MaxNumberLen: 100, MaxExponent: 400, MaxElements: 10000}

func compiled(t testing.TB) (*schema.Schema, *Plan) {
	s, err := schema.Compile(json.RawMessage(argsSchema), limits)
	if err != nil {
		t.Fatal(err)
	}
	p := Build(reflect.TypeFor[args](), s.Root(), limits)
	if p == nil {
		t.Fatal("no plan for a schema the fast path reads")
	}
	return s, p
}

// slow is preflight's slow path: parse, validate, fill defaults, decode.
func slow(s *schema.Schema, data []byte) (args, bool) {
	var out args
	v, err := jsonparse.Parse(data, limits)
	if err != nil {
		return out, false
	}
	if _, isObj := v.(map[string]any); !isObj {
		return out, false
	}
	if _, folded := s.FoldedKey(v); folded || s.Validate(v) != nil {
		return out, false
	}
	s.ApplyDefaults(v, 1<<15)
	if decode.Into(&out, v) != nil {
		return out, false
	}
	return out, true
}

func TestPlanDecodesWhatTheSlowPathDecodes(t *testing.T) {
	s, p := compiled(t)
	for _, data := range []string{
		`{"query":"x"}`,
		`{"query":"func NewRegistry","path":"internal/registry","lang":"go","limit":50,"flag":false,"tags":["a","b"],"ratio":0.5}`,
		`{"query":"h\u00e9llo\n\ud83d\ude00","ptr":3,"where":{"dir":"src"},"in":{"dir":"x","depth":4},"small":-128,"count":65535}`,
		` { "query" : "spaced" , "f32" : 1.5e3 } `,
	} {
		var got args
		if !p.Decode([]byte(data), reflect.ValueOf(&got).Elem()) {
			t.Errorf("%s: the plan was unsure of a plain valid call", data)
			continue
		}
		want, ok := slow(s, []byte(data))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n plan %+v\n slow %+v (%v)", data, got, want, ok)
		}
	}
}

func TestPlanLeavesTheRestToTheSlowPath(t *testing.T) {
	_, p := compiled(t)
	for _, data := range []string{
		`{}`, `{"query":""}`, `{"query":"x","limit":5.0}`, `{"query":"x","limit":0}`, `{"query":"x","lang":"perl"}`,
		`{"query":"x","unknown":1}`, `{"query":"x","Query":"y"}`, `{"query":"x","query":"y"}`, `{"query":"x","ptr":null}`,
		`{"query":"x","opaque":{}}`, `{"query":"x","ratio":1.0000000000000002}`, `{"query":"x","tags":["a","b","c","d"]}`,
		`{"query":"\ud800"}`, "{\"query\":\"\xff\"}", `{"query":"x"} x`, `{"query":"x"`, `[]`, `null`, `{"query":"x","small":128}`,
		`{"query":"x","where":{}}`, `{"query":"x","path":"a b"}`, `{"query":"x","f32":1e39}`,
	} {
		var got args
		if p.Decode([]byte(data), reflect.ValueOf(&got).Elem()) {
			t.Errorf("%s: the plan answered for a call the slow path must see", data)
		}
	}
}

func FuzzPlan(f *testing.F) {
	for _, s := range []string{`{"query":"x"}`, `{"query":"a","path":"b/c","lang":"go","limit":500,"small":1,"count":2,"ratio":1,"flag":true,"ptr":0,"tags":[],"where":{"dir":"d","depth":1},"in":{"dir":"e"}}`,
		`{"query":"x","ratio":1.0000000000000001}`, `{"query":"\u00e9\\"}`, `{"query":"x","limit":1e2}`, `{"query":"x","f32":3.4028234663852886e38}`} {
		f.Add([]byte(s))
	}
	s, p := compiled(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var got args
		if !p.Decode(data, reflect.ValueOf(&got).Elem()) {
			return
		}
		want, ok := slow(s, data)
		if !ok {
			t.Fatalf("%s: the plan accepted what the slow path refuses", data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the plan decoded\n%+v\nthe slow path\n%+v", data, got, want)
		}
	})
}
