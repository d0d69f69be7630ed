package dialect_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/dialect"
)

// w is a warning in short form for the tables: "pointer keyword action".
func short(ws []dialect.Warning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		s := w.Pointer + " " + w.Keyword + " " + w.Action.String()
		if w.Action == dialect.Moved {
			s += ": " + w.Note
		}
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

type convertCase struct {
	name   string
	in     string
	target dialect.Target
	// want is the converted schema; wantTarget the form it is in (zero:
	// the target asked for).
	want       string
	wantTarget dialect.Target
	warnings   []string
	// fallbackWhy is a part of the Fallback warning's note.
	fallbackWhy string
}

func runConvert(t *testing.T, tests []convertCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.target.String()+"/"+tt.name, func(t *testing.T) {
			c, err := dialect.Convert(json.RawMessage(tt.in), tt.target)
			require.NoError(t, err)
			wantTarget := tt.wantTarget
			if wantTarget == 0 {
				wantTarget = tt.target
			}
			assert.Equal(t, wantTarget, c.Target)
			if tt.want != "" {
				assert.JSONEq(t, tt.want, string(c.Schema))
			}
			if tt.fallbackWhy != "" {
				require.NotEmpty(t, c.Warnings)
				assert.Equal(t, dialect.Fallback, c.Warnings[0].Action)
				assert.Contains(t, c.Warnings[0].Note, tt.fallbackWhy)
			} else {
				assert.Equal(t, tt.warnings, short(c.Warnings))
			}
			assert.Empty(t, dialect.Check(c.Schema, c.Target), "the output must pass its target's checker")
		})
	}
}

