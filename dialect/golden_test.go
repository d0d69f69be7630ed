package dialect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	"github.com/toolbelt-go/tool/tooltest"
)

var targets = []dialect.Target{dialect.OpenAI, dialect.OpenAIStrict, dialect.Anthropic, dialect.AnthropicStrict, dialect.Gemini, dialect.GeminiJSON}

// exported is one tool's schema as a golden file shows it.
type exported struct {
	Tool     string            `json:"tool"`
	Target   string            `json:"target"`
	Schema   json.RawMessage   `json:"schema"`
	Warnings []dialect.Warning `json:"warnings,omitempty"`
}

// libraryDefinitions are the tools whose arguments the library itself
// defines: read_output, and tools embedding PageArgs and OutputArgs.
func libraryDefinitions(t *testing.T) []tool.Definition {
	type listArgs struct {
		Dir string `json:"dir" jsonschema:"description=The directory to list"`
		tool.PageArgs
	}
	type findArgs struct {
		Query string `json:"query" jsonschema:"description=Text to find,minLength=1"`
		tool.OutputArgs
	}
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	require.NoError(t, reg.Add(
		tool.NewPaginated(tool.Definition{Name: "list_dir", Description: "Lists a directory, a page at a time."},
			func(context.Context, listArgs, tool.Page) ([]string, []byte, error) { return nil, nil, nil }),
		tool.New(tool.Definition{Name: "find", Description: "Finds text."},
			func(context.Context, findArgs) (string, error) { return "", nil }),
	))
	return reg.Definitions()
}

// exampleDefinitions reads the definitions golden file of every example
// that has one.
func exampleDefinitions(t *testing.T) map[string][]tool.Definition {
	files, err := filepath.Glob("../examples/*/testdata/definitions.golden.json")
	require.NoError(t, err)
	require.NotEmpty(t, files, "no example has a definitions golden file")
	out := map[string][]tool.Definition{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var defs []tool.Definition
		require.NoError(t, json.Unmarshal(b, &defs), f)
		out["example-"+filepath.Base(filepath.Dir(filepath.Dir(f)))] = defs
	}
	return out
}

// The library's own arguments must export strict-clean and as Gemini's
// Schema object, with no fallback.
func TestLibraryArgumentsConvertCleanly(t *testing.T) {
	for _, d := range libraryDefinitions(t) {
		for _, tg := range []dialect.Target{dialect.OpenAIStrict, dialect.Gemini} {
			c, err := dialect.Convert(d.InputSchema, tg)
			require.NoError(t, err)
			assert.Equal(t, tg, c.Target, "%s: %v", d.Name, c.Warnings)
			assert.Empty(t, dialect.Check(c.Schema, tg), d.Name)
		}
	}
}

// Every exported schema of every example and of the library, for every
// target: the rule checker finds nothing, and a schema that is not strict
// says why. The converted schemas are golden files, refreshed with -tooltest.update.
func TestGoldenConversions(t *testing.T) {
	sources := exampleDefinitions(t)
	sources["library"] = libraryDefinitions(t)
	for source, defs := range sources {
		for _, tg := range targets {
			t.Run(source+"/"+tg.String(), func(t *testing.T) {
				var got []exported
				for _, d := range defs {
					c, err := dialect.Convert(d.InputSchema, tg)
					require.NoError(t, err, d.Name)
					assert.Empty(t, dialect.Check(c.Schema, c.Target), "%s: %s", d.Name, c.Schema)
					if c.Target != tg {
						require.NotEmpty(t, c.Warnings)
						assert.Equal(t, dialect.Fallback, c.Warnings[0].Action, "%s fell back without saying why", d.Name)
					}
					for i := range c.Warnings {
						c.Warnings[i].Tool = d.Name
					}
					got = append(got, exported{Tool: d.Name, Target: c.Target.String(), Schema: c.Schema, Warnings: c.Warnings})
				}
				golden(t, filepath.Join("testdata", source+"."+tg.String()+".golden.json"), got)
			})
		}
	}
}

func golden(t *testing.T, path string, v any) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	tooltest.Golden(t, path, b.Bytes())
}
