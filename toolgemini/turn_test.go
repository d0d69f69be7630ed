package toolgemini_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/internal/providertest"
	toolgemini "github.com/toolbelt-go/tool/toolgemini"
)

const model = "gemini-3-flash"

func testClient(t *testing.T, f *providertest.FakeAPI) *genai.Client {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: f.URL},
	})
	require.NoError(t, err)
	return client
}

// A full turn through the SDK's own client: our function declarations in
// the request, the model's function calls in the response, our function
// responses in the next request.
func TestGenerateContentTurn(t *testing.T) {
	api := providertest.NewFakeAPI(t, "generate_response_1.json", "generate_response_2.json")
	client := testClient(t, api)
	reg, searched := providertest.Registry(t)
	ai := toolgemini.New(reg, nil)
	ctx := context.Background()

	contents := []*genai.Content{genai.NewContentFromText("Where is println called?", genai.RoleUser)}
	config := &genai.GenerateContentConfig{Tools: ai.Tools()}
	resp, err := client.Models.GenerateContent(ctx, model, contents, config)
	require.NoError(t, err)
	providertest.GoldenJSON(t, "generate_request_1.golden.json", api.Body(0))
	assert.Equal(t, "/v1beta/models/"+model+":generateContent", api.Path(0))

	turn := ai.Run(ctx, struct{}{}, resp)
	require.Len(t, turn, 2, "the model's content, then the function responses")
	contents = append(contents, turn...)
	assert.Equal(t, providertest.SearchArgs{Query: "println", Lang: "go", Limit: 5}, *searched)

	resp, err = client.Models.GenerateContent(ctx, model, contents, config)
	require.NoError(t, err)
	providertest.GoldenJSON(t, "generate_request_2.golden.json", api.Body(1))
	assert.Contains(t, resp.Text(), "println is called in main.go")
	assert.Len(t, ai.Run(ctx, struct{}{}, resp), 1, "no function call: only the model's content")
}

// Calls without IDs get deterministic ones that map back: the same
// response gives the same IDs, and the answers leave them out.
func TestCallIDs(t *testing.T) {
	api := providertest.NewFakeAPI(t, "generate_response_1.json")
	client := testClient(t, api)
	reg, _ := providertest.Registry(t)
	ai := toolgemini.New(reg, nil)
	resp, err := client.Models.GenerateContent(context.Background(), model, genai.Text("x"), nil)
	require.NoError(t, err)

	reqs := ai.Requests(resp)
	require.Len(t, reqs, 5)
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		ids[i] = r.ID
	}
	assert.Equal(t, []string{
		"toolgemini:mIkgaduWL-Ka1e8PwPmR6Ak:0", "toolgemini:mIkgaduWL-Ka1e8PwPmR6Ak:1", "toolgemini:mIkgaduWL-Ka1e8PwPmR6Ak:2",
		"call-screenshot-7f3a", "toolgemini:mIkgaduWL-Ka1e8PwPmR6Ak:4",
	}, ids)
	assert.Equal(t, reqs, ai.Requests(resp), "deterministic")
	assert.JSONEq(t, `{"lang":"go","query":"println"}`, string(reqs[0].Args))

	answer := ai.Run(context.Background(), struct{}{}, resp)[1]
	assert.Equal(t, genai.RoleUser, answer.Role)
	require.Len(t, answer.Parts, 5)
	for i, p := range answer.Parts {
		require.NotNil(t, p.FunctionResponse)
		assert.Equal(t, reqs[i].Name, p.FunctionResponse.Name)
	}
	assert.Empty(t, answer.Parts[0].FunctionResponse.ID, "a made-up ID is not sent back")
	assert.Equal(t, "call-screenshot-7f3a", answer.Parts[3].FunctionResponse.ID, "the model's own ID is")

	// Without a response ID, the key is a hash of the calls.
	resp.ResponseID = ""
	hashed := ai.Requests(resp)
	assert.Regexp(t, `^toolgemini:[0-9a-f]{16}:0$`, hashed[0].ID)
	assert.Equal(t, hashed, ai.Requests(resp))
}

