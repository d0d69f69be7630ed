package tool_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

// Mistakes in struct tags are DefinitionErrors at registration, naming the
// field and the tag, never a silent loss.
func TestStructTagMistakes(t *testing.T) {
	tests := []struct {
		name string
		tool tool.AnyTool
		says []string
	}{
		{"a comma inside a description", newWith(func(context.Context, struct {
			Q string `json:"q" jsonschema:"description=Text to find, as typed"`
		}) (string, error) {
			return "", nil
		}), []string{"field Q,", "a comma ended description= early", `" as typed"`, `\,`, "jsonschema_description"}},
		{"a comma inside a pattern", newWith(func(context.Context, struct {
			Q string `json:"q" jsonschema:"pattern=^[a-z]{1,3}$"`
		}) (string, error) {
			return "", nil
		}), []string{"a comma ended pattern= early"}},
		{"a misspelled keyword", newWith(func(context.Context, struct {
			Q string `json:"q" jsonschema:"minlength=1"`
		}) (string, error) {
			return "", nil
		}), []string{`"minlength" is not a keyword`, "did you mean minLength?"}},
		{"a misspelled description", newWith(func(context.Context, struct {
			Q string `json:"q" jsonschema:"descripton=Text"`
		}) (string, error) {
			return "", nil
		}), []string{"did you mean description?"}},
		{"a default that is not a number", newWith(func(context.Context, struct {
			N int `json:"n" jsonschema:"default=ten"`
		}) (string, error) {
			return "", nil
		}), []string{`default="ten" is not an integer`}},
		// The generator dropped what a float64 cannot hold: the field lost
		// its bound without a word.
		{"a bound no argument could reach", newWith(func(context.Context, struct {
			N float64 `json:"n" jsonschema:"minimum=1e100000"`
		}) (string, error) {
			return "", nil
		}), []string{`minimum="1e100000" has an exponent beyond ±400`}},
		{"a bound past a float64", newWith(func(context.Context, struct {
			N float64 `json:"n" jsonschema:"maximum=2e308"`
		}) (string, error) {
			return "", nil
		}), []string{`maximum="2e308" is beyond what a float64 holds`}},
		{"a default of too many digits", newWith(func(context.Context, struct {
			N int `json:"n" jsonschema:"default=12345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901"`
		}) (string, error) {
			return "", nil
		}), []string{"has more than 100 characters"}},
		{"an enum value past a float64", newWith(func(context.Context, struct {
			N float64 `json:"n" jsonschema:"enum=1,enum=1e309"`
		}) (string, error) {
			return "", nil
		}), []string{`enum="1e309" is beyond what a float64 holds`}},
		{"a keyword for another type", newWith(func(context.Context, struct {
			N int `json:"n" jsonschema:"maxLength=3"`
		}) (string, error) {
			return "", nil
		}), []string{"maxLength applies to strings", "an integer"}},
		{"bounds that contradict each other", newWith(func(context.Context, struct {
			N int `json:"n" jsonschema:"minimum=1,maximum=0"`
		}) (string, error) {
			return "", nil
		}), []string{"minimum=1 and maximum=0 leave no value allowed"}},
		{"a field that shadows an embedded one", newWith(func(context.Context, struct {
			Offset int `json:"offset" jsonschema:"minimum=1"`
			tool.OutputArgs
		}) (string, error) {
			return "", nil
		}), []string{`JSON name "offset"`, "OutputArgs.Offset", "rename one"}},
		{"a flag that is not one", newWith(func(context.Context, struct {
			Q string `json:"q" jsonschema:"requried"`
		}) (string, error) {
			return "", nil
		}), []string{`"requried" is not a flag`, "did you mean required?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tool.NewRegistry[struct{}](nil).Add(tt.tool)
			var de *tool.DefinitionError
			require.True(t, errors.As(err, &de), "registered: %v", err)
			for _, s := range tt.says {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

func TestStructTagsThatAreRight(t *testing.T) {
	type args struct {
		Q     string   `json:"q" jsonschema:"description=Text to find\\, as typed,minLength=1,maxLength=200,pattern=^[a-z]{1\\,3}$"`
		Lang  string   `json:"lang,omitempty" jsonschema:"enum=go,enum=rust,default=go"`
		N     int      `json:"n,omitempty" jsonschema:"minimum=1,maximum=100,default=10,example=5"`
		R     float64  `json:"r,omitempty" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1"`
		Tags  []string `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=3,uniqueItems=true,enum=a,enum=b"`
		B     bool     `json:"b,omitempty" jsonschema:"default=true"`
		Extra string   `json:"extra,omitempty" jsonschema_description:"Free text, with commas, as written"`
		Opt   *int     `json:"opt,omitempty" jsonschema:"nullable"`
	}
	r := tool.NewRegistry[struct{}](nil)
	require.NoError(t, r.Add(newWith(func(context.Context, args) (string, error) { return "", nil })))
	def := r.Definitions()[0]
	assert.Contains(t, string(def.InputSchema), `"description":"Text to find, as typed"`)
	assert.Contains(t, string(def.InputSchema), `"pattern":"^[a-z]{1,3}$"`)
	assert.Contains(t, string(def.InputSchema), `"description":"Free text, with commas, as written"`)
}

func newWith[In any](fn func(context.Context, In) (string, error)) tool.AnyTool {
	return tool.New(tool.Definition{Name: "t", Description: "Tests tags."}, fn)
}