func TestConvertOpenAIStrict(t *testing.T) {
	runConvert(t, []convertCase{
		{
			// The API refuses enum and const at the top level of every
			// function's parameters, strict or not.
			name:   "a root enum or const moves to the description",
			target: dialect.OpenAIStrict,
			in:     `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"enum":[{"a":1},{"a":2}]}`,
			want: `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false,` +
				`"description":"One of: {\"a\":1}, {\"a\":2}."}`,
			warnings: []string{"enum moved to the description: One of: {\"a\":1}, {\"a\":2}.", "additionalProperties rewritten"},
		},
		{
			name:     "a root const moves to the description",
			target:   dialect.OpenAIStrict,
			in:       `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false,"const":{"a":1}}`,
			want:     `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false,"description":"Must be exactly {\"a\":1}."}`,
			warnings: []string{"const moved to the description: Must be exactly {\"a\":1}."},
		},
		{
			name:   "optional keys become required and nullable",
			target: dialect.OpenAIStrict,
			in: `{"type":"object","properties":{"q":{"type":"string","minLength":1},"n":{"type":"integer","default":5},` +
				`"lang":{"type":"string","enum":["go","md"]},"mode":{"const":"fast"}},"required":["q"],"additionalProperties":false}`,
			want: `{"type":"object","properties":{"q":{"type":"string","description":"At least 1 character."},` +
				`"n":{"type":["integer","null"],"description":"Default: 5."},"lang":{"type":["string","null"],"enum":["go","md",null]},` +
				`"mode":{"type":["string","null"],"enum":["fast",null]}},"required":["q","n","lang","mode"],"additionalProperties":false}`,
			warnings: []string{
				"/properties/q minLength moved to the description: At least 1 character.",
				"/properties/n default moved to the description: Default: 5.",
				"/properties/mode type rewritten",
				"required rewritten",
			},
		},
		{
			name:   "nested objects and arrays of objects",
			target: dialect.OpenAIStrict,
			in: `{"type":"object","properties":{"where":{"type":"object","properties":{"dir":{"type":"string"},"depth":{"type":"integer"}},"required":["dir"]},` +
				`"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}},"uniqueItems":true,"maxItems":3}}}`,
			want: `{"type":"object","properties":{"where":{"type":["object","null"],"properties":{"dir":{"type":"string"},"depth":{"type":["integer","null"]}},"required":["dir","depth"],"additionalProperties":false},` +
				`"tags":{"type":["array","null"],"items":{"type":"object","properties":{"k":{"type":["string","null"]}},"required":["k"],"additionalProperties":false},"maxItems":3,"description":"Items must be unique."}},` +
				`"required":["where","tags"],"additionalProperties":false}`,
			warnings: []string{
				"/properties/where additionalProperties rewritten",
				"/properties/where required rewritten",
				"/properties/tags/items additionalProperties rewritten",
				"/properties/tags/items required rewritten",
				"/properties/tags uniqueItems moved to the description: Items must be unique.",
				"additionalProperties rewritten",
				"required rewritten",
			},
		},
		{
			name:   "unsupported format moves, supported format stays",
			target: dialect.OpenAIStrict,
			in:     `{"type":"object","properties":{"at":{"type":"string","format":"date-time"},"site":{"type":"string","format":"uri","description":"Where"}},"required":["at","site"],"additionalProperties":false}`,
			want:   `{"type":"object","properties":{"at":{"type":"string","format":"date-time"},"site":{"type":"string","description":"Where. Format: uri."}},"required":["at","site"],"additionalProperties":false}`,
			warnings: []string{
				"/properties/site format moved to the description: Format: uri.",
			},
		},
		{
			name:   "definitions stay, optional references are wrapped",
			target: dialect.OpenAIStrict,
			in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/P"},"b":{"$ref":"#/$defs/P"}},"required":["a"],"additionalProperties":false,` +
				`"$defs":{"P":{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0}},"required":["x"],"additionalProperties":false},"Unused":{"type":"object"}}}`,
			want: `{"type":"object","properties":{"a":{"$ref":"#/$defs/P"},"b":{"anyOf":[{"$ref":"#/$defs/P"},{"type":"null"}]}},"required":["a","b"],"additionalProperties":false,` +
				`"$defs":{"P":{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0}},"required":["x"],"additionalProperties":false}}}`,
			warnings: []string{"required rewritten"},
		},
		{
			name:   "a reference with siblings is inlined",
			target: dialect.OpenAIStrict,
			in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/S","description":"The name"}},"required":["a"],"additionalProperties":false,` +
				`"$defs":{"S":{"type":"string","maxLength":10}}}`,
			want: `{"type":"object","properties":{"a":{"type":"string","description":"The name. At most 10 characters."}},"required":["a"],"additionalProperties":false}`,
			warnings: []string{
				"/properties/a $ref rewritten",
				"/properties/a maxLength moved to the description: At most 10 characters.",
			},
		},
		{
			name:   "recursion through a definition",
			target: dialect.OpenAIStrict,
			in: `{"type":"object","properties":{"tree":{"$ref":"#/$defs/N"}},"required":["tree"],"additionalProperties":false,` +
				`"$defs":{"N":{"type":"object","properties":{"v":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}},"required":["v","kids"],"additionalProperties":false}}}`,
			want: `{"type":"object","properties":{"tree":{"$ref":"#/$defs/N"}},"required":["tree"],"additionalProperties":false,` +
				`"$defs":{"N":{"type":"object","properties":{"v":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}},"required":["v","kids"],"additionalProperties":false}}}`,
			warnings: []string{},
		},
		{
			name:     "oneOf becomes anyOf and says so",
			target:   dialect.OpenAIStrict,
			in:       `{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"required":["v"],"additionalProperties":false}`,
			want:     `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}],"description":"Exactly one of the alternatives must match."}},"required":["v"],"additionalProperties":false}`,
			warnings: []string{"/properties/v oneOf rewritten"},
		},
		{
			name:     "a union of types becomes anyOf",
			target:   dialect.OpenAIStrict,
			in:       `{"type":"object","properties":{"v":{"type":["string","integer"],"minimum":1,"pattern":"^a"}},"required":["v"],"additionalProperties":false}`,
			want:     `{"type":"object","properties":{"v":{"anyOf":[{"type":"string","pattern":"^a"},{"type":"integer","minimum":1}]}},"required":["v"],"additionalProperties":false}`,
			warnings: []string{"/properties/v type rewritten"},
		},
		{
			name:     "allOf of objects merges",
			target:   dialect.OpenAIStrict,
			in:       `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}],"additionalProperties":false}`,
			want:     `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":false}`,
			warnings: []string{"allOf rewritten"},
		},
		{
			name:     "annotations and unknown keywords are dropped",
			target:   dialect.OpenAIStrict,
			in:       `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string","x-vendor":1,"deprecated":true}},"required":["a"],"additionalProperties":false}`,
			want:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			warnings: []string{"$schema dropped", "/properties/a x-vendor dropped", "/properties/a deprecated dropped"},
		},
		{
			name:     "an empty object",
			target:   dialect.OpenAIStrict,
			in:       `{"type":"object","properties":{},"additionalProperties":false}`,
			want:     `{"type":"object","properties":{},"required":[],"additionalProperties":false}`,
			warnings: []string{},
		},
		{name: "free-form map", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "additionalProperties is a schema",
			in: `{"type":"object","properties":{"env":{"type":"object","properties":{"PATH":{"type":"string"}},"additionalProperties":{"type":"string"}}}}`},
		{name: "free-form object", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "free-form object",
			in: `{"type":"object","properties":{"meta":{"type":"object"}}}`},
		{name: "any value", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "any type",
			in: `{"type":"object","properties":{"v":{"description":"anything"}}}`},
		{name: "array of anything", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "array of values of any type",
			in: `{"type":"object","properties":{"v":{"type":"array"}}}`},
		{name: "tuple", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "tuple",
			in: `{"type":"object","properties":{"v":{"type":"array","prefixItems":[{"type":"string"}]}}}`},
		{name: "root anyOf", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "plain object at the root",
			in: `{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]}]}`},
		{name: "undeclared required key", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: `"b" is not a declared property`,
			in: `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`},
		{name: "allOf that does not merge", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "allOf cannot be merged",
			in: `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":"integer"}]}}}`},
		{name: "too deep", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "nest more than 10 levels",
			in: nested(11)},
		{name: "deep enough", target: dialect.OpenAIStrict, in: nested(10), warnings: []string{}},
		{name: "too many properties", target: dialect.OpenAIStrict, wantTarget: dialect.OpenAI, fallbackWhy: "5001 properties",
			in: wide(5001)},
		{name: "non-strict sends the schema as it is", target: dialect.OpenAI,
			in:   `{"type":"object","properties":{"a":{"type":"string","minLength":1}}}`,
			want: `{"type":"object","properties":{"a":{"type":"string","minLength":1}}}`, warnings: []string{}},
	})
}

