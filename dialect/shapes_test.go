package dialect_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/dialect"
)

// Root shapes a provider refuses: each target either fixes the root or
// falls back, and the output passes its checker.
func TestConvertRootShapes(t *testing.T) {
	runConvert(t, []convertCase{
		{
			name: "openai: a root anyOf of required keys becomes a sentence", target: dialect.OpenAI,
			in:       `{"type":"object","properties":{"path":{"type":"string"},"url":{"type":"string"}},"anyOf":[{"required":["path"]},{"required":["url"]}]}`,
			want:     `{"type":"object","properties":{"path":{"type":"string"},"url":{"type":"string"}},"description":"Give at least one of: path, url."}`,
			warnings: []string{"anyOf moved to the description: Give at least one of: path, url."},
		},
		{
			name: "openai: a root oneOf", target: dialect.OpenAI,
			in:       `{"type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"required":["a"]},{"properties":{"a":false}}]}`,
			want:     `{"type":"object","properties":{"a":{"type":"string"}},"description":"Must match exactly one of: [{\"required\":[\"a\"]},{\"properties\":{\"a\":false}}]."}`,
			warnings: []string{`oneOf moved to the description: Must match exactly one of: [{"required":["a"]},{"properties":{"a":false}}].`},
		},
		{
			name: "openai: a root allOf that merges", target: dialect.OpenAI,
			in:       `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]}]}`,
			want:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			warnings: []string{"allOf rewritten"},
		},
		{
			name: "openai: a root allOf that does not merge", target: dialect.OpenAI,
			in:       `{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"properties":{"a":{"type":"integer"}}}]}`,
			want:     `{"type":"object","properties":{"a":{"type":"string"}},"description":"Must also match [{\"properties\":{\"a\":{\"type\":\"integer\"}}}]."}`,
			warnings: []string{`allOf moved to the description: Must also match [{"properties":{"a":{"type":"integer"}}}].`},
		},
		{
			name: "openai: enum, const and not at the root", target: dialect.OpenAI,
			in:   `{"type":"object","enum":[{"a":1}],"const":{"a":1},"not":{"required":["b"]}}`,
			want: `{"type":"object","description":"One of: {\"a\":1}. Must be exactly {\"a\":1}. Must not match the JSON Schema {\"required\":[\"b\"]}."}`,
			warnings: []string{`enum moved to the description: One of: {"a":1}.`, `const moved to the description: Must be exactly {"a":1}.`,
				`not moved to the description: Must not match the JSON Schema {"required":["b"]}.`},
		},
		{
			name: "openai strict: a root anyOf falls back to a root OpenAI accepts", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI,
			in: `{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]}]}`, fallbackWhy: "plain object at the root",
		},
		{
			name: "openai: below the root everything stays", target: dialect.OpenAI,
			in:       `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}],"not":{"const":"x"}}}}`,
			want:     `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}],"not":{"const":"x"}}}}`,
			warnings: []string{},
		},
		{
			name: "gemini: a root that takes any key is not a function without parameters", target: dialect.Gemini, wantTarget: dialect.GeminiJSON,
			in: `{"type":"object"}`, fallbackWhy: "takes keys of any name",
		},
		{
			name: "gemini: an open root with no properties", target: dialect.Gemini, wantTarget: dialect.GeminiJSON,
			in: `{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`, fallbackWhy: "takes keys of any name",
		},
		{
			name: "gemini: a closed root with no properties has no parameters", target: dialect.Gemini,
			in: `{"type":"object","properties":{},"additionalProperties":false}`, want: `{"type":"OBJECT"}`,
			warnings: []string{"additionalProperties dropped"},
		},
		{
			name: "anthropic strict: a root anyOf falls back", target: dialect.AnthropicStrict, wantTarget: dialect.Anthropic,
			in: `{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]}]}`, fallbackWhy: "top level",
		},
	})
}

// The checkers refuse what the providers refuse at the root.
func TestCheckRootShapes(t *testing.T) {
	for _, k := range []string{"anyOf", "oneOf", "allOf", "enum", "const", "not"} {
		v := `[{"required":["a"]}]`
		switch k {
		case "const", "not":
			v = `{"required":["a"]}`
		}
		schema := `{"type":"object","properties":{"a":{"type":"string"}},"` + k + `":` + v + `}`
		got := dialect.Check([]byte(schema), dialect.OpenAI)
		require.Len(t, got, 1, k)
		assert.Equal(t, k, got[0].Keyword)
	}
	assert.Empty(t, dialect.Check([]byte(`{"type":"object","properties":{"a":{"enum":["x"]}}}`), dialect.OpenAI))
}

