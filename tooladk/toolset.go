package tooladk

import (
	"slices"

	"google.golang.org/adk/agent"
	adktool "google.golang.org/adk/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// DefaultName is the name of a [Toolset] whose Options name none.
const DefaultName = "toolbelt"

// Options configures a [Toolset]. A nil *Options means the defaults.
type Options[C any] struct {
	// Name is the toolset's name, as ADK's tool.Toolset reports it. Empty
	// means [DefaultName].
	Name string
	// Tools names the registry's tools the toolset offers, in place of
	// all of them: a chosen subset for one agent. The registry's
	// read_output tool ([tool.ReadOutputTool]) is offered with them
	// whenever the registry has it, since a cut result tells the model to
	// call it. A name the registry does not hold is reported by Warnings.
	// Nil means every tool the registry lists.
	Tools []string
	// State returns the host's per-call state for a call, from ADK's
	// context: the session's state, the user, the artifacts, a value the
	// host put in the Go context. It runs before the call enters the
	// pipeline; an error answers the call without running it (see
	// [StateError]). Nil means the zero C.
	State func(ctx agent.ToolContext) (C, error)
	// Session names the conversation a call belongs to
	// ([tool.Request].Session): records, page cursors, read_output and
	// "allow always" are bound to it. Nil means ADK's session, named by
	// its app, user and session IDs together (a session ID alone may be
	// the same for two users).
	Session func(ctx agent.ToolContext) string
	// JSONSchema sends every tool's parameters as parametersJsonSchema,
	// the JSON Schema subset of newer Gemini models (dialect.GeminiJSON),
	// instead of the Schema object (dialect.Gemini). By default the Schema
	// object is used, and parametersJsonSchema only for a tool it cannot
	// express (a free-form map, a value of any type, a recursive type).
	JSONSchema bool
}

// Toolset is a [tool.Registry]'s tools as ADK's own: a tool.Toolset for
// llmagent.Config.Toolsets whose tools ADK's flow calls as native function
// tools. Each call goes through [tool.Registry.Call] with ADK's
// function-call ID as its ID and the ADK session as its session, so
// preflight, records, approval, limits, deadlines, output caps and events
// all apply, and the model reads the registry's result: a call whose
// arguments preflight refuses gets the retry hint as
// {"error": "<hint>"}, as a failed tool's answer, never as an ADK error.
//
// A Toolset follows the registry: tools added later are offered from the
// next model request on. It is safe for concurrent use.
type Toolset[C any] struct {
	reg  *tool.Registry[C]
	opts Options[C]
	x    *dialect.Exporter
	// chosen is Options.Tools as a set, nil for every tool.
	chosen  map[string]bool
	schemas schemaCache
}

// New returns the toolset of reg's tools. opts may be nil.
func New[C any](reg *tool.Registry[C], opts *Options[C]) *Toolset[C] {
	t := &Toolset[C]{reg: reg}
	if opts != nil {
		t.opts = *opts
		t.opts.Tools = slices.Clone(opts.Tools)
	}
	if t.opts.Name == "" {
		t.opts.Name = DefaultName
	}
	var src dialect.Source = reg
	if t.opts.Tools != nil {
		t.chosen = make(map[string]bool, len(t.opts.Tools)+1)
		for _, n := range t.opts.Tools {
			t.chosen[n] = true
		}
		t.chosen[tool.ReadOutputTool] = true
		src = subset[C]{reg: reg, chosen: t.chosen}
	}
	target := dialect.Gemini
	if t.opts.JSONSchema {
		target = dialect.GeminiJSON
	}
	t.x = dialect.NewExporter(src, target)
	return t
}

// Name returns the toolset's name (Options.Name).
func (t *Toolset[C]) Name() string { return t.opts.Name }

// Tools returns the tools as ADK's tool.Tool values: each a function tool
// with the declaration Gemini is sent ([Toolset.Declarations]) and a Run
// that goes through the registry. A tool whose name Gemini refuses is
// offered under a name it accepts, and its calls are mapped back; a tool
// no form of Gemini's schemas can express is left out (Warnings says why)
// rather than failing every request. ctx is not used: the registry, not
// the invocation, decides what is offered.
func (t *Toolset[C]) Tools(agent.ReadonlyContext) ([]adktool.Tool, error) {
	exp := t.x.Tools()
	out := make([]adktool.Tool, 0, len(exp))
	for _, e := range exp {
		out = append(out, &functionTool[C]{set: t, exp: e})
	}
	return out, nil
}

// Warnings returns what putting the tools in Gemini's form changed or
// could not keep, each with Warning.Tool set and a Severity (see package
// dialect): keywords moved into descriptions, names renamed, a tool sent
// as parametersJsonSchema (Lossy), a tool left out (Severe). A name in
// Options.Tools that the registry does not hold is a Severe warning too.
// Hosts log them at start, and again after adding tools.
func (t *Toolset[C]) Warnings() []dialect.Warning {
	w := t.x.Warnings()
	if t.chosen == nil {
		return w
	}
	for _, n := range t.opts.Tools {
		if _, ok := t.reg.Lookup(n); !ok {
			w = append(w, dialect.Warning{Tool: n, Target: t.x.Target(), Severity: dialect.Severe, Action: dialect.LeftOut,
				Note: "Options.Tools names it, and the registry has no tool of this name"})
		}
	}
	return w
}

// subset is the registry seen through Options.Tools: what the exporter
// converts and checks.
type subset[C any] struct {
	reg    *tool.Registry[C]
	chosen map[string]bool
}

func (s subset[C]) Definitions() []tool.Definition {
	return slices.DeleteFunc(s.reg.Definitions(), func(d tool.Definition) bool { return !s.chosen[d.Name] })
}

func (s subset[C]) OnChange(fn func()) (cancel func()) { return s.reg.OnChange(fn) }

var _ adktool.Toolset = (*Toolset[struct{}])(nil)
