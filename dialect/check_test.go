package dialect_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool/dialect"
)

// Each rule of each target, broken once: the checker names the keyword
// at the right pointer.
func TestCheckRules(t *testing.T) {
	strictOK := `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`
	tests := []struct {
		name   string
		target dialect.Target
		schema string
		want   []string // "pointer keyword"
	}{
		{"strict: a valid schema", dialect.OpenAIStrict, strictOK, nil},
		{"strict: root not an object", dialect.OpenAIStrict, `{"type":"string"}`, []string{" type"}},
		{"strict: optional key", dialect.OpenAIStrict, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, []string{" required"}},
		{"strict: open object", dialect.OpenAIStrict, `{"type":"object","properties":{},"required":[]}`, []string{" additionalProperties"}},
		{"strict: unsupported keyword", dialect.OpenAIStrict,
			`{"type":"object","properties":{"a":{"type":"string","minLength":1,"default":"x"}},"required":["a"],"additionalProperties":false}`,
			[]string{"/properties/a minLength", "/properties/a default"}},
		{"strict: no type", dialect.OpenAIStrict, `{"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":false}`, []string{"/properties/a type"}},
		{"strict: two types", dialect.OpenAIStrict, `{"type":"object","properties":{"a":{"type":["string","integer"]}},"required":["a"],"additionalProperties":false}`, []string{"/properties/a type"}},
		{"strict: format", dialect.OpenAIStrict, `{"type":"object","properties":{"a":{"type":"string","format":"uri"}},"required":["a"],"additionalProperties":false}`, []string{"/properties/a format"}},
		{"strict: $ref with siblings", dialect.OpenAIStrict,
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"x"}},"required":["a"],"additionalProperties":false,"$defs":{"A":{"type":"string"}}}`,
			[]string{"/properties/a $ref"}},
		{"strict: dangling $ref", dialect.OpenAIStrict, `{"type":"object","properties":{"a":{"$ref":"#/$defs/B"}},"required":["a"],"additionalProperties":false}`, []string{"/properties/a $ref"}},
		{"strict: array without items", dialect.OpenAIStrict, `{"type":"object","properties":{"a":{"type":"array"}},"required":["a"],"additionalProperties":false}`, []string{"/properties/a items"}},
		{"strict: root anyOf", dialect.OpenAIStrict, `{"type":"object","properties":{},"required":[],"additionalProperties":false,"anyOf":[{"type":"object","properties":{},"required":[],"additionalProperties":false}]}`, []string{" anyOf"}},
		{"strict: root enum and const", dialect.OpenAIStrict,
			`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false,"enum":[{"a":1}],"const":{"a":1}}`,
			[]string{" enum", " const"}},
		{"strict: too deep", dialect.OpenAIStrict, nested(11), []string{strings10() + " "}},
		{"anthropic: a valid schema", dialect.Anthropic, `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`, nil},
		{"anthropic: root oneOf", dialect.Anthropic, `{"type":"object","oneOf":[{"required":["a"]}]}`, []string{" oneOf"}},
		{"openai: root must be an object", dialect.OpenAI, `{"type":"array"}`, []string{" type"}},
		{"gemini: a valid schema", dialect.Gemini,
			`{"type":"OBJECT","properties":{"a":{"type":"STRING","enum":["x"],"format":"enum"},"n":{"type":"INTEGER","format":"int64","nullable":true}},"required":["a"],"propertyOrdering":["a","n"]}`, nil},
		{"gemini: JSON Schema type names", dialect.Gemini, `{"type":"object","properties":{"a":{"type":"string"}}}`, []string{" type", " type"}},
		{"gemini: unsupported keyword", dialect.Gemini, `{"type":"OBJECT","properties":{"a":{"type":"STRING","const":"x","additionalProperties":false}}}`,
			[]string{"/properties/a const", "/properties/a additionalProperties"}},
		{"gemini: enum of numbers", dialect.Gemini, `{"type":"OBJECT","properties":{"a":{"type":"INTEGER","enum":[1]}}}`, []string{"/properties/a enum"}},
		{"gemini: format", dialect.Gemini, `{"type":"OBJECT","properties":{"a":{"type":"STRING","format":"email"}}}`, []string{"/properties/a format"}},
		{"gemini: empty nested object", dialect.Gemini, `{"type":"OBJECT","properties":{"a":{"type":"OBJECT"}}}`, []string{"/properties/a properties"}},
		{"gemini: required not declared", dialect.Gemini, `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"required":["b"]}`, []string{" required"}},
		{"gemini: bad ordering", dialect.Gemini, `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"propertyOrdering":["a","b"]}`, []string{" propertyOrdering"}},
		{"gemini: parameter name", dialect.Gemini, `{"type":"OBJECT","properties":{"a-b":{"type":"STRING"}}}`, []string{"/properties/a-b "}},
		{"gemini: array without items", dialect.Gemini, `{"type":"OBJECT","properties":{"a":{"type":"ARRAY"}}}`, []string{"/properties/a items"}},
		{"gemini json: a valid schema", dialect.GeminiJSON, `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},"$defs":{"A":{"type":"string"}}}`, nil},
		{"gemini json: unsupported keyword", dialect.GeminiJSON, `{"type":"object","properties":{"a":{"type":"string","minLength":1}}}`, []string{"/properties/a minLength"}},
		{"gemini json: enum of booleans", dialect.GeminiJSON, `{"type":"object","properties":{"a":{"enum":[true]}}}`, []string{"/properties/a enum"}},
		{"not JSON", dialect.Gemini, `{`, []string{" "}},
		{"unknown target", dialect.Target(9), `{}`, []string{" "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range dialect.Check([]byte(tt.schema), tt.target) {
				got = append(got, v.Pointer+" "+v.Keyword)
				assert.NotEmpty(t, v.Rule)
				assert.NotEmpty(t, v.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// strings10 is the pointer of the eleventh nested object of nested(11).
func strings10() string {
	s := ""
	for range 10 {
		s += "/properties/c"
	}
	return s
}