// Names a provider refuses are renamed, everywhere it looks, and
// consistently: the same name the same way, clashing with no other.
func TestConvertRenamesKeys(t *testing.T) {
	in := `{"type":"object","properties":{
		"user name":{"type":"string"},"user_name":{"type":"string"},
		"filter[id]":{"type":"object","properties":{"$ref":{"type":"string"},"día":{"type":"string"}},"required":["$ref"]},
		"items":{"type":"array","items":{"$ref":"#/$defs/Item"}}},
		"required":["user name"],"dependentRequired":{"user name":["filter[id]"]},
		"$defs":{"Item":{"type":"object","properties":{"user name":{"type":"integer"}}}}}`
	c, err := dialect.Convert(json.RawMessage(in), dialect.Anthropic)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{
		"user_name_2":{"type":"string"},"user_name":{"type":"string"},
		"filter_id_":{"type":"object","properties":{"_ref":{"type":"string"},"d_a":{"type":"string"}},"required":["_ref"]},
		"items":{"type":"array","items":{"$ref":"#/$defs/Item"}}},
		"required":["user_name_2"],"dependentRequired":{"user_name_2":["filter_id_"]},
		"$defs":{"Item":{"type":"object","properties":{"user_name_2":{"type":"integer"}}}}}`, string(c.Schema))
	assert.Equal(t, map[string]string{"user_name_2": "user name", "filter_id_": "filter[id]", "_ref": "$ref", "d_a": "día"}, c.Renamed)
	assert.Empty(t, dialect.Check(c.Schema, dialect.Anthropic))
	assert.NotEmpty(t, dialect.Check(json.RawMessage(in), dialect.Anthropic), "the checker refuses the names")
	for _, w := range c.Warnings {
		assert.Equal(t, dialect.Renamed, w.Action)
		assert.Equal(t, dialect.Notice, w.Severity)
	}

	// Gemini's rule is for the parameters: the root's keys.
	c, err = dialect.Convert(json.RawMessage(`{"type":"object","properties":{"2fa":{"type":"string"},"a-b":{"type":"object","properties":{"c-d":{"type":"string"}}}}}`), dialect.Gemini)
	require.NoError(t, err)
	assert.Equal(t, dialect.Gemini, c.Target)
	assert.Equal(t, map[string]string{"_2fa": "2fa", "a_b": "a-b"}, c.Renamed)
	assert.Contains(t, string(c.Schema), `"c-d"`)
	assert.Contains(t, string(c.Schema), `"propertyOrdering":["_2fa","a_b"]`)
}

func TestConvertGeminiTranslation(t *testing.T) {
	runConvert(t, []convertCase{
		{
			name: "integer keywords written as integers", target: dialect.Gemini,
			in:       `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","maxLength":1e1},"minItems":2.0}},"required":["a"]}`,
			want:     `{"type":"OBJECT","properties":{"a":{"type":"ARRAY","items":{"type":"STRING","maxLength":10},"minItems":2}},"required":["a"],"propertyOrdering":["a"]}`,
			warnings: []string{},
		},
		{
			name: "prefixItems with items false holds as many items as the prefix", target: dialect.GeminiJSON,
			in:       `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":2}}}`,
			want:     `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"maxItems":2,"minItems":2}}}`,
			warnings: []string{"/properties/p items rewritten"},
		},
		{
			name: "items false with a smaller maxItems", target: dialect.GeminiJSON,
			in:       `{"type":"object","properties":{"p":{"type":"array","maxItems":1,"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}}}`,
			want:     `{"type":"object","properties":{"p":{"type":"array","maxItems":1,"prefixItems":[{"type":"string"},{"type":"integer"}]}}}`,
			warnings: []string{"/properties/p items rewritten"},
		},
		{
			name: "a reference with a description beside it", target: dialect.GeminiJSON,
			in:       `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"The a"}},"$defs":{"A":{"type":"string"}}}`,
			want:     `{"type":"object","properties":{"a":{"description":"The a","anyOf":[{"$ref":"#/$defs/A"}]}},"$defs":{"A":{"type":"string"}}}`,
			warnings: []string{"/properties/a $ref rewritten"},
		},
		{
			name: "recursion through a required nullable property", target: dialect.GeminiJSON,
			in: `{"type":"object","properties":{"head":{"$ref":"#/$defs/N"}},"required":["head"],` +
				`"$defs":{"N":{"type":"object","properties":{"v":{"type":"string"},"next":{"anyOf":[{"$ref":"#/$defs/N"},{"type":"null"}]}},"required":["v","next"]}}}`,
			want: `{"type":"object","properties":{"head":{"$ref":"#/$defs/N"}},"required":["head"],` +
				`"$defs":{"N":{"type":"object","properties":{"v":{"type":"string"},"next":{"anyOf":[{"$ref":"#/$defs/N"},{"type":"null"}]}},"required":["v"],"description":"Must also have the key \"next\"."}}}`,
			warnings: []string{`/$defs/N required moved to the description: Must also have the key "next".`},
		},
		{
			name: "recursion through an optional property stays", target: dialect.GeminiJSON,
			in: `{"type":"object","properties":{"head":{"$ref":"#/$defs/N"}},` +
				`"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}},"required":[]}}}`,
			want: `{"type":"object","properties":{"head":{"$ref":"#/$defs/N"}},` +
				`"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}},"required":[]}}}`,
			warnings: []string{},
		},
	})
	// Recursion through no property at all has no form Gemini accepts.
	_, err := dialect.Convert(json.RawMessage(`{"type":"object","properties":{"e":{"$ref":"#/$defs/E"}},`+
		`"$defs":{"E":{"anyOf":[{"type":"number"},{"type":"array","items":{"$ref":"#/$defs/E"}}]}}}`), dialect.Gemini)
	require.Error(t, err)
	assert.True(t, errors.Is(err, dialect.ErrCannotExpress), err)
	assert.Contains(t, err.Error(), "through no property")
}