// nested returns a schema whose objects nest n levels deep.
func nested(n int) string {
	s := `{"type":"object","properties":{},"required":[],"additionalProperties":false}`
	for i := 1; i < n; i++ {
		s = `{"type":"object","properties":{"c":` + s + `},"required":["c"],"additionalProperties":false}`
	}
	return s
}

// doubling returns a schema of n definitions, each referring to the next
// twice: inlined, it would have 2^n subschemas.
func doubling(n int) string {
	defs := make([]string, 0, n)
	for i := range n - 1 {
		defs = append(defs, fmt.Sprintf(`"D%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/D%d"},"b":{"$ref":"#/$defs/D%d"}}}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"D%d":{"type":"string"}`, n-1))
	return `{"type":"object","properties":{"d":{"$ref":"#/$defs/D0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
}

// wide returns a schema with n required string properties.
func wide(n int) string {
	var props, req []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
		req = append(req, fmt.Sprintf(`"p%d"`, i))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `],"additionalProperties":false}`
}

func TestConvertGemini(t *testing.T) {
	runConvert(t, []convertCase{
		{
			name:   "types, nullable, order",
			target: dialect.Gemini,
			in: `{"type":"object","properties":{"q":{"type":"string","minLength":1,"format":"email"},"n":{"type":["integer","null"],"exclusiveMinimum":0,"default":5},` +
				`"r":{"type":"number","exclusiveMaximum":1.5,"multipleOf":0.5},"on":{"type":"boolean"}},"required":["q"],"additionalProperties":false}`,
			want: `{"type":"OBJECT","properties":{"q":{"type":"STRING","minLength":1,"description":"Format: email."},"n":{"type":"INTEGER","nullable":true,"minimum":1,"default":5},` +
				`"r":{"type":"NUMBER","description":"Less than 1.5. A multiple of 0.5."},"on":{"type":"BOOLEAN"}},"required":["q"],"propertyOrdering":["q","n","r","on"]}`,
			warnings: []string{
				"/properties/q format moved to the description: Format: email.",
				"/properties/n type rewritten",
				"/properties/n exclusiveMinimum rewritten",
				"/properties/r exclusiveMaximum moved to the description: Less than 1.5.",
				"/properties/r multipleOf moved to the description: A multiple of 0.5.",
				"additionalProperties dropped",
			},
		},
		{
			name:   "enums: strings stay, others move, null is nullable",
			target: dialect.Gemini,
			in: `{"type":"object","properties":{"s":{"type":["string","null"],"enum":["a","b",null]},"i":{"type":"integer","enum":[1,2,3]},"c":{"type":"string","const":"x"}},` +
				`"required":["s","i","c"]}`,
			want: `{"type":"OBJECT","properties":{"s":{"type":"STRING","nullable":true,"enum":["a","b"]},"i":{"type":"INTEGER","description":"One of: 1, 2, 3."},"c":{"type":"STRING","enum":["x"]}},` +
				`"required":["s","i","c"],"propertyOrdering":["s","i","c"]}`,
			warnings: []string{
				"/properties/s type rewritten",
				"/properties/s enum rewritten",
				"/properties/i enum moved to the description: One of: 1, 2, 3.",
				"/properties/c const rewritten",
			},
		},
		{
			name:   "references are inlined, anyOf with null is nullable",
			target: dialect.Gemini,
			in: `{"type":"object","properties":{"p":{"anyOf":[{"$ref":"#/$defs/P"},{"type":"null"}]},"u":{"anyOf":[{"type":"string"},{"type":"integer"}]}},` +
				`"$defs":{"P":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}}`,
			want: `{"type":"OBJECT","properties":{"p":{"type":"OBJECT","properties":{"x":{"type":"STRING"}},"required":["x"],"propertyOrdering":["x"],"nullable":true},` +
				`"u":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}},"propertyOrdering":["p","u"]}`,
			warnings: []string{"$defs dropped", "/properties/p/anyOf/0 $ref rewritten", "/properties/p anyOf rewritten"},
		},
		{
			name:     "no parameters",
			target:   dialect.Gemini,
			in:       `{"type":"object","properties":{},"additionalProperties":false}`,
			want:     `{"type":"OBJECT"}`,
			warnings: []string{"additionalProperties dropped"},
		},
		{
			name:     "other keys allowed, said in the description",
			target:   dialect.Gemini,
			in:       `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
			want:     `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"propertyOrdering":["a"],"description":"Other keys are allowed too, each matching the JSON Schema {\"type\":\"string\"}."}`,
			warnings: []string{`additionalProperties moved to the description: Other keys are allowed too, each matching the JSON Schema {"type":"string"}.`},
		},
		{name: "free-form map", target: dialect.Gemini, wantTarget: dialect.GeminiJSON, fallbackWhy: "no declared properties",
			in: `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`},
		{name: "any value", target: dialect.Gemini, wantTarget: dialect.GeminiJSON, fallbackWhy: "any type",
			in: `{"type":"object","properties":{"v":{}}}`},
		{name: "recursive", target: dialect.Gemini, wantTarget: dialect.GeminiJSON, fallbackWhy: "recursive",
			in: `{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}}}}}`},
		{name: "references that multiply", target: dialect.Gemini, wantTarget: dialect.GeminiJSON, fallbackWhy: "too large",
			in: doubling(24)},
		{
			name:   "JSON Schema form keeps maps and moves the rest",
			target: dialect.GeminiJSON,
			in: `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string","maxLength":9}},"c":{"const":"x"},"n":{"type":"integer","exclusiveMaximum":10}},` +
				`"definitions":{"D":{"type":"string"}}}`,
			want: `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string","description":"At most 9 characters."}},"c":{"enum":["x"]},"n":{"type":"integer","maximum":9}},` +
				`"$defs":{"D":{"type":"string"}}}`,
			warnings: []string{
				"definitions rewritten",
				"/properties/env/additionalProperties maxLength moved to the description: At most 9 characters.",
				"/properties/c const rewritten",
				"/properties/n exclusiveMaximum rewritten",
			},
		},
	})
}

