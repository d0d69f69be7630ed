package toolopenai

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// Options configures an Adapter. A nil *Options means the defaults.
type Options struct {
	// Strict exports every tool in OpenAI's strict mode (Structured
	// Outputs) when its schema can be made strict: every key required,
	// the optional ones nullable, keywords strict mode lacks moved to the
	// descriptions. A tool whose schema cannot be made strict (a free-form
	// map, a value of any type) is exported with strict false, and
	// Warnings says why. Calls to tools exported strict are made with
	// tool.Request.NullMeansAbsent, so the nulls a strict model sends for
	// the keys it does not use mean "absent". The default is false: schemas
	// are sent as they are.
	Strict bool
	// Batch configures how RunChat and RunResponse run a turn's calls
	// (see tool.Registry.CallBatch). Nil means the defaults.
	Batch *tool.BatchOptions
}

// Adapter connects a tool.Registry to OpenAI's Go SDK: it exports the
// registry's tools as the SDK's tool params, turns the model's tool calls
// into tool.Requests, and the registry's results into the SDK's tool
// messages, for Chat Completions and the Responses API alike.
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

// Warnings returns what exporting the registry's tools changed or could not
// keep, one entry per keyword (with Warning.Tool set): keywords moved into
// descriptions, rewritten, or the reason a tool was sent non-strict.
func (a *Adapter[C]) Warnings() []dialect.Warning {
	var out []dialect.Warning
	for _, e := range a.export() {
		out = append(out, e.warnings...)
	}
	return out
}

// call is one tool call of the model, as the SDK gave it.
type call struct {
	id, name string
	args     []byte
}

// requests makes the tool.Requests for one turn's calls.
func (a *Adapter[C]) requests(calls []call) []tool.Request {
	if len(calls) == 0 {
		return nil
	}
	strict := map[string]bool{}
	if a.opts.Strict {
		for _, e := range a.export() {
			strict[e.def.Name] = e.strict
		}
	}
	reqs := make([]tool.Request, len(calls))
	for i, c := range calls {
		reqs[i] = tool.Request{ID: c.id, Name: c.name, Args: c.args, Session: a.session, NullMeansAbsent: strict[c.name]}
	}
	return reqs
}

// exported is one tool as the adapter sends it.
type exported struct {
	def      tool.Definition
	schema   json.RawMessage
	params   map[string]any // schema's members, each kept as raw JSON so property order holds
	strict   bool
	warnings []dialect.Warning
}

// cache keeps the conversions of the registry's schemas, redone only for
// a tool whose definition changed.
type cache struct {
	mu    sync.Mutex
	byKey map[string]*exported
}

// export returns the registry's tools as they are sent.
func (a *Adapter[C]) export() []*exported {
	defs := a.reg.Definitions()
	target := dialect.OpenAI
	if a.opts.Strict {
		target = dialect.OpenAIStrict
	}
	a.cache.mu.Lock()
	defer a.cache.mu.Unlock()
	if a.cache.byKey == nil {
		a.cache.byKey = map[string]*exported{}
	}
	out := make([]*exported, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for _, d := range defs {
		key := target.String() + "\x00" + d.Name
		seen[key] = true
		e := a.cache.byKey[key]
		if e == nil || !bytes.Equal(e.def.InputSchema, d.InputSchema) || e.def.Description != d.Description {
			e = convert(d, target)
			a.cache.byKey[key] = e
		}
		out = append(out, e)
	}
	for key := range a.cache.byKey {
		if !seen[key] {
			delete(a.cache.byKey, key)
		}
	}
	return out
}

func convert(d tool.Definition, target dialect.Target) *exported {
	e := &exported{def: d, schema: d.InputSchema}
	c, err := dialect.Convert(d.InputSchema, target)
	if err != nil {
		// A registry's schemas always convert; keep the tool usable if one
		// does not, and say so.
		e.warnings = []dialect.Warning{{Tool: d.Name, Target: target, Action: dialect.Fallback, Note: err.Error()}}
	} else {
		e.schema, e.strict, e.warnings = c.Schema, c.Target == dialect.OpenAIStrict, c.Warnings
		for i := range e.warnings {
			e.warnings[i].Tool = d.Name
		}
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(e.schema, &members) == nil {
		e.params = make(map[string]any, len(members))
		for k, v := range members {
			e.params[k] = v
		}
	}
	return e
}