func TestCheckGeminiRules(t *testing.T) {
	tests := []struct {
		name, schema string
		target       dialect.Target
		want         []string
	}{
		{"an integer keyword written 2.0", `{"type":"OBJECT","properties":{"a":{"type":"ARRAY","items":{"type":"STRING"},"minItems":2.0}}}`, dialect.Gemini, []string{"/properties/a minItems"}},
		{"a sibling of $ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"x"}},"$defs":{"A":{"type":"string"}}}`, dialect.GeminiJSON, []string{"/properties/a description"}},
		{"a $-sibling of $ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","$id":"x"}},"$defs":{"A":{"type":"string"}}}`, dialect.GeminiJSON, nil},
		{"recursion through a required property", `{"type":"object","properties":{"n":{"$ref":"#"}},"required":["n"]}`, dialect.GeminiJSON, []string{" required"}},
		{"recursion through an optional property", `{"type":"object","properties":{"n":{"$ref":"#"}}}`, dialect.GeminiJSON, nil},
		{"a parameter name", `{"type":"object","properties":{"a b":{"type":"string"}}}`, dialect.GeminiJSON, []string{"/properties/a b "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range dialect.Check([]byte(tt.schema), tt.target) {
				got = append(got, v.Pointer+" "+v.Keyword)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestConvertAnthropicStrict(t *testing.T) {
	runConvert(t, []convertCase{
		{
			name: "optional keys stay optional, objects close, keywords outside the subset move", target: dialect.AnthropicStrict,
			in: `{"type":"object","properties":{"q":{"type":"string","minLength":1,"pattern":"^a","format":"uri"},"n":{"type":"integer","minimum":1,"default":5},` +
				`"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3},"w":{"type":"object","properties":{"x":{"type":["string","null"]}}}},"required":["q"]}`,
			want: `{"type":"object","properties":{"q":{"type":"string","pattern":"^a","format":"uri","description":"At least 1 character."},` +
				`"n":{"type":"integer","description":"At least 1. Default: 5."},"tags":{"type":"array","items":{"type":"string"},"minItems":1,"description":"At most 3 items."},` +
				`"w":{"type":"object","properties":{"x":{"type":["string","null"]}},"additionalProperties":false}},"required":["q"],"additionalProperties":false}`,
			warnings: []string{
				"/properties/q minLength moved to the description: At least 1 character.",
				"/properties/n minimum moved to the description: At least 1.",
				"/properties/n default moved to the description: Default: 5.",
				"/properties/tags maxItems moved to the description: At most 3 items.",
				"/properties/w additionalProperties rewritten",
				"additionalProperties rewritten",
			},
		},
		{
			name: "minItems above 1 and patterns with \\b move", target: dialect.AnthropicStrict,
			in:   `{"type":"object","properties":{"t":{"type":"array","items":{"type":"string","pattern":"\\bx"},"minItems":2}},"required":["t"],"additionalProperties":false}`,
			want: `{"type":"object","properties":{"t":{"type":"array","items":{"type":"string","description":"Must match the regular expression ` + "`\\\\bx`" + `."},"description":"At least 2 items."}},"required":["t"],"additionalProperties":false}`,
			warnings: []string{
				"/properties/t/items pattern moved to the description: Must match the regular expression `\\bx`.",
				"/properties/t minItems moved to the description: At least 2 items.",
			},
		},
		{name: "recursion", target: dialect.AnthropicStrict, wantTarget: dialect.Anthropic, fallbackWhy: "recursive",
			in: `{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}}}}}`},
		{name: "a map", target: dialect.AnthropicStrict, wantTarget: dialect.Anthropic, fallbackWhy: "map",
			in: `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`},
		{name: "an enum of objects", target: dialect.AnthropicStrict, wantTarget: dialect.Anthropic, fallbackWhy: "any type",
			in: `{"type":"object","properties":{"e":{"enum":[{"a":1}]}}}`},
	})
}
