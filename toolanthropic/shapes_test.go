package toolanthropic_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"
	"github.com/toolbelt-go/tool/toolanthropic/anthropictest"
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
// through the SDK to the local API, which refuses what Anthropic refuses;
// each shape's call, made as a model makes it under what it was sent (the
// renamed keys included), reaches its tool as meant. Strict or not.
func TestShapesThroughTheSDK(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-strict", true: "strict"}[strict], func(t *testing.T) {
			reg, list, got := corpus(t)
			ai := toolanthropic.New(reg, &toolanthropic.Options{Strict: strict})
			var calls []anthropictest.Call
			for _, sh := range list {
				c, err := dialect.Convert(sh.Schema, dialect.Anthropic)
				require.NoError(t, err)
				var v any
				require.NoError(t, json.Unmarshal(sh.Call, &v))
				b, _ := json.Marshal(renamed(v, c.Renamed))
				calls = append(calls, anthropictest.Call{ID: "toolu_" + sh.Name, Name: sh.Name, Input: string(b)})
			}
			srv := anthropictest.NewServer(anthropictest.Calls(calls...), anthropictest.Text("done"))
			defer srv.Close()
			client := srv.Client()
			ctx := context.Background()
			params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: ai.Tools(),
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("go"))}}
			msg, err := client.Messages.New(ctx, params)
			require.NoError(t, err, "the API takes every tool: %v", srv.Requests()[0].Refused)
			params.Messages = append(params.Messages, ai.Run(ctx, struct{}{}, msg)...)
			_, err = client.Messages.New(ctx, params)
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
			if strict {
				n := 0
				for _, tl := range srv.Requests()[0].Tools {
					if tl.Strict {
						n++
					}
				}
				assert.Equal(t, 20, n, "as many strict tools as Anthropic allows in a request")
			}
		})
	}
}

// renamed is v with each key the provider is sent under another name
// (renamed: as sent → as declared) under that name, as the model sends it.
func renamed(v any, sentAs map[string]string) any {
	inv := map[string]string{}
	for s, o := range sentAs {
		inv[o] = s
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				if s, ok := inv[k]; ok {
					k = s
				}
				out[k] = walk(e)
			}
			return out
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	return walk(v)
}