func TestConvertAnthropic(t *testing.T) {
	runConvert(t, []convertCase{
		{
			name:     "as it is",
			target:   dialect.Anthropic,
			in:       `{"type":"object","properties":{"a":{"type":"string","minLength":1,"default":"x"}},"required":["a"]}`,
			want:     `{"type":"object","properties":{"a":{"type":"string","minLength":1,"default":"x"}},"required":["a"]}`,
			warnings: []string{},
		},
		{
			name:     "a root anyOf of required keys becomes a sentence",
			target:   dialect.Anthropic,
			in:       `{"type":"object","properties":{"path":{"type":"string"},"url":{"type":"string"}},"anyOf":[{"required":["path"]},{"required":["url"]}]}`,
			want:     `{"type":"object","properties":{"path":{"type":"string"},"url":{"type":"string"}},"description":"Give at least one of: path, url."}`,
			warnings: []string{"anyOf moved to the description: Give at least one of: path, url."},
		},
		{
			name:     "a root allOf merges",
			target:   dialect.Anthropic,
			in:       `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}]}`,
			want:     `{"type":"object","properties":{"a":{"type":"string"}}}`,
			warnings: []string{"allOf rewritten"},
		},
	})
}

func TestConvertRefusesWhatIsNotAnObjectSchema(t *testing.T) {
	for _, in := range []string{`[]`, `{"type":"string"}`, `{"properties":{}}`, `true`} {
		_, err := dialect.Convert(json.RawMessage(in), dialect.OpenAIStrict)
		assert.ErrorIs(t, err, dialect.ErrNotObjectSchema, in)
	}
	for _, in := range []string{``, `{`, `{"type":"object","type":"object"}`} {
		_, err := dialect.Convert(json.RawMessage(in), dialect.Gemini)
		assert.ErrorContains(t, err, "not valid JSON", in)
	}
	_, err := dialect.Convert(json.RawMessage(`{"type":"object"}`), dialect.Target(99))
	assert.ErrorContains(t, err, "unknown target")
}

