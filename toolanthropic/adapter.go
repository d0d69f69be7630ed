package toolanthropic

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// Options configures an Adapter. A nil *Options means the defaults.
type Options struct {
	// Batch configures how Run runs a turn's calls (see
	// tool.Registry.CallBatch). Nil means the defaults.
	Batch *tool.BatchOptions
}

// Adapter connects a tool.Registry to Anthropic's Go SDK: it exports the
// registry's tools as the SDK's tool params, turns the model's tool_use
// blocks into tool.Requests, and the registry's results into tool_result
// blocks.
//
// An Adapter follows the registry: tools added later are exported by the
// next call. It is safe for concurrent use.
type Adapter[C any] struct {
	reg     *tool.Registry[C]
	opts    Options
	session string
	cache   *cache
}

// New returns an Adapter for reg. opts may be nil.
func New[C any](reg *tool.Registry[C], opts *Options) *Adapter[C] {
	a := &Adapter[C]{reg: reg, cache: &cache{}}
	if opts != nil {
		a.opts = *opts
	}
	return a
}

// WithSession returns a copy of the adapter whose requests belong to the
// conversation session (tool.Request.Session): pagination cursors and
// "allow always" answers are bound to it. Make one per conversation; the
// copies share the exported schemas.
func (a *Adapter[C]) WithSession(session string) *Adapter[C] {
	b := *a
	b.session = session
	return &b
}

// Warnings returns what exporting the registry's tools changed, one entry
// per keyword (with Warning.Tool set). Anthropic takes JSON Schema as it
// is, so the only changes are to anyOf, oneOf and allOf at the top level,
// which the API refuses.
func (a *Adapter[C]) Warnings() []dialect.Warning {
	var out []dialect.Warning
	for _, e := range a.export() {
		out = append(out, e.warnings...)
	}
	return out
}

// Tools returns the registry's tools as the SDK's tool params, for
// anthropic.MessageNewParams.Tools.
func (a *Adapter[C]) Tools() []anthropic.ToolUnionParam {
	var out []anthropic.ToolUnionParam
	for _, e := range a.export() {
		input := e.input // the caller may change what it is given
		input.Required = slices.Clone(input.Required)
		input.ExtraFields = maps.Clone(input.ExtraFields)
		t := &anthropic.ToolParam{Name: e.def.Name, InputSchema: input}
		if e.def.Description != "" {
			t.Description = anthropic.String(e.def.Description)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: t})
	}
	return out
}

// exported is one tool as the adapter sends it.
type exported struct {
	def      tool.Definition
	input    anthropic.ToolInputSchemaParam
	warnings []dialect.Warning
}

// cache keeps the conversions of the registry's schemas, redone only for
// a tool whose definition changed.
type cache struct {
	mu     sync.Mutex
	byName map[string]*exported
}

func (a *Adapter[C]) export() []*exported {
	defs := a.reg.Definitions()
	a.cache.mu.Lock()
	defer a.cache.mu.Unlock()
	if a.cache.byName == nil {
		a.cache.byName = map[string]*exported{}
	}
	out := make([]*exported, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for _, d := range defs {
		seen[d.Name] = true
		e := a.cache.byName[d.Name]
		if e == nil || !bytes.Equal(e.def.InputSchema, d.InputSchema) || e.def.Description != d.Description {
			e = convert(d)
			a.cache.byName[d.Name] = e
		}
		out = append(out, e)
	}
	for name := range a.cache.byName {
		if !seen[name] {
			delete(a.cache.byName, name)
		}
	}
	return out
}

// convert puts a definition's schema in the SDK's ToolInputSchemaParam:
// properties and required in their fields, every other member (additional
// properties, $defs, a description) in ExtraFields, each kept as raw JSON
// so that property order holds.
func convert(d tool.Definition) *exported {
	e := &exported{def: d}
	schema := d.InputSchema
	c, err := dialect.Convert(d.InputSchema, dialect.Anthropic)
	if err != nil {
		e.warnings = []dialect.Warning{{Tool: d.Name, Target: dialect.Anthropic, Action: dialect.Fallback, Note: err.Error()}}
	} else {
		schema, e.warnings = c.Schema, c.Warnings
		for i := range e.warnings {
			e.warnings[i].Tool = d.Name
		}
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(schema, &members)
	for k, v := range members {
		switch k {
		case "type":
		case "properties":
			e.input.Properties = v
		case "required":
			_ = json.Unmarshal(v, &e.input.Required)
		default:
			if e.input.ExtraFields == nil {
				e.input.ExtraFields = map[string]any{}
			}
			e.input.ExtraFields[k] = v
		}
	}
	return e
}
