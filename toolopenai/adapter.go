package toolopenai

import (
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
	// the keys it does not use mean "absent". The default is false:
	// schemas are sent as OpenAI takes them with strict off.
	Strict bool
	// Stateless is for the Responses API with store: false, where OpenAI
	// keeps nothing and no previous_response_id can point to the last
	// response: RunResponse then returns the response's own output items
	// (reasoning, messages, function calls) before the outputs that answer
	// its calls, so the next request's input carries the whole
	// conversation. Set the request's Store to openai.Bool(false) too, and
	// ask for "reasoning.encrypted_content" in Include to keep a reasoning
	// model's reasoning across turns.
	Stateless bool
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
	x       *dialect.Exporter
	params  *paramsCache
}

// New returns an Adapter for reg. opts may be nil.
func New[C any](reg *tool.Registry[C], opts *Options) *Adapter[C] {
	a := &Adapter[C]{reg: reg, params: &paramsCache{}}
	if opts != nil {
		a.opts = *opts
	}
	target := dialect.OpenAI
	if a.opts.Strict {
		target = dialect.OpenAIStrict
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

// Warnings returns what exporting the registry's tools changed or could not
// keep, one entry per change, each with Warning.Tool set and a Severity:
// keywords moved into descriptions (Notice), the reason a tool was sent
// non-strict (Lossy).
func (a *Adapter[C]) Warnings() []dialect.Warning { return a.x.Warnings() }

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
	reqs := make([]tool.Request, len(calls))
	for i, c := range calls {
		reqs[i] = a.x.Request(c.id, c.name, c.args)
		reqs[i].Session = a.session
	}
	return reqs
}

// paramsCache keeps each exported schema split into its top-level members,
// each kept as raw JSON so that property order holds: what the SDK's
// FunctionParameters map holds.
type paramsCache struct {
	m  sync.Map // *byte (the schema's first byte) → map[string]json.RawMessage
	n  int
	mu sync.Mutex
}

// of returns a fresh map of schema's members, which the caller may change.
func (p *paramsCache) of(schema json.RawMessage) map[string]any {
	if len(schema) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}
	}
	key := &schema[0]
	members, ok := p.m.Load(key)
	if !ok {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(schema, &m) // the exporter's output is always an object
		p.mu.Lock()
		if p.n++; p.n > 4096 {
			p.m.Clear() // schemas of tools long gone; the live ones come back
			p.n = 1
		}
		p.mu.Unlock()
		members, _ = p.m.LoadOrStore(key, m)
	}
	m := members.(map[string]json.RawMessage)
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
