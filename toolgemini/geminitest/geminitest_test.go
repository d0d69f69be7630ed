package geminitest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool/toolgemini/geminitest"
)

func config(decls ...*genai.FunctionDeclaration) *genai.GenerateContentConfig {
	return &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: decls}}}
}

// The server refuses what the API refuses, and says why in Refused.
func TestServerRefusesAsTheAPIDoes(t *testing.T) {
	call := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "f", Args: map[string]any{}}}}}
	tests := []struct {
		name     string
		contents []*genai.Content
		config   *genai.GenerateContentConfig
		want     string
	}{
		{"a function name starting with a digit", genai.Text("x"), config(&genai.FunctionDeclaration{Name: "2fa"}), "Invalid function name"},
		{"the Schema object as JSON Schema", genai.Text("x"), config(&genai.FunctionDeclaration{Name: "f",
			ParametersJsonSchema: map[string]any{"type": "OBJECT", "properties": map[string]any{"a": map[string]any{"type": "STRING"}}}}), "parameters_json_schema"},
		{"a parameter name", genai.Text("x"), config(&genai.FunctionDeclaration{Name: "f",
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"a-b": {Type: genai.TypeString}}}}), "parameters"},
		{"a call not answered", append(genai.Text("x"), call, genai.NewContentFromText("and?", genai.RoleUser)), nil, "number of function response parts"},
		{"an answer to no call", []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse("f", map[string]any{})}}}, nil,
			"immediately after a function call turn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := geminitest.NewServer(geminitest.Text("never"))
			defer srv.Close()
			_, err := srv.Client().Models.GenerateContent(context.Background(), "gemini-3-flash", tt.contents, tt.config)
			require.Error(t, err)
			require.Len(t, srv.Requests(), 1)
			assert.Contains(t, srv.Requests()[0].Refused, tt.want)
		})
	}
}

// A model content the server made must come back with its thought
// signature, as Gemini 3 wants.
func TestServerWantsItsThoughtSignatureBack(t *testing.T) {
	srv := geminitest.NewServer(geminitest.Calls(geminitest.Call{Name: "f", Args: `{}`}), geminitest.Text("ok"))
	defer srv.Close()
	client := srv.Client()
	resp, err := client.Models.GenerateContent(context.Background(), "gemini-3-flash", genai.Text("x"), nil)
	require.NoError(t, err)
	model := resp.Candidates[0].Content
	require.NotEmpty(t, model.Parts[0].ThoughtSignature)
	model.Parts[0].ThoughtSignature = nil
	answer := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse("f", map[string]any{"output": "x"})}}
	_, err = client.Models.GenerateContent(context.Background(), "gemini-3-flash", append(genai.Text("x"), model, answer), nil)
	require.Error(t, err)
	assert.Contains(t, srv.Requests()[1].Refused, "missing a thought_signature")
}
