package toolopenai_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	toolopenai "github.com/toolbelt-go/tool/toolopenai"
	"github.com/toolbelt-go/tool/toolopenai/openaitest"
)

// shape is one schema shape of dialect's testdata/shapes.json, with a call
// meaning a value the schema accepts and what the tool receives for it.
type shape struct {
	Name     string          `json:"name"`
	Note     string          `json:"note"`
	Schema   json.RawMessage `json:"schema"`
	Call     json.RawMessage `json:"call"`
	Received json.RawMessage `json:"received"`
}

// corpus registers every named shape and every tool of the examples, each
// as a raw tool that records what it receives.
func corpus(t *testing.T) (*tool.Registry[struct{}], []shape, map[string]json.RawMessage) {
	b, err := os.ReadFile("../dialect/testdata/shapes.json")
	require.NoError(t, err)
	var list []shape
	require.NoError(t, json.Unmarshal(b, &list))
	got := map[string]json.RawMessage{}
	reg := tool.NewRegistry[struct{}](nil)
	add := func(name, desc string, schema json.RawMessage) {
		require.NoError(t, reg.Add(tool.NewRaw(tool.Definition{Name: name, Description: desc, InputSchema: schema},
			func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
				got[name] = args
				return tool.TextResult("ok"), nil
			})))
	}
	for _, sh := range list {
		add(sh.Name, sh.Note, sh.Schema)
	}
	files, err := filepath.Glob("../examples/*/testdata/definitions.golden.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var defs []tool.Definition
		require.NoError(t, json.Unmarshal(b, &defs))
		for _, d := range defs {
			add(filepath.Base(filepath.Dir(filepath.Dir(f)))+"_"+d.Name, d.Description, d.InputSchema)
		}
	}
	return reg, list, got
}

// Every shape the providers trip on and every tool of the examples goes
// through the SDK to the local API, which refuses what OpenAI refuses;
// each shape's call, made as a model makes it under what it was sent (the
// strict form's nulls included), reaches its tool as meant.
func TestShapesThroughTheSDK(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-strict", true: "strict"}[strict], func(t *testing.T) {
			reg, list, got := corpus(t)
			ai := toolopenai.New(reg, &toolopenai.Options{Strict: strict})
			sent := map[string]map[string]any{}
			isStrict := map[string]bool{}
			for _, tl := range ai.ChatTools() {
				fn := tl.OfFunction.Function
				isStrict[fn.Name] = fn.Strict.Value
				b, err := json.Marshal(fn.Parameters)
				require.NoError(t, err)
				var m map[string]any
				require.NoError(t, json.Unmarshal(b, &m))
				sent[fn.Name] = m
			}
			var calls []openaitest.Call
			for _, sh := range list {
				var v any
				require.NoError(t, json.Unmarshal(sh.Call, &v))
				if isStrict[sh.Name] {
					fillNulls(sent[sh.Name], sent[sh.Name], v)
				}
				b, _ := json.Marshal(v)
				calls = append(calls, openaitest.Call{ID: "call_" + sh.Name, Name: sh.Name, Arguments: string(b)})
			}
			srv := openaitest.NewServer(openaitest.Calls(calls...), openaitest.Text("done"), openaitest.Calls(calls...), openaitest.Text("done"))
			defer srv.Close()
			client := srv.Client()
			ctx := context.Background()
			params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Tools: ai.ChatTools(),
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")}}
			resp, err := client.Chat.Completions.New(ctx, params)
			require.NoError(t, err, "the API takes every tool: %v", srv.Requests()[0].Refused)
			params.Messages = append(params.Messages, ai.RunChat(ctx, struct{}{}, resp.Choices[0].Message)...)
			_, err = client.Chat.Completions.New(ctx, params)
			require.NoError(t, err)
			check(t, list, got)

			// The Responses API takes the same tools and calls.
			clear(got)
			rp := responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, Tools: ai.ResponseTools(),
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("go")}}
			r, err := client.Responses.New(ctx, rp)
			require.NoError(t, err, "%v", srv.Requests()[2].Refused)
			rp.PreviousResponseID = openai.String(r.ID)
			rp.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: ai.RunResponse(ctx, struct{}{}, r)}
			_, err = client.Responses.New(ctx, rp)
			require.NoError(t, err)
			check(t, list, got)
		})
	}
}

func check(t *testing.T, list []shape, got map[string]json.RawMessage) {
	t.Helper()
	for _, sh := range list {
		want := sh.Received
		if want == nil {
			want = sh.Call
		}
		if assert.NotNil(t, got[sh.Name], "%s did not run", sh.Name) {
			assert.JSONEq(t, string(want), string(got[sh.Name]), sh.Name)
		}
	}
}

// fillNulls does what a strict model does with v: every property the strict
// schema s lists and v lacks is sent as null.
func fillNulls(root, s map[string]any, v any) {
	s = follow(root, s)
	switch x := v.(type) {
	case map[string]any:
		if branches, ok := s["anyOf"].([]any); ok {
			for _, b := range branches {
				bm, _ := b.(map[string]any)
				bm = follow(root, bm)
				if props, ok := bm["properties"].(map[string]any); ok && keysWithin(x, props) {
					s = bm
					break
				}
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			pm, _ := p.(map[string]any)
			if e, ok := x[k]; ok {
				fillNulls(root, pm, e)
			} else {
				x[k] = nil
			}
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for _, e := range x {
			fillNulls(root, items, e)
		}
	}
}

// follow resolves a $ref to a definition, and the non-null branch of a
// nullable anyOf.
func follow(root, s map[string]any) map[string]any {
	for range 8 {
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			defs, _ := root["$defs"].(map[string]any)
			s, _ = defs[name].(map[string]any)
			continue
		}
		if branches, ok := s["anyOf"].([]any); ok && len(branches) == 2 {
			if last, _ := branches[1].(map[string]any); last["type"] == "null" {
				s, _ = branches[0].(map[string]any)
				continue
			}
		}
		return s
	}
	return s
}

func keysWithin(v, props map[string]any) bool {
	for k := range v {
		if _, ok := props[k]; !ok {
			return false
		}
	}
	return true
}