func TestResponses(t *testing.T) {
	tests := []struct {
		name string
		res  *tool.Result
		want string
	}{
		{"structured output", &tool.Result{Structured: json.RawMessage(`[{"file":"main.go","line":4}]`), Content: []tool.Content{tool.TextContent(`[{"file":"main.go","line":4}]`)}},
			`{"name":"t","response":{"output":[{"file":"main.go","line":4}]}}`},
		{"text", tool.TextResult("package main\n"), `{"name":"t","response":{"output":"package main\n"}}`},
		{"an error", &tool.Result{IsError: true, Content: []tool.Content{tool.TextContent("Error: no file")}}, `{"name":"t","response":{"error":"Error: no file"}}`},
		{"nothing", &tool.Result{}, `{"name":"t","response":{"output":"(the tool returned no output)"}}`},
		{"an image", &tool.Result{Content: []tool.Content{tool.TextContent("Look:"), tool.ImageContent([]byte{1, 2, 3}, "image/png")}},
			`{"name":"t","parts":[{"inlineData":{"data":"AQID","mimeType":"image/png"}}],"response":{"output":"Look:"}}`},
		{"audio is named", &tool.Result{Content: []tool.Content{tool.AudioContent([]byte{1}, "audio/wav")}},
			`{"name":"t","response":{"output":"[audio audio/wav, 1 bytes]"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := toolgemini.Results([]tool.Request{{ID: "toolgemini:r:0", Name: "t"}}, []*tool.Result{tt.res})
			b, err := json.Marshal(c.Parts[0].FunctionResponse)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func TestSchemasAndFallback(t *testing.T) {
	reg, _ := providertest.Registry(t)
	decls := toolgemini.New(reg, nil).Tools()[0].FunctionDeclarations
	byName := map[string]*genai.FunctionDeclaration{}
	for _, d := range decls {
		byName[d.Name] = d
	}
	require.NotNil(t, byName["search"].Parameters)
	assert.Equal(t, genai.TypeObject, byName["search"].Parameters.Type)
	assert.Equal(t, []string{"query", "lang", "limit"}, byName["search"].Parameters.PropertyOrdering)
	assert.Nil(t, byName["screenshot"].Parameters, "no parameters: left unset")
	assert.Nil(t, byName["screenshot"].ParametersJsonSchema)
	assert.Nil(t, byName["set_env"].Parameters, "a map cannot be a Schema object")
	assert.NotNil(t, byName["set_env"].ParametersJsonSchema)

	ai := toolgemini.New(reg, nil)
	var fallback []string
	for _, w := range ai.Warnings() {
		if w.Action.String() == "fallback" {
			fallback = append(fallback, w.String())
		}
	}
	assert.Equal(t, []string{"set_env: gemini: /properties/vars: sent as gemini-json: it is an object with no declared properties, which the Schema object cannot express"}, fallback)

	for _, d := range toolgemini.New(reg, &toolgemini.Options{JSONSchema: true}).Tools()[0].FunctionDeclarations {
		assert.Nil(t, d.Parameters, d.Name)
		assert.NotNil(t, d.ParametersJsonSchema, d.Name)
	}

	require.NoError(t, reg.Add(tool.New(tool.Definition{Name: "ping", Description: "Ping."}, func(context.Context, struct{}) (string, error) { return "pong", nil })))
	assert.Len(t, ai.Tools()[0].FunctionDeclarations, 5, "the adapter follows the registry")
}

func TestSessionAndEmptyResponses(t *testing.T) {
	reg, _ := providertest.Registry(t)
	ai := toolgemini.New(reg, nil).WithSession("conversation-7")
	resp := &genai.GenerateContentResponse{ResponseID: "r1", Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{Name: "search", Args: map[string]any{"query": "a"}}}}}}}}
	reqs := ai.Requests(resp)
	require.Len(t, reqs, 1)
	assert.Equal(t, tool.Request{ID: "toolgemini:r1:0", Name: "search", Args: json.RawMessage(`{"query":"a"}`), Session: "conversation-7"}, reqs[0])
	assert.Nil(t, ai.Requests(nil))
	assert.Nil(t, ai.Run(context.Background(), struct{}{}, &genai.GenerateContentResponse{}))
}

// A name the registry accepts and Gemini refuses is not sent, so the
// other tools still work, and the warning says what to do.
func TestNameGeminiRefuses(t *testing.T) {
	reg, _ := providertest.Registry(t)
	for _, name := range []string{"2fa_code", "-dash"} {
		require.NoError(t, reg.Add(tool.New(tool.Definition{Name: name, Description: "A tool."}, func(context.Context, struct{}) (string, error) { return "", nil })))
	}
	ai := toolgemini.New(reg, nil)
	for _, d := range ai.Tools()[0].FunctionDeclarations {
		assert.NotContains(t, []string{"2fa_code", "-dash"}, d.Name)
	}
	assert.Len(t, ai.Tools()[0].FunctionDeclarations, 4)
	var dropped []string
	for _, w := range ai.Warnings() {
		if w.Keyword == "name" {
			dropped = append(dropped, w.String())
		}
	}
	assert.Len(t, dropped, 2)
	for _, w := range dropped {
		assert.Contains(t, w, "rename it")
	}
	t.Log(dropped)
}
