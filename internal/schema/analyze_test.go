package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

func TestCompileRefusesUnusableSchemas(t *testing.T) {
	tests := []struct{ name, schema, says string }{
		{"minimum above maximum", `{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":0}}}`, "lower bound 1 is not below the upper bound 0"},
		{"exclusive bounds meet", `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0,"maximum":0}}}`, "not below"},
		{"no integer between", `{"type":"object","properties":{"a":{"type":"integer","minimum":0.2,"maximum":0.8}}}`, "no integer lies"},
		{"minLength above maxLength", `{"type":"object","properties":{"a":{"type":"string","minLength":5,"maxLength":2}}}`, "minLength 5 is above maxLength 2"},
		{"minItems above maxItems", `{"type":"object","properties":{"a":{"type":"array","minItems":3,"maxItems":1}}}`, "minItems"},
		{"empty enum", `{"type":"object","properties":{"a":{"enum":[]}}}`, "enum is empty"},
		{"enum of another type", `{"type":"object","properties":{"a":{"type":"integer","enum":["x","y"]}}}`, "no value of the enum"},
		{"null default on a string", `{"type":"object","properties":{"a":{"type":"string","default":null}}}`, "the default null does not satisfy"},
		{"default outside the enum", `{"type":"object","properties":{"a":{"enum":["x","y"],"default":"z"}}}`, `the default "z"`},
		{"default above the maximum", `{"type":"object","properties":{"a":{"type":"integer","maximum":10,"default":11}}}`, "default 11"},
		{"default in $defs", `{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"integer","minimum":1,"default":0}}}`, "/$defs/n"},
		{"required but forbidden", `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"],"additionalProperties":false}`, `"b" is required`},
		{"$ref loop", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/x"}}}`, "leads back to itself"},
		{"root $ref loop", `{"type":"object","$ref":"#"}`, "leads back to itself"},
		{"allOf loop", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"allOf":[{"$ref":"#/$defs/y"}]},"y":{"anyOf":[{"$ref":"#/$defs/x"}]}}}`, "leads back to itself"},
		{"recursion without a base case", `{"type":"object","properties":{"a":{"$ref":"#"}},"required":["a"]}`, "no value satisfies"},
		{"every branch impossible", `{"type":"object","properties":{"a":{"type":"object","anyOf":[false,{"type":"integer","minimum":2,"maximum":1}]}},"required":["a"]}`, "lower bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(json.RawMessage(tt.schema), jsonparse.Limits{})
			if err == nil {
				t.Fatal("Compile accepted it")
			}
			if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %q does not say %q", err, tt.says)
			}
		})
	}
}

func TestCompileAcceptsUsableSchemas(t *testing.T) {
	tests := []struct{ name, schema string }{
		{"a forbidden property", `{"type":"object","properties":{"a":false}}`},
		{"optional recursion", `{"type":"object","properties":{"a":{"$ref":"#"},"n":{"type":"integer"}}}`},
		{"recursion with a base case", `{"type":"object","properties":{"a":{"$ref":"#/$defs/t"}},"required":["a"],"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}}}`},
		{"one impossible branch", `{"type":"object","properties":{"a":{"anyOf":[false,{"type":"string"}]}},"required":["a"]}`},
		{"equal bounds", `{"type":"object","properties":{"a":{"type":"integer","minimum":3,"maximum":3,"default":3}}}`},
		{"a $ref to an $id in the document", `{"type":"object","properties":{"a":{"$ref":"item.json"}},"$defs":{"i":{"$id":"item.json","type":"string"}}}`},
		{"an absolute $id", `{"type":"object","properties":{"a":{"$ref":"https://example.com/item"}},"$defs":{"i":{"$id":"https://example.com/item","type":"string"}}}`},
		{"an $anchor", `{"type":"object","properties":{"a":{"$ref":"#name"}},"$defs":{"i":{"$anchor":"name","type":"string"}}}`},
		{"the metaschema", `{"type":"object","properties":{"schema":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`},
		{"a default that is valid", `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"],"default":"y"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Compile(json.RawMessage(tt.schema), jsonparse.Limits{}); err != nil {
				t.Fatalf("Compile refused it: %v", err)
			}
		})
	}
}

func TestCompileStillRefusesOutsideReferences(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"$ref":"other.json"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://json-schema.org/draft/2020-12/nope"}}}`,
	} {
		_, err := Compile(json.RawMessage(s), jsonparse.Limits{})
		if !errors.Is(err, ErrExternalRef) {
			t.Errorf("Compile(%s) = %v, want ErrExternalRef", s, err)
		}
	}
}

func TestCost(t *testing.T) {
	tests := []struct {
		schema         string
		minInsts, fan  int
		wantLargeInsts bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}}`, 1, 1, false},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"[a-z]{1,1000}@x\\.com"}}}`, 1000, 1, true},
		{`{"type":"object","patternProperties":{"^x[a-z]{1,500}$":{"type":"string"}}}`, 500, 1, true},
	}
	for _, tt := range tests {
		s, err := Compile(json.RawMessage(tt.schema), jsonparse.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		c := s.Cost(64)
		if c.PatternInstructions < tt.minInsts || (c.PatternInstructions > 100) != tt.wantLargeInsts || c.FanOut != tt.fan {
			t.Errorf("%s: cost %v", tt.schema, c)
		}
	}
	// anyOf of $refs nested 20 deep: two branches per level, both to the next.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"a":{"$ref":"#/$defs/l00"}},"$defs":{`)
	for i := range 20 {
		if i > 0 {
			b.WriteString(",")
		}
		next := `{"type":"string"}`
		if i < 19 {
			next = `{"$ref":"#/$defs/l` + itoa(i+1) + `"}`
		}
		b.WriteString(`"l` + itoa(i) + `":{"anyOf":[` + next + `,` + next + `]}`)
	}
	b.WriteString(`}}`)
	s, err := Compile(json.RawMessage(b.String()), jsonparse.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Cost(64); c.FanOut < 1<<19 {
		t.Errorf("nested anyOf: fan-out %d, want about 2^20", c.FanOut)
	}
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }
