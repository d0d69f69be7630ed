package toolgemini_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	toolgemini "github.com/toolbelt-go/tool/toolgemini"
	"github.com/toolbelt-go/tool/toolgemini/geminitest"
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
// through the SDK to the local API, which refuses what Gemini refuses;
// each shape's call, made as a model makes it under what it was sent (the
// renamed parameters included), reaches its tool as meant. As the Schema
// object or as JSON Schema.
func TestShapesThroughTheSDK(t *testing.T) {
	for _, jsonSchema := range []bool{false, true} {
		t.Run(map[bool]string{false: "schema object", true: "json schema"}[jsonSchema], func(t *testing.T) {
			reg, list, got := corpus(t)
			ai := toolgemini.New(reg, &toolgemini.Options{JSONSchema: jsonSchema})
			config := &genai.GenerateContentConfig{Tools: ai.Tools()}
			form := map[string]dialect.Target{}
			for _, d := range config.Tools[0].FunctionDeclarations {
				form[d.Name] = dialect.GeminiJSON
				if d.ParametersJsonSchema == nil {
					form[d.Name] = dialect.Gemini
				}
			}
			var calls []geminitest.Call
			for _, sh := range list {
				c, err := dialect.Convert(sh.Schema, form[sh.Name])
				require.NoError(t, err)
				var v map[string]any
				require.NoError(t, json.Unmarshal(sh.Call, &v))
				args := map[string]any{}
				for k, e := range v { // Gemini's rule is for the parameters: the root's keys
					for s, o := range c.Renamed {
						if o == k {
							k = s
						}
					}
					args[k] = e
				}
				b, _ := json.Marshal(args)
				calls = append(calls, geminitest.Call{Name: sh.Name, Args: string(b)})
			}
			srv := geminitest.NewServer(geminitest.Calls(calls...), geminitest.Text("done"))
			defer srv.Close()
			client := srv.Client()
			ctx := context.Background()
			contents := genai.Text("go")
			resp, err := client.Models.GenerateContent(ctx, "gemini-3-flash", contents, config)
			require.NoError(t, err, "the API takes every declaration: %v", srv.Requests()[0].Refused)
			contents = append(contents, ai.Run(ctx, struct{}{}, resp)...)
			_, err = client.Models.GenerateContent(ctx, "gemini-3-flash", contents, config)
			require.NoError(t, err, "%v", srv.Requests()[len(srv.Requests())-1].Refused)
			for _, sh := range list {
				want := sh.Received
				if want == nil {
					want = sh.Call
				}
				if assert.NotNil(t, got[sh.Name], "%s did not run", sh.Name) {
					assert.JSONEq(t, string(want), string(got[sh.Name]), sh.Name)
				}
			}
		})
	}
}
