package toolgemini

import (
	"bytes"
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

// Tools returns the registry's tools as one genai.Tool holding a function
// declaration per tool, for genai.GenerateContentConfig.Tools. A tool whose
// name Gemini refuses (one that starts with a digit or a dash) is left out,
// with a warning, rather than failing every request.
func (a *Adapter[C]) Tools() []*genai.Tool {
	exp := a.export()
	decls := make([]*genai.FunctionDeclaration, 0, len(exp))
	for _, e := range exp {
		if !e.omitted {
			decls = append(decls, e.decl())
		}
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}
}

// Warnings returns what exporting the registry's tools changed or could not
// keep, one entry per keyword (with Warning.Tool set): keywords moved into
// descriptions, rewritten, or the reason a tool's parameters were sent as
// parametersJsonSchema.
func (a *Adapter[C]) Warnings() []dialect.Warning {
	var out []dialect.Warning
	for _, e := range a.export() {
		out = append(out, e.warnings...)
	}
	return out
}

// exported is one tool as the adapter sends it.
type exported struct {
	def      tool.Definition
	schema   *genai.Schema   // the Schema object, or nil
	json     json.RawMessage // parametersJsonSchema, when schema is nil
	warnings []dialect.Warning
	omitted  bool // not sent: Gemini would refuse the whole request
}

// decl returns a fresh declaration, which the caller may change.
func (e *exported) decl() *genai.FunctionDeclaration {
	d := &genai.FunctionDeclaration{Name: e.def.Name, Description: e.def.Description}
	switch {
	case e.schema != nil && len(e.schema.Properties) > 0:
		d.Parameters = cloneSchema(e.schema)
	case e.json != nil:
		d.ParametersJsonSchema = e.json
	}
	// A tool with no parameters leaves parameters unset, as the API wants.
	return d
}

func cloneSchema(s *genai.Schema) *genai.Schema {
	b, _ := json.Marshal(s)
	var c genai.Schema
	_ = json.Unmarshal(b, &c)
	return &c
}

// cache keeps the conversions of the registry's schemas, redone only for
// a tool whose definition changed.
type cache struct {
	mu     sync.Mutex
	byName map[string]*exported
}

func (a *Adapter[C]) export() []*exported {
	defs := a.reg.Definitions()
	target := dialect.Gemini
	if a.opts.JSONSchema {
		target = dialect.GeminiJSON
	}
	a.cache.mu.Lock()
	defer a.cache.mu.Unlock()
	if a.cache.byName == nil {
		a.cache.byName = map[string]*exported{}
	}
	out := make([]*exported, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for _, d := range defs {
		key := target.String() + "\x00" + d.Name
		seen[key] = true
		e := a.cache.byName[key]
		if e == nil || !bytes.Equal(e.def.InputSchema, d.InputSchema) || e.def.Description != d.Description {
			e = convert(d, target)
			a.cache.byName[key] = e
		}
		out = append(out, e)
	}
	for key := range a.cache.byName {
		if !seen[key] {
			delete(a.cache.byName, key)
		}
	}
	return out
}

func convert(d tool.Definition, target dialect.Target) *exported {
	e := &exported{def: d}
	if !geminiName(d.Name) {
		// The registry accepts names Gemini does not ("2fa", "-x"); sending
		// one would fail every request, so the tool is left out and said so.
		e.omitted = true
		e.warnings = []dialect.Warning{{Tool: d.Name, Target: target, Keyword: "name", Action: dialect.Dropped,
			Note: "Gemini wants a function name that starts with a letter or an underscore; the tool is not sent: rename it"}}
		return e
	}
	c, err := dialect.Convert(d.InputSchema, target)
	if err != nil {
		e.json = d.InputSchema
		e.warnings = []dialect.Warning{{Tool: d.Name, Target: target, Action: dialect.Fallback, Note: err.Error()}}
		return e
	}
	e.warnings = c.Warnings
	for i := range e.warnings {
		e.warnings[i].Tool = d.Name
	}
	if c.Target == dialect.Gemini {
		var s genai.Schema
		if json.Unmarshal(c.Schema, &s) == nil {
			e.schema = &s
			return e
		}
	}
	e.json = c.Schema
	return e
}

// geminiName reports whether Gemini accepts name as a function name: it
// must start with a letter or an underscore. The registry has already
// checked the rest (at most 64 of letters, digits, '_' and '-').
func geminiName(name string) bool {
	if name == "" {
		return false
	}
	c := name[0]
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
