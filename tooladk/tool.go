package tooladk

import (
	"encoding/json"
	"fmt"
	"sync"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/model"
	adktool "google.golang.org/adk/tool"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool/dialect"
)

// functionTool is one registry tool as ADK's flow sees a function tool:
// the method set of ADK's internal FunctionTool and RequestProcessor
// interfaces (Declaration, Run, ProcessRequest), which functiontool's
// tools have too.
type functionTool[C any] struct {
	set *Toolset[C]
	exp dialect.Exported
}

// Name returns the name the model calls the tool by: the registry's name,
// unless Gemini refuses it.
func (f *functionTool[C]) Name() string { return f.exp.Name }

// Description returns the tool's description.
func (f *functionTool[C]) Description() string { return f.exp.Description }

// IsLongRunning reports false: a call answers when it ends (a long call
// reports progress to the registry's observer).
func (f *functionTool[C]) IsLongRunning() bool { return false }

// Declaration returns the function declaration Gemini is sent: the
// parameters as the Schema object, or as parametersJsonSchema where the
// Schema object cannot express them (or Options.JSONSchema asks). Each
// call returns a declaration of its own; the schema in it is shared, as
// functiontool's is, and must not be modified.
func (f *functionTool[C]) Declaration() *genai.FunctionDeclaration {
	d := &genai.FunctionDeclaration{Name: f.exp.Name, Description: f.exp.Description}
	switch {
	case f.exp.Schema == nil:
		// No parameters: Gemini wants parameters unset.
	case f.exp.Target == dialect.Gemini:
		if s, ok := f.set.schemas.of(f.exp.Schema); ok {
			d.Parameters = s
			break
		}
		// Unreachable: the exporter's Gemini form decodes (its fuzz target
		// holds it to that). Sent as JSON Schema rather than with no
		// parameters.
		d.ParametersJsonSchema = f.exp.Schema
	default:
		d.ParametersJsonSchema = f.exp.Schema
	}
	return d
}

// schemaCache keeps each exported Schema object decoded into genai's type:
// the flow asks for every tool's declaration before each model request,
// and a decode costs more than the rest of the request's preparation.
// The exporter keeps a tool's schema bytes until its definition changes,
// so their address names them.
type schemaCache struct {
	m  sync.Map // *byte (the schema's first byte) → *genai.Schema
	mu sync.Mutex
	n  int
}

func (c *schemaCache) of(schema json.RawMessage) (*genai.Schema, bool) {
	if s, ok := c.m.Load(&schema[0]); ok {
		return s.(*genai.Schema), true
	}
	s := new(genai.Schema)
	if json.Unmarshal(schema, s) != nil {
		return nil, false
	}
	c.mu.Lock()
	if c.n++; c.n > 4096 {
		// Definitions changed this often: start again rather than keep
		// the schemas of tools long gone.
		c.m.Clear()
		c.n = 1
	}
	c.mu.Unlock()
	c.m.Store(&schema[0], s)
	return s, true
}

// ProcessRequest adds the tool to an LLM request, as ADK's function tools
// do: its declaration among the request's function declarations, itself
// under its name in req.Tools, where the flow finds it when the model
// calls it.
func (f *functionTool[C]) ProcessRequest(_ agent.ToolContext, req *model.LLMRequest) error {
	if req.Tools == nil {
		req.Tools = make(map[string]any)
	}
	if _, ok := req.Tools[f.exp.Name]; ok {
		return fmt.Errorf("tooladk: duplicate tool %q in the request (two toolsets of one agent offer it)", f.exp.Name)
	}
	req.Tools[f.exp.Name] = f
	if req.Config == nil {
		req.Config = &genai.GenerateContentConfig{}
	}
	for _, t := range req.Config.Tools {
		if t != nil && t.FunctionDeclarations != nil {
			t.FunctionDeclarations = append(t.FunctionDeclarations, f.Declaration())
			return nil
		}
	}
	req.Config.Tools = append(req.Config.Tools, &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{f.Declaration()}})
	return nil
}

// Run makes the call through the registry (see [Toolset]). The model's
// answer is the map it returns; the error is only ever a [*StateError].
func (f *functionTool[C]) Run(ctx agent.ToolContext, args any) (map[string]any, error) {
	return f.set.run(ctx, f.exp.Name, args)
}

var _ adktool.Tool = (*functionTool[struct{}])(nil)
