package dialect_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/dialect"
)

// The sentences a conversion adds to a description quote the schema's
// values (a default, examples, a format, an enum): they are escaped as
// text a model reads, so that a schema from another party (a remote MCP
// server's, whose descriptions toolmcp escapes) cannot hide instructions
// in its values and have them moved, raw, into a description.
func TestNotesEscaped(t *testing.T) {
	const poison = `\u202eevil\u202c \u001b[8mhidden zero\u200bwidth \udb40\udc41tags`
	tests := []struct{ name, prop string }{
		{"default", `{"type":"string","default":"` + poison + `"}`},
		{"examples", `{"type":"string","examples":["` + poison + `"]}`},
		{"format", `{"type":"string","format":"` + poison + `"}`},
		{"pattern", `{"type":"string","pattern":"` + poison + `"}`},
		{"const", `{"const":"` + poison + `"}`},
		{"enum", `{"enum":["` + poison + `", 1]}`},
		{"contentMediaType", `{"type":"string","contentMediaType":"` + poison + `"}`},
		{"not", `{"type":"string","not":{"const":"` + poison + `"}}`},
	}
	for _, target := range []dialect.Target{dialect.OpenAIStrict, dialect.OpenAI, dialect.Gemini, dialect.Anthropic, dialect.AnthropicStrict} {
		for _, tt := range tests {
			t.Run(target.String()+"/"+tt.name, func(t *testing.T) {
				c, err := dialect.Convert([]byte(`{"type":"object","properties":{"p":`+tt.prop+`}}`), target)
				if err != nil {
					t.Skip(err)
				}
				var v any
				if err := json.Unmarshal(c.Schema, &v); err != nil {
					t.Fatal(err)
				}
				for _, d := range descriptions(v) {
					for _, r := range []string{"\u202e", "\x1b", "\u200b", "\U000E0041"} {
						if strings.Contains(d, r) {
							t.Errorf("a description carries %q raw: %q", r, d)
						}
					}
				}
			})
		}
	}
}

// descriptions returns every "description" string in v.
func descriptions(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && k == "description" {
				out = append(out, s)
			}
			out = append(out, descriptions(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, descriptions(e)...)
		}
	}
	return out
}
