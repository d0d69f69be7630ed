package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// Defaults are filled wherever the schema says so unconditionally, and
// never where filling one would make the value invalid.
func TestApplyDefaults(t *testing.T) {
	tests := []struct {
		name, schema, in, want string
	}{
		{"a property", `{"type":"object","properties":{"n":{"type":"integer","default":3}}}`, `{}`, `{"n":3}`},
		{"a present key is kept", `{"type":"object","properties":{"n":{"type":"integer","default":3}}}`, `{"n":1}`, `{"n":1}`},
		{"nested objects", `{"type":"object","properties":{"o":{"type":"object","properties":{"n":{"default":3}}}}}`, `{"o":{}}`, `{"o":{"n":3}}`},
		{"an absent object gets no nested defaults", `{"type":"object","properties":{"o":{"type":"object","properties":{"n":{"default":3}}}}}`, `{}`, `{}`},
		{"array items", `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"retry":{"type":"integer","default":3}}}}}}`,
			`{"steps":[{},{"retry":1}]}`, `{"steps":[{"retry":3},{"retry":1}]}`},
		{"prefixItems", `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"object","properties":{"a":{"default":1}}}],"items":{"type":"object","properties":{"b":{"default":2}}}}}}`,
			`{"p":[{},{}]}`, `{"p":[{"a":1},{"b":2}]}`},
		{"a referenced definition", `{"type":"object","properties":{"s":{"$ref":"#/$defs/S"}},"$defs":{"S":{"type":"object","properties":{"level":{"default":"info"}}}}}`,
			`{"s":{}}`, `{"s":{"level":"info"}}`},
		{"a default on the referenced schema", `{"type":"object","properties":{"level":{"$ref":"#/$defs/L"}},"$defs":{"L":{"type":"string","default":"info"}}}`,
			`{}`, `{"level":"info"}`},
		{"allOf", `{"type":"object","allOf":[{"properties":{"n":{"default":3}}}]}`, `{}`, `{"n":3}`},
		{"a map's values", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"object","properties":{"on":{"default":true}}}}}}`,
			`{"m":{"x":{},"y":{"on":false}}}`, `{"m":{"x":{"on":true},"y":{"on":false}}}`},
		{"not in alternatives", `{"type":"object","properties":{"a":{"anyOf":[{"type":"object","properties":{"n":{"default":3}}}]}}}`, `{"a":{}}`, `{"a":{}}`},
		{"not where it would trigger a dependentRequired", `{"type":"object","properties":{"retry":{"default":3},"backoff":{"type":"string"},"x":{"default":1}},"dependentRequired":{"retry":["backoff"]}}`,
			`{}`, `{"x":1}`},
		{"not past maxProperties", `{"type":"object","properties":{"a":{},"b":{"default":1},"c":{"default":2}},"maxProperties":2}`, `{"a":0}`, `{"a":0,"b":1}`},
		{"not where it would select a second oneOf branch", `{"type":"object","properties":{"kind":{"default":"circle"},"r":{}},` +
			`"oneOf":[{"properties":{"kind":{"const":"circle"}},"required":["r"]},{"properties":{"kind":{"const":"square"}}}]}`, `{}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(json.RawMessage(tt.schema), jsonparse.Limits{})
			require.NoError(t, err)
			v, err := decodeOrdered([]byte(tt.in), jsonparse.Limits{})
			require.NoError(t, err)
			v = plain(v)
			require.True(t, s.valid(v), "the value as sent is valid")
			require.True(t, s.ApplyDefaults(v, 1<<15), "within the budget")
			got, err := json.Marshal(v)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
			assert.True(t, s.valid(v), "the value filled is valid")
		})
	}
}

func TestDefaultsAtRisk(t *testing.T) {
	tests := []struct {
		schema string
		want   []string
	}{
		{`{"type":"object","properties":{"a":{"default":1}}}`, nil},
		{`{"type":"object","properties":{"a":{"default":1}},"maxProperties":3}`, []string{"the root"}},
		{`{"type":"object","properties":{"a":{"default":1},"b":{}},"dependentRequired":{"a":["b"]}}`, []string{"the root"}},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"default":1}}}},"oneOf":[{"required":["o"]},{"required":["p"]}]}`, []string{"/properties/o"}},
		{`{"type":"object","properties":{"l":{"type":"array","uniqueItems":true,"items":{"type":"object","properties":{"a":{"default":1}}}}}}`, []string{"/properties/l/items"}},
		{`{"type":"object","properties":{"s":{"anyOf":[{"type":"object","properties":{"a":{"default":1}}}]}}}`, []string{"/properties/s/anyOf/0"}},
	}
	for _, tt := range tests {
		s, err := Compile(json.RawMessage(tt.schema), jsonparse.Limits{})
		require.NoError(t, err)
		assert.Equal(t, tt.want, s.DefaultsAtRisk(), tt.schema)
	}
}
