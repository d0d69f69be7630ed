package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestRegistryAddRejects(t *testing.T) {
	good := tool.Definition{Name: "ok", Description: "fine"}
	rawDef := func(name, schema string) tool.AnyTool {
		return tool.NewRaw(tool.Definition{Name: name, Description: "raw", InputSchema: json.RawMessage(schema)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return nil, nil })
	}
	type withChan struct {
		C chan int `json:"c"`
	}
	type node struct {
		Kids []node `json:"kids"`
	}
	tests := []struct {
		name  string
		tools []tool.Definer
		says  []string
	}{
		{"bad name", []tool.Definer{tool.New(tool.Definition{Name: "has space", Description: "x"}, func(context.Context, noArgs) (string, error) { return "", nil })}, []string{"invalid name"}},
		{"long name", []tool.Definer{tool.New(tool.Definition{Name: strings.Repeat("a", 65), Description: "x"}, func(context.Context, noArgs) (string, error) { return "", nil })}, []string{"invalid name"}},
		{"empty description", []tool.Definer{tool.New(tool.Definition{Name: "x"}, func(context.Context, noArgs) (string, error) { return "", nil })}, []string{"description is empty"}},
		{"duplicate in call", []tool.Definer{newSearch(), newSearch()}, []string{"appears twice"}},
		{"chan field", []tool.Definer{tool.New(good, func(context.Context, withChan) (string, error) { return "", nil })}, []string{"chan cannot be a tool argument"}},
		{"recursive", []tool.Definer{tool.New(good, func(context.Context, node) (string, error) { return "", nil })}, []string{"recursive"}},
		{"non-struct args", []tool.Definer{tool.New(good, func(context.Context, int) (string, error) { return "", nil })}, []string{"not a struct"}},
		{"schema not object", []tool.Definer{rawDef("r", `{"type":"string"}`)}, []string{`"type": "object"`}},
		{"schema not json", []tool.Definer{rawDef("r", `{"type":`)}, []string{"not valid JSON"}},
		{"schema too deep", []tool.Definer{rawDef("r", `{"type":"object","default":`+strings.Repeat("[", 300)+strings.Repeat("]", 300)+`}`)}, []string{"more than 256 deep"}},
		// The validator's compiler takes time that grows with the square of
		// the subschemas: 20,000 of them took it 1.9 s and 170 MB.
		{"schema of too many objects", []tool.Definer{rawDef("r", `{"type":"object","allOf":[`+strings.Repeat(`{},`, 20_000)+`{}]}`)}, []string{"more than 4096 objects", "$defs"}},
		{"schema bad keyword", []tool.Definer{rawDef("r", `{"type":"object","properties":{"a":{"minimum":"x"}}}`)}, []string{"does not compile"}},
		{"external ref file", []tool.Definer{rawDef("r", `{"type":"object","properties":{"a":{"$ref":"other.json"}}}`)}, []string{"outside itself"}},
		{"external ref url", []tool.Definer{rawDef("r", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)}, []string{"outside itself"}},
		{"raw without schema", []tool.Definer{tool.NewRaw(tool.Definition{Name: "r", Description: "x"}, nil)}, []string{"needs Definition.InputSchema"}},
		{"nil tool", []tool.Definer{nil}, []string{"nil"}},
		{"every problem named", []tool.Definer{rawDef("bad name", `{"type":"string"}`), tool.New(tool.Definition{Name: "y"}, func(context.Context, noArgs) (string, error) { return "", nil })}, []string{"invalid name", `"type": "object"`, "description is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tool.NewRegistry[struct{}](nil)
			err := r.Add(tt.tools...)
			require.Error(t, err)
			for _, s := range tt.says {
				assert.Contains(t, err.Error(), s)
			}
			var de *tool.DefinitionError
			assert.ErrorAs(t, err, &de)
			assert.Empty(t, r.Definitions(), "nothing is added when anything is wrong")
		})
	}
	t.Run("duplicate across calls", func(t *testing.T) {
		r := newRegistry(t, newSearch())
		assert.ErrorContains(t, r.Add(newSearch()), "already registered")
	})
	t.Run("MustAdd panics with prefix", func(t *testing.T) {
		r := tool.NewRegistry[struct{}](nil)
		assert.PanicsWithValue(t, `tool: tool "x": the description is empty; the model needs it to know when to call the tool`, func() {
			r.MustAdd(tool.New(tool.Definition{Name: "x"}, func(context.Context, noArgs) (string, error) { return "", nil }))
		})
	})
}

func TestAddTakesBothKinds(t *testing.T) {
	stateFree := tool.New(tool.Definition{Name: "ping", Description: "Answers pong."},
		func(context.Context, struct{}) (string, error) { return "pong", nil })
	withState := tool.NewFor(tool.Definition{Name: "whoami", Description: "Names the user."},
		func(_ context.Context, c *tool.Call[session], _ struct{}) (string, error) { return c.State.user, nil })
	r := tool.NewRegistry[session](nil)
	require.NoError(t, r.Add(stateFree, withState))
	assert.Equal(t, "pong", r.Call(context.Background(), session{}, tool.Request{Name: "ping"}).Text())
	assert.Equal(t, "ada", r.Call(context.Background(), session{"ada"}, tool.Request{Name: "whoami"}).Text())
}

func TestAddRefusesAToolForAnotherState(t *testing.T) {
	withState := tool.NewFor(tool.Definition{Name: "whoami", Description: "Names the user."},
		func(_ context.Context, c *tool.Call[session], _ struct{}) (string, error) { return c.State.user, nil })
	err := tool.NewRegistry[int](nil).Add(withState)
	var de *tool.DefinitionError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, "whoami", de.Tool)
	assert.Contains(t, err.Error(), "tool_test.session")
	assert.Contains(t, err.Error(), "this registry's state type is int")
}
