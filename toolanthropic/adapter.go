package toolanthropic

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// Options configures an Adapter. A nil *Options means the defaults.
type Options struct {
	// Strict exports every tool with Anthropic's strict tool use
	// ("strict": true) when its schema allows: the API then holds the
	// model's calls to the schema. Objects are closed (additionalProperties
	// false), keywords strict tool use lacks (minLength, minimum, …) move
	// into the descriptions, and optional keys stay optional. A tool whose
	// schema cannot be strict (a free-form map, a recursive type), or that
	// would go past Anthropic's limits on strict tools per request (20
	// tools, 24 optional parameters, 16 parameters with unions), is sent
	// with strict false, and Warnings says why. The default is false.
	Strict bool
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
	x       *dialect.Exporter
	schemas *schemaCache
}

// New returns an Adapter for reg. opts may be nil.
func New[C any](reg *tool.Registry[C], opts *Options) *Adapter[C] {
	a := &Adapter[C]{reg: reg, schemas: &schemaCache{}}
	if opts != nil {
		a.opts = *opts
	}
	target := dialect.Anthropic
	if a.opts.Strict {
		target = dialect.AnthropicStrict
	}
	a.x = dialect.NewExporter(reg, target)
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
// per change, each with Warning.Tool set and a Severity: anyOf, oneOf and
// allOf at the top level said in the description, property names the API
// refuses renamed (the calls are mapped back), and with Options.Strict the
// keywords moved and the tools sent non-strict.
func (a *Adapter[C]) Warnings() []dialect.Warning { return a.x.Warnings() }

// Tools returns the registry's tools as the SDK's tool params, for
// anthropic.MessageNewParams.Tools.
func (a *Adapter[C]) Tools() []anthropic.ToolUnionParam {
	tools := a.x.Tools()
	out := make([]anthropic.ToolUnionParam, 0, len(tools))
	for _, e := range tools {
		t := &anthropic.ToolParam{Name: e.Name, InputSchema: a.schemas.of(e.Schema)}
		if e.Description != "" {
			t.Description = anthropic.String(e.Description)
		}
		if a.opts.Strict {
			t.Strict = anthropic.Bool(e.Target.Strict())
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: t})
	}
	return out
}

// schemaCache keeps each exported schema in the SDK's ToolInputSchemaParam:
// properties and required in their fields, every other member (additional
// properties, $defs, a description) in ExtraFields, each kept as raw JSON
// so that property order holds.
type schemaCache struct {
	m  sync.Map // *byte (the schema's first byte) → anthropic.ToolInputSchemaParam
	mu sync.Mutex
	n  int
}

// of returns the input schema param for schema, which the caller may
// change.
func (c *schemaCache) of(schema json.RawMessage) anthropic.ToolInputSchemaParam {
	var in anthropic.ToolInputSchemaParam
	if len(schema) > 0 {
		if v, ok := c.m.Load(&schema[0]); ok {
			in = v.(anthropic.ToolInputSchemaParam)
		} else {
			in = inputSchema(schema)
			c.mu.Lock()
			if c.n++; c.n > 4096 {
				c.m.Clear() // schemas of tools long gone; the live ones come back
				c.n = 1
			}
			c.mu.Unlock()
			c.m.Store(&schema[0], in)
		}
	}
	in.Required = slices.Clone(in.Required)
	in.ExtraFields = maps.Clone(in.ExtraFields)
	if in.Properties == nil {
		// A schema of only "type": "object" would leave the param empty,
		// and the SDK leaves an empty input_schema out, which the API
		// refuses: no properties, said explicitly, means the same.
		in.Properties = json.RawMessage(`{}`)
	}
	return in
}

func inputSchema(schema json.RawMessage) anthropic.ToolInputSchemaParam {
	var in anthropic.ToolInputSchemaParam
	var members map[string]json.RawMessage
	_ = json.Unmarshal(schema, &members) // the exporter's output is always an object
	for k, v := range members {
		switch k {
		case "type":
		case "properties":
			in.Properties = v
		case "required":
			_ = json.Unmarshal(v, &in.Required)
		default:
			if in.ExtraFields == nil {
				in.ExtraFields = map[string]any{}
			}
			in.ExtraFields[k] = v
		}
	}
	return in
}