func TestConvertDoesNotModifyItsInput(t *testing.T) {
	in := `{"type":"object","properties":{"a":{"type":"string","minLength":1}}}`
	b := []byte(in)
	for _, tg := range []dialect.Target{dialect.OpenAI, dialect.OpenAIStrict, dialect.Anthropic, dialect.Gemini, dialect.GeminiJSON} {
		_, err := dialect.Convert(b, tg)
		require.NoError(t, err)
	}
	assert.Equal(t, in, string(b))
}

func TestWarningString(t *testing.T) {
	c, err := dialect.Convert(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"],"additionalProperties":false}`), dialect.OpenAIStrict)
	require.NoError(t, err)
	require.Len(t, c.Warnings, 1)
	w := c.Warnings[0]
	w.Tool = "search"
	assert.Equal(t, `notice: search: openai-strict: /properties/q: minLength moved to the description: "At least 1 character."`, w.String())
	b, err := json.Marshal(w)
	require.NoError(t, err)
	assert.JSONEq(t, `{"tool":"search","target":"openai-strict","severity":"notice","action":"moved to the description","pointer":"/properties/q","keyword":"minLength","note":"At least 1 character."}`, string(b))

	c, err = dialect.Convert(json.RawMessage(`{"type":"object","properties":{"m":{"type":"object"}}}`), dialect.OpenAIStrict)
	require.NoError(t, err)
	assert.Equal(t, `lossy: openai-strict: /properties/m: sent as openai: it is a free-form object (no declared properties), and strict mode needs every key declared`, c.Warnings[0].String())
}

// movedCorpus has a schema for each way a keyword moves to a description,
// beside the shapes, the library's and the examples' schemas.
var movedCorpus = []string{
	// A required key on a recursive path (Gemini's JSON Schema form).
	`{"type":"object","properties":{"head":{"$ref":"#/$defs/Node"}},"required":["head"],"$defs":{"Node":{"type":"object","description":"A node","properties":{"value":{"type":"string"},"next":{"$ref":"#/$defs/Node"}},"required":["value","next"]}}}`,
	// A reference beside an anyOf, and one left pointing nowhere.
	`{"type":"object","properties":{"p":{"$ref":"#/$defs/A","anyOf":[{"type":"string"},{"type":"integer"}]},"x":{"not":{"type":"string"}},"y":{"$ref":"#/properties/x/not"}},"$defs":{"A":{"type":["string","integer"]}}}`,
	// False schemas: a property no value may have, a branch no value passes.
	`{"type":"object","properties":{"gone":false,"a":{"anyOf":[false,{"type":"string"}]}}}`,
	// Required keys the properties do not declare; keywords at the root.
	`{"type":"object","description":"Finds things","properties":{"a":{"type":"string"}},"required":["a","b"],"anyOf":[{"required":["a"]}],"minProperties":1}`,
	// Keywords the strict subsets lack, with and without a description.
	`{"type":"object","properties":{"q":{"type":"string","description":"The query!","minLength":1,"maxLength":9,"pattern":"^a","format":"email","default":"ab"},` +
		`"n":{"type":"number","multipleOf":0.5,"minimum":1,"examples":[2]},"l":{"type":"array","items":{"type":"integer"},"minItems":1,"uniqueItems":true,"contains":{"const":3}},` +
		`"m":{"type":"object","patternProperties":{"^x":{"type":"string"}},"propertyNames":{"maxLength":3},"dependentRequired":{"a":["b"]}}}}`,
}

// Warning.Note of a Moved warning is the sentence the description gained,
// word for word, for every target: the warning says what the model reads,
// and every sentence the description gained has its warning.
func TestMovedNotesAreWhatTheDescriptionGained(t *testing.T) {
	schemas := map[string]json.RawMessage{}
	for i, s := range movedCorpus {
		schemas["corpus "+strconv.Itoa(i)] = json.RawMessage(s)
	}
	for _, sh := range shapes(t) {
		schemas["shape "+sh.Name] = sh.Schema
	}
	for _, d := range libraryDefinitions(t) {
		schemas["library "+d.Name] = d.InputSchema
	}
	for ex, defs := range exampleDefinitions(t) {
		for _, d := range defs {
			schemas[ex+" "+d.Name] = d.InputSchema
		}
	}
	moved := 0
	for name, schema := range schemas {
		in := descriptionsOf(t, schema)
		for _, target := range targets {
			c, err := dialect.Convert(schema, target)
			if err != nil {
				continue
			}
			out := descriptionsOf(t, c.Schema)
			var notes, said []string
			for _, w := range c.Warnings {
				switch {
				case w.Action == dialect.Moved:
					notes = append(notes, w.Note)
				case w.Action == dialect.Rewritten && strings.Contains(w.Note, "; description: "):
					// A oneOf read as anyOf keeps its "exactly one" in words.
					_, quoted, _ := strings.Cut(w.Note, "; description: ")
					sentence, err := strconv.Unquote(quoted)
					require.NoError(t, err, w.Note)
					said = append(said, sentence)
				}
			}
			moved += len(notes)
			for _, n := range notes {
				assert.True(t, slices.ContainsFunc(out, func(d string) bool { return strings.Contains(d, n) }),
					"%s, %v: the warning's note %q is in no description the model gets: %q", name, target, n, out)
			}
			for _, d := range out {
				assert.True(t, explained(d, in, append(said, notes...)), "%s, %v: the description %q gained words no warning says (notes %q)", name, target, d, notes)
			}
		}
	}
	assert.Greater(t, moved, 50, "the corpus moves keywords")
}

// descriptionsOf returns every description string in the schema document.
func descriptionsOf(t *testing.T, schema json.RawMessage) []string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(schema, &v))
	return descriptions(v)
}

// explained reports whether d is one of the input's descriptions, or one
// of them (or none) followed by Moved notes, as a conversion writes them.
func explained(d string, in, notes []string) bool {
	if slices.Contains(in, d) {
		return true
	}
	rests := []string{d}
	for _, orig := range in {
		orig = strings.TrimSpace(orig)
		if orig != "" && !strings.HasSuffix(orig, ".") && !strings.HasSuffix(orig, "!") && !strings.HasSuffix(orig, "?") {
			orig += "."
		}
		if rest, ok := strings.CutPrefix(d, orig+" "); ok {
			rests = append(rests, rest)
		}
	}
	for _, rest := range rests {
		if onlyNotes(rest, notes) {
			return true
		}
	}
	return false
}

// onlyNotes reports whether s is notes (some of them, in any order)
// joined by spaces.
func onlyNotes(s string, notes []string) bool {
	if s == "" {
		return true
	}
	for _, n := range notes {
		if rest, ok := strings.CutPrefix(s, n); ok && (rest == "" || strings.HasPrefix(rest, " ")) && onlyNotes(strings.TrimPrefix(rest, " "), notes) {
			return true
		}
	}
	return false
}
