package toolgemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	toolgemini "github.com/toolbelt-go/tool/toolgemini"
	"github.com/toolbelt-go/tool/toolgemini/geminitest"
)

const model = "gemini-3-flash"

// The model's first turn: a search, a read that fails, an unknown tool, a
// screenshot with an ID of the model's own, invalid arguments.
var firstTurn = geminitest.Calls(
	geminitest.Call{Name: "search", Args: `{"query":"println","lang":"go"}`},
	geminitest.Call{Name: "read_file", Args: `{"path":"docs/guide.md"}`},
	geminitest.Call{Name: "grep", Args: `{"pattern":"println"}`},
	geminitest.Call{ID: "call-screenshot-7f3a", Name: "screenshot", Args: `{}`},
	geminitest.Call{Name: "search", Args: `{"query":1}`},
)

// A full turn through the SDK's own client: our function declarations in
// the request, the model's function calls in the response, our function
// responses in the next request.
func TestGenerateContentTurn(t *testing.T) {
	srv := geminitest.NewServer(firstTurn, geminitest.Text("println is called in main.go, line 4."))
	defer srv.Close()
	client := srv.Client()
	reg, searched := testRegistry(t)
	ai := toolgemini.New(reg, nil)
	ctx := context.Background()

	contents := []*genai.Content{genai.NewContentFromText("Where is println called?", genai.RoleUser)}
	config := &genai.GenerateContentConfig{Tools: ai.Tools()}
	resp, err := client.Models.GenerateContent(ctx, model, contents, config)
	require.NoError(t, err)
	golden(t, "generate_request_1.golden.json", srv.Requests()[0].Body)
	assert.Equal(t, "/v1beta/models/"+model+":generateContent", srv.Requests()[0].Path)

	turn := ai.Run(ctx, struct{}{}, resp)
	require.Len(t, turn, 2, "the model's content, then the function responses")
	contents = append(contents, turn...)
	assert.Equal(t, SearchArgs{Query: "println", Lang: "go", Limit: 5}, searched())

	resp, err = client.Models.GenerateContent(ctx, model, contents, config)
	require.NoError(t, err, "one response per call, the thought signature sent back")
	golden(t, "generate_request_2.golden.json", srv.Requests()[1].Body)
	assert.Contains(t, resp.Text(), "println is called in main.go")
	assert.Len(t, ai.Run(ctx, struct{}{}, resp), 1, "no function call: only the model's content")

	out := srv.Requests()[1].Outputs
	require.Len(t, out, 5)
	assert.JSONEq(t, `{"output":[{"file":"main.go","line":4}]}`, string(out[0].Response))
	assert.Contains(t, string(out[1].Response), `"error":"Error: no file named docs/guide.md`)
	assert.Contains(t, string(out[2].Response), `there is no tool named \"grep\"`)
	assert.Equal(t, "call-screenshot-7f3a", out[3].CallID)
	assert.Equal(t, 1, out[3].Parts, "the image goes along")
	assert.Contains(t, string(out[4].Response), "Invalid arguments for search")
}

// Calls without IDs get deterministic ones that map back: the same
// response gives the same IDs, and the answers leave them out.
func TestCallIDs(t *testing.T) {
	srv := geminitest.NewServer(firstTurn)
	defer srv.Close()
	reg, _ := testRegistry(t)
	ai := toolgemini.New(reg, nil)
	resp, err := srv.Client().Models.GenerateContent(context.Background(), model, genai.Text("x"), nil)
	require.NoError(t, err)

	reqs := ai.Requests(resp)
	require.Len(t, reqs, 5)
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		ids[i] = r.ID
	}
	assert.Equal(t, []string{"toolgemini:geminitest-1:0", "toolgemini:geminitest-1:1", "toolgemini:geminitest-1:2", "call-screenshot-7f3a", "toolgemini:geminitest-1:4"}, ids)
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

	// Without a response ID, the key is random: the same calls made again
	// are new calls.
	resp.ResponseID = ""
	first := ai.Requests(resp)
	assert.Regexp(t, `^toolgemini:[A-Z2-7]{26}:0$`, first[0].ID)
	assert.NotEqual(t, first[0].ID, ai.Requests(resp)[0].ID)
}

