package toolgemini

import (
	"encoding/json"
	"sync"

	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// Options configures an Adapter. A nil *Options means the defaults.
type Options struct {
	// JSONSchema exports every tool's parameters as parametersJsonSchema,
	// the JSON Schema subset of newer Gemini models, instead of the
	// Schema object (an OpenAPI 3.0 subset). By default the Schema object
	// is used, and parametersJsonSchema only for a tool it cannot express:
	// a free-form map, a value of any type, a recursive type, a tuple.
	JSONSchema bool
	// Batch configures how Run runs a turn's calls (see
	// tool.Registry.CallBatch). Nil means the defaults.
	Batch *tool.BatchOptions
}

// Adapter connects a tool.Registry to Google's Gen AI Go SDK
// (google.golang.org/genai): it exports the registry's tools as function
// declarations, turns the model's FunctionCall parts into tool.Requests,
// and the registry's results into FunctionResponse parts.
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
	target := dialect.Gemini
	if a.opts.JSONSchema {
		target = dialect.GeminiJSON
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

// Tools returns the registry's tools as one genai.Tool holding a function
// declaration per tool, for genai.GenerateContentConfig.Tools. A tool
// whose name or parameter names Gemini refuses is sent under names it
// accepts, and its calls are mapped back; a tool no form of Gemini's
// schemas can express is left out, with a warning, rather than failing
// every request.
func (a *Adapter[C]) Tools() []*genai.Tool {
	exp := a.x.Tools()
	decls := make([]*genai.FunctionDeclaration, 0, len(exp))
	for _, e := range exp {
		d := &genai.FunctionDeclaration{Name: e.Name, Description: e.Description}
		switch {
		case e.Schema == nil:
			// No parameters: Gemini wants parameters unset.
		case e.Target == dialect.Gemini:
			s, ok := a.schemas.of(e.Schema)
			if !ok {
				continue // never sent in the wrong form; the fuzz test holds the exporter to this
			}
			d.Parameters = s
		default:
			d.ParametersJsonSchema = e.Schema
		}
		decls = append(decls, d)
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}
}

// Warnings returns what exporting the registry's tools changed or could not
// keep, one entry per change, each with Warning.Tool set and a Severity:
// keywords moved into descriptions, names renamed, the reason a tool's
// parameters were sent as parametersJsonSchema (Lossy), or why a tool was
// left out (Severe).
func (a *Adapter[C]) Warnings() []dialect.Warning { return a.x.Warnings() }

// schemaCache keeps each exported Schema object decoded into the SDK's
// type, and gives each caller its own copy.
type schemaCache struct {
	m  sync.Map // *byte (the schema's first byte) → []byte, the schema checked to decode
	mu sync.Mutex
	n  int
}

func (c *schemaCache) of(schema json.RawMessage) (*genai.Schema, bool) {
	var s genai.Schema
	if _, ok := c.m.Load(&schema[0]); ok {
		_ = json.Unmarshal(schema, &s) // decoded before: it decodes
		return &s, true
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, false
	}
	c.mu.Lock()
	if c.n++; c.n > 4096 {
		c.m.Clear()
		c.n = 1
	}
	c.mu.Unlock()
	c.m.Store(&schema[0], true)
	return &s, true
}
