package dialect_test

import (
	"encoding/json"
	"testing"

	"github.com/toolbelt-go/tool/dialect"
)

// FuzzConvert holds every conversion to its contract on any input: no
// panic; an error only for input that is not an object schema; otherwise
// valid JSON that passes the rule checker of the target it reports, which
// is the target asked for or, after a Fallback warning, its fallback.
func FuzzConvert(f *testing.F) {
	for _, tt := range fuzzSeeds() {
		for tg := range uint8(6) {
			f.Add(tt, tg)
		}
	}
	f.Fuzz(func(t *testing.T, schema string, tg uint8) {
		target := dialect.Target(tg%6 + 1)
		c, err := dialect.Convert(json.RawMessage(schema), target)
		if err != nil {
			return
		}
		if !json.Valid(c.Schema) {
			t.Fatalf("%v: output is not JSON: %s", target, c.Schema)
		}
		if v := dialect.Check(c.Schema, c.Target); len(v) > 0 {
			t.Fatalf("%v (as %v): %v\nin:  %s\nout: %s", target, c.Target, v, schema, c.Schema)
		}
		if c.Target != target {
			if len(c.Warnings) == 0 || c.Warnings[0].Action != dialect.Fallback {
				t.Fatalf("%v fell back to %v without a Fallback warning: %v", target, c.Target, c.Warnings)
			}
		}
		for _, w := range c.Warnings {
			if w.Action == dialect.Moved && w.Note == "" {
				t.Fatalf("a keyword moved to the description with no text: %v", w)
			}
		}
	})
}

// fuzzSeeds are schemas that reach every branch of the conversions.
func fuzzSeeds() []string {
	seeds := []string{
		`{"type":"object"}`,
		`{"type":"object","properties":{},"additionalProperties":false}`,
		`{"type":"object","properties":{"a":true,"b":false,"c":{}}}`,
		`{"type":"object","properties":{"a":{"type":["string","integer","null"],"minLength":1,"minimum":0}}}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]},"b":{"oneOf":[{"const":1},{"const":"x"}]}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10,"multipleOf":2}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}],"additionalItems":false}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":false}}}`,
		`{"type":"object","properties":{"a":{"not":{"type":"null"},"if":{"type":"string"},"then":{"minLength":2},"else":{"minimum":1}}}}`,
		`{"type":"object","properties":{"a":{"type":"object","patternProperties":{"^x":{"type":"string"}},"propertyNames":{"pattern":"^x"}}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/definitions/A"}},"definitions":{"A":{"type":"object","properties":{"b":{"$ref":"#/definitions/A"}}}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"type":"string","$anchor":"b"},"c":{"$ref":"#b"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"other.json"}}}`,
		`{"type":"object","$defs":{"A":{"$defs":{"B":{"type":"string"}}}},"properties":{"a":{"$ref":"#/$defs/A/$defs/B"}}}`,
		`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"a":{"type":"integer"}}}]}`,
		`{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"oneOf":[{"type":"object"}],"properties":{"a":{},"b":{}}}`,
		`{"type":"object","properties":{"e":{"enum":[1,"a",null,true,{"x":1}]},"f":{"enum":[]},"g":{"const":{"a":1}}}}`,
		`{"type":"object","properties":{"d":{"type":"string","default":"x","examples":["y","z"],"format":"uuid","pattern":"^[a-f]+$"}}}`,
		`{"type":"object","properties":{"1bad":{"type":"string"},"ok":{"type":"object","properties":{"x-y":{"type":"string"}}}}}`,
		`{"type":"object","required":["missing"],"properties":{"a":{"type":"string"}},"dependentRequired":{"a":["b"]},"minProperties":1}`,
		`{"type":"object","properties":{"a":{"type":"null"},"b":{"type":"object","properties":{"c":{"type":"object","properties":{"d":{"type":"object"}}}}}}}`,
		`{"type":"object","properties":{"a":{"type":5},"b":{"type":[]},"c":{"type":["bogus"]}}}`,
		`{"type":"object","properties":{"a":{"description":7,"title":[],"pattern":1,"format":2,"minimum":"x","minItems":-1}}}`,
		`{"type":"object","nullable":true,"properties":{"a":{"type":"string","nullable":true}}}`,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":true}}}`,
		`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"enum":[{"a":1}],"const":{"a":1}}`,
		`{"type":"object","properties":{"s":{"allOf":[{"type":"string"},{"minLength":1}]},"u":{"type":"string","if":{"minLength":3},"then":{"pattern":"^x"}}}}`,
	}
	return append(seeds, nested(11), wide(40))
}