// With records kept, a later turn that makes the same calls as an earlier
// one, in a response without an ID, runs them again: it is not a retry of
// the first, and answering it from the first's records would give the
// model what the file held before it changed.
func TestSameCallsInALaterTurnRunAgain(t *testing.T) {
	reads := 0
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: tool.NewMemoryRecordStore(0)})
	reg.MustAdd(tool.New(tool.Definition{Name: "read_file", Description: "Read one file of the project.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in struct {
			Path string `json:"path"`
		}) (string, error) {
			reads++
			return fmt.Sprintf("version %d", reads), nil
		}))
	ai := toolgemini.New(reg, nil).WithSession("conv-1")
	turn := func() string {
		resp := &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel,
			Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "read_file", Args: map[string]any{"path": "main.go"}}}}}}}}
		out := ai.Run(context.Background(), struct{}{}, resp)
		require.Len(t, out, 2)
		return fmt.Sprint(out[1].Parts[0].FunctionResponse.Response["output"])
	}
	assert.Equal(t, "version 1", turn())
	assert.Equal(t, "version 2", turn(), "the second read ran")
	assert.Equal(t, 2, reads)
}

func TestResponses(t *testing.T) {
	reg, _ := testRegistry(t)
	ai := toolgemini.New(reg, nil)
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
			c := ai.Results([]tool.Request{{ID: "toolgemini:r:0", Name: "t"}}, []*tool.Result{tt.res})
			b, err := json.Marshal(c.Parts[0].FunctionResponse)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func TestSchemasAndFallback(t *testing.T) {
	reg, _ := testRegistry(t)
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
	var lossy []string
	for _, w := range ai.Warnings() {
		if w.Severity >= dialect.Lossy {
			lossy = append(lossy, w.String())
		}
	}
	assert.Equal(t, []string{"lossy: set_env: gemini: /properties/vars: sent as gemini-json: it is an object with no declared properties, which the Schema object cannot express"}, lossy)

	for _, d := range toolgemini.New(reg, &toolgemini.Options{JSONSchema: true}).Tools()[0].FunctionDeclarations {
		assert.Nil(t, d.Parameters, d.Name)
		assert.NotNil(t, d.ParametersJsonSchema, d.Name)
	}

	require.NoError(t, reg.Add(tool.New(tool.Definition{Name: "ping", Description: "Ping."}, func(context.Context, struct{}) (string, error) { return "pong", nil })))
	assert.Len(t, ai.Tools()[0].FunctionDeclarations, 5, "the adapter follows the registry")
}

func TestSessionAndEmptyResponses(t *testing.T) {
	reg, _ := testRegistry(t)
	ai := toolgemini.New(reg, nil).WithSession("conversation-7")
	resp := &genai.GenerateContentResponse{ResponseID: "r1", Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{Name: "search", Args: map[string]any{"query": "a"}}}}}}}}
	reqs := ai.Requests(resp)
	require.Len(t, reqs, 1)
	assert.Equal(t, tool.Request{ID: "toolgemini:r1:0", Name: "search", Args: json.RawMessage(`{"query":"a"}`), Session: "conversation-7"}, reqs[0])
	assert.Nil(t, ai.Requests(nil))
	assert.Nil(t, ai.Run(context.Background(), struct{}{}, &genai.GenerateContentResponse{}))
}

// Names the registry accepts and Gemini refuses (a function name starting
// with a digit or a dash, a parameter name with a dash) are sent under
// names Gemini accepts, and the calls reach the tool under its own.
func TestNamesGeminiRefuses(t *testing.T) {
	var got struct {
		Code string `json:"user-code"`
	}
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "2fa", Description: "Checks a code."}, func(_ context.Context, in struct {
		Code string `json:"user-code"`
	}) (string, error) {
		got = in
		return "ok", nil
	}))
	ai := toolgemini.New(reg, nil)
	srv := geminitest.NewServer(geminitest.Calls(geminitest.Call{Name: "_2fa", Args: `{"user_code":"123"}`}), geminitest.Text("done"))
	defer srv.Close()
	client := srv.Client()
	contents := genai.Text("check 123")
	config := &genai.GenerateContentConfig{Tools: ai.Tools()}
	resp, err := client.Models.GenerateContent(context.Background(), model, contents, config)
	require.NoError(t, err, "the server refuses the names Gemini refuses")
	assert.Equal(t, "_2fa", srv.Requests()[0].Functions[0].Name)
	contents = append(contents, ai.Run(context.Background(), struct{}{}, resp)...)
	assert.Equal(t, "123", got.Code)
	_, err = client.Models.GenerateContent(context.Background(), model, contents, config)
	require.NoError(t, err, "the answer names the function the model called")
	assert.Equal(t, "_2fa", srv.Requests()[1].Outputs[0].Name)
	var notices []string
	for _, w := range ai.Warnings() {
		notices = append(notices, w.String())
	}
	assert.Contains(t, notices, `notice: 2fa: gemini: (root): name renamed: "sent as \"_2fa\": Gemini wants a function name that starts with a letter or '_'"`)
}

// Integers past 2^53 cannot pass Gemini exactly: the call is answered
// with an error that says so, and the tool does not run.
func TestIntegersPast2To53(t *testing.T) {
	var got []int64
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "get", Description: "Gets a record."}, func(_ context.Context, in struct {
		ID int64 `json:"id"`
	}) (string, error) {
		got = append(got, in.ID)
		return "ok", nil
	}))
	ai := toolgemini.New(reg, nil)
	srv := geminitest.NewServer(geminitest.Calls(
		geminitest.Call{Name: "get", Args: `{"id":9007199254740993}`},
		geminitest.Call{Name: "get", Args: `{"id":9007199254740991}`},
	))
	defer srv.Close()
	resp, err := srv.Client().Models.GenerateContent(context.Background(), model, genai.Text("x"), &genai.GenerateContentConfig{Tools: ai.Tools()})
	require.NoError(t, err)
	answer := ai.Run(context.Background(), struct{}{}, resp)[1]
	assert.Equal(t, []int64{9007199254740991}, got, "the exact one ran, the other did not")
	assert.Contains(t, answer.Parts[0].FunctionResponse.Response["error"], "may not be the one you wrote")
	assert.Equal(t, "ok", answer.Parts[1].FunctionResponse.Response["output"])
}

// A reply of 10,000 function calls: every one is answered, only the first
// tool.DefaultMaxCalls run, and the next request stays small. Without the
// bound all ran and the next request carried every result.
func TestFloodOfCalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls int
		ran   int
	}{
		{"under the bound", 20, 20},
		{"10,000 calls", 10000, tool.DefaultMaxCalls},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int64
			reg := tool.NewRegistry[struct{}](nil)
			reg.MustAdd(tool.New(tool.Definition{Name: "read", Description: "Read a page.", Safety: tool.SafetyReadOnly},
				func(context.Context, struct{}) (string, error) { ran.Add(1); return strings.Repeat("x", 4<<10), nil }))
			calls := make([]geminitest.Call, tc.calls)
			for i := range calls {
				calls[i] = geminitest.Call{Name: "read", Args: `{}`}
			}
			srv := geminitest.NewServer(geminitest.Calls(calls...), geminitest.Text("done"))
			defer srv.Close()
			ai := toolgemini.New(reg, nil)
			ctx, client := context.Background(), srv.Client()
			config := &genai.GenerateContentConfig{Tools: ai.Tools()}
			contents := genai.Text("Read.")
			resp, err := client.Models.GenerateContent(ctx, model, contents, config)
			require.NoError(t, err)
			contents = append(contents, ai.Run(ctx, struct{}{}, resp)...)
			_, err = client.Models.GenerateContent(ctx, model, contents, config)
			require.NoError(t, err)
			next := srv.Requests()[1]
			require.Empty(t, next.Refused)
			require.Len(t, next.Outputs, tc.calls, "every call is answered")
			assert.EqualValues(t, tc.ran, ran.Load())
			if tc.ran < tc.calls {
				assert.Contains(t, string(next.Outputs[tc.calls-1].Response), "did not run: the turn made 10000 tool calls")
			}
			assert.Less(t, len(next.Body), 4<<20, "the next request: %d bytes", len(next.Body))
		})
	}
}
