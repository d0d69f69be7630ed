package tooltest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

type genArgs struct {
	Query  string   `json:"query" jsonschema:"minLength=2,maxLength=20"`
	Limit  int      `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50"`
	Ratio  float64  `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0,maximum=1"`
	Lang   string   `json:"lang,omitempty" jsonschema:"enum=go,enum=rust"`
	Path   string   `json:"path,omitempty" jsonschema:"pattern=^[a-z/._]+$"`
	Tags   []string `json:"tags,omitempty" jsonschema:"maxItems=3"`
	Strict bool     `json:"strict,omitempty"`
	Inner  struct {
		N int `json:"n" jsonschema:"minimum=-5,maximum=-1"`
	} `json:"inner"`
}

func genTool() tool.AnyTool {
	return tool.New(tool.Definition{Name: "gen", Description: "Takes many kinds of arguments."},
		func(_ context.Context, in genArgs) (string, error) { return in.Query, nil })
}

func TestGenerateArgsAreValid(t *testing.T) {
	tl := genTool()
	for seed := range uint64(200) {
		args, err := tooltest.GenerateArgs(tl.Definition().InputSchema, seed)
		require.NoError(t, err)
		res := tooltest.Run(t, tl, args, nil)
		require.Equal(t, tool.StatusOK, res.Status, "seed %d: generated %s, refused:\n%s", seed, args, tooltest.ModelView(res))
	}
	a, _ := tooltest.GenerateArgs(tl.Definition().InputSchema, 7)
	b, _ := tooltest.GenerateArgs(tl.Definition().InputSchema, 7)
	assert.Equal(t, a, b, "the same seed gives the same arguments")
}

func TestMutationsAreRefused(t *testing.T) {
	tl := genTool()
	valid := `{"query":"abc","limit":5,"ratio":0.5,"lang":"go","path":"a/b","tags":["x"],"strict":true,"inner":{"n":-2}}`
	tooltest.WantOK(t, tooltest.Run(t, tl, valid, nil))
	muts, err := tooltest.Mutations(tl.Definition().InputSchema, valid)
	require.NoError(t, err)
	var names []string
	for _, m := range muts {
		names = append(names, m.Name)
		tooltest.WantStatus(t, tooltest.Run(t, tl, m.Args, nil), tool.StatusInvalid)
	}
	all := strings.Join(names, "\n")
	for _, want := range []string{"unknown key", "/limit: below minimum", "/limit: above maximum", "/limit: fraction",
		"/query: too long", "/query: too short", "/lang: outside enum", "/tags: too many items", "/query: required key missing",
		"/strict: wrong type", "/inner: null"} {
		assert.Contains(t, all, want, "no such mutation")
	}
	_, err = tooltest.Mutations(json.RawMessage(`{`), "{}")
	assert.Error(t, err, "a broken schema")
}

// FuzzEcho shows the one-line fuzz target.
func FuzzEcho(f *testing.F) { tooltest.Fuzz(f, echo(), `{"text":"hi"}`) }

func FuzzGen(f *testing.F) { tooltest.Fuzz(f, genTool()) }
