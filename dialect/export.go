package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/toolbelt-go/tool"
)

// Source is what an Exporter exports: a *tool.Registry[C] of any C is one.
type Source interface {
	// Definitions returns the tools to export, in the order to send them.
	Definitions() []tool.Definition
	// OnChange registers fn to be called after every change to what
	// Definitions returns, and returns the function that unregisters it.
	OnChange(fn func()) (cancel func())
}

// Exported is one tool as an Exporter sends it to its target.
type Exported struct {
	// Name is the function name the provider is sent: the tool's own,
	// unless the provider refuses it (then Warnings has a Renamed).
	Name string
	// Tool is the tool's name in the registry.
	Tool string
	// Description is the tool's description.
	Description string
	// Schema is the tool's input schema in the form Target says. It is nil
	// when the tool takes no parameters and the target wants none sent
	// (Gemini's Schema object).
	Schema json.RawMessage
	// Target is the form Schema is in: the Exporter's target or its
	// fallback. Target.Strict() says whether to send the tool strict.
	Target Target
	// Warnings lists what the export changed, each with Tool set.
	Warnings []Warning
}

// An Exporter keeps the tools of a Source (a registry) converted for one
// target: what a provider adapter sends each turn, and the way back from
// the calls the model makes under it. It converts a tool once and again
// only when its definition changes, tags every warning with its tool, and
// settles what depends on all the tools at once (a name the provider
// refuses renamed so that it clashes with no other, Anthropic's limits on
// strict tools per request, OpenAI's and Gemini's on tools per request).
// While the source has not changed, Tools costs a copy of the slice it
// keeps.
//
// An Exporter is safe for concurrent use. It needs no closing: the hook it
// sets on the source is removed once the Exporter is garbage.
type Exporter struct {
	src    Source
	target Target
	ver    *atomic.Uint64 // bumped by the source's OnChange hook

	mu       sync.Mutex
	valid    bool
	seen     uint64
	tools    []Exported
	warnings []Warning
	cache    map[string]*conversion // by the tool's name
	sent     map[string]*conversion // by the name the provider is sent
}

// conversion is one tool's schema converted for the exporter's target (and,
// for AnthropicStrict, for Anthropic too, for when the limits on strict
// tools leave it out of strict mode).
type conversion struct {
	def      tool.Definition
	main     converted
	fallback *converted // Anthropic's form of an AnthropicStrict tool, made on first need
	use      *converted // the one this export sends
	name     string     // the name it is sent under
}

type converted struct {
	c   Converted
	err error

	once   sync.Once
	parsed *node // c.Schema, parsed, for the way back
}

func (c *converted) schemaNode() *node {
	c.once.Do(func() { c.parsed, _ = parse(c.c.Schema) })
	return c.parsed
}

// NewExporter returns an Exporter of src's tools for target.
func NewExporter(src Source, target Target) *Exporter {
	ver := new(atomic.Uint64)
	x := &Exporter{src: src, target: target, ver: ver}
	w := weak.Make(ver)
	cancel := src.OnChange(func() {
		if v := w.Value(); v != nil {
			v.Add(1)
		}
	})
	// The hook holds the counter weakly: once x is garbage, so is the
	// counter, and the hook is removed.
	runtime.AddCleanup(x, func(cancel func()) { cancel() }, cancel)
	return x
}

// Target returns the target the Exporter converts for.
func (x *Exporter) Target() Target { return x.target }

// Tools returns the tools as the target is sent them, in the source's
// order, without those left out (Warnings says why). The slice is the
// caller's; the schemas in it are shared and must not be modified.
func (x *Exporter) Tools() []Exported {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.refresh()
	return slices.Clone(x.tools)
}

// Warnings returns what exporting the tools changed or could not keep,
// tool by tool, each with Warning.Tool set. Filter by Severity to see only
// what loses meaning (Lossy) or leaves a tool out (Severe).
func (x *Exporter) Warnings() []Warning {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.refresh()
	return slices.Clone(x.warnings)
}

// refresh converts again what changed since the last export; x.mu is held.
func (x *Exporter) refresh() {
	v := x.ver.Load()
	if x.valid && v == x.seen {
		return
	}
	defs := x.src.Definitions()
	cache := make(map[string]*conversion, len(defs))
	for _, d := range defs {
		c := x.cache[d.Name]
		if c == nil || !bytes.Equal(c.def.InputSchema, d.InputSchema) {
			c = &conversion{main: x.convert(d.InputSchema, x.target)}
		}
		c.def = d
		cache[d.Name] = c
	}
	x.cache = cache
	x.export(defs)
	x.seen, x.valid = v, true
}

func (x *Exporter) convert(schema json.RawMessage, t Target) converted {
	c, err := Convert(schema, t)
	return converted{c: c, err: err}
}

// export settles what depends on all the tools and builds the list sent.
func (x *Exporter) export(defs []tool.Definition) {
	names := nameRules[x.target]
	rn := &renamer{rule: names, taken: make(map[string]bool, len(defs)), sent: map[string]string{}}
	for _, d := range defs {
		rn.taken[d.Name] = true
	}
	var budget strictBudget
	x.tools = make([]Exported, 0, len(defs))
	x.warnings = nil
	x.sent = make(map[string]*conversion, len(defs))
	for _, d := range defs {
		c := x.cache[d.Name]
		var ws []Warning
		tag := func(w Warning) {
			w.Tool = d.Name
			ws = append(ws, w)
		}
		c.use = &c.main
		if x.target == AnthropicStrict && c.main.err == nil && c.main.c.Target == AnthropicStrict {
			if why := budget.take(c.main.c.Schema); why != "" {
				if c.fallback == nil {
					f := x.convert(d.InputSchema, Anthropic)
					c.fallback = &f
				}
				c.use = c.fallback
				tag(Warning{Target: AnthropicStrict, Severity: Lossy, Action: Fallback, Note: why})
			}
		}
		conv := c.use
		if conv.err != nil {
			note := conv.err.Error()
			if !errors.Is(conv.err, ErrCannotExpress) {
				// A registry's schemas always convert; say so if one does not.
				note = "its schema does not convert: " + note
			}
			tag(Warning{Target: x.target, Severity: Severe, Action: LeftOut, Note: note})
			x.warnings = append(x.warnings, ws...)
			continue
		}
		if limit := maxTools[x.target]; limit.n > 0 && len(x.tools) >= limit.n {
			tag(Warning{Target: x.target, Severity: Severe, Action: LeftOut,
				Note: limit.says + ", and the tools before it in the registry's order took them: the provider would refuse the whole request"})
			x.warnings = append(x.warnings, ws...)
			continue
		}
		for _, w := range conv.c.Warnings {
			tag(w)
		}
		c.name = d.Name
		if names.ok != nil && !names.ok(d.Name) {
			c.name = rn.name(d.Name)
			tag(Warning{Target: x.target, Severity: Notice, Keyword: "name", Action: Renamed,
				Note: "sent as " + strconv.Quote(c.name) + ": " + names.says})
		}
		x.sent[c.name] = c
		e := Exported{Name: c.name, Tool: d.Name, Description: d.Description, Schema: conv.c.Schema, Target: conv.c.Target, Warnings: ws}
		if n := conv.schemaNode(); conv.c.Target == Gemini && n != nil && !n.has("properties") {
			e.Schema = nil // no parameters: Gemini wants parameters unset
		}
		x.tools = append(x.tools, e)
		x.warnings = append(x.warnings, ws...)
	}
}

// toolLimit is how many tools a provider takes in one request.
type toolLimit struct {
	n    int
	says string
}

// maxTools are the providers' limits on the tools of one request; a
// request past them is refused whole, so the tools past the limit are left
// out, each with a Severe warning.
var maxTools = map[Target]toolLimit{
	// "A max of 128 functions are supported" (OpenAI API reference, Chat
	// Completions, tools); the API answers more with 400 "Invalid 'tools':
	// array too long. Expected an array with maximum length 128", on the
	// Responses API too.
	OpenAI:       {128, "OpenAI takes at most 128 functions per request"},
	OpenAIStrict: {128, "OpenAI takes at most 128 functions per request"},
	// "Maximum 512 function declarations can be provided"
	// (google.golang.org/genai, Tool.FunctionDeclarations).
	Gemini:     {512, "Gemini takes at most 512 function declarations per request"},
	GeminiJSON: {512, "Gemini takes at most 512 function declarations per request"},
}

// nameRules are the targets' rules for function names, where they are
// narrower than the registry's (1 to 64 of a-z, A-Z, 0-9, '_' and '-').
var nameRules = map[Target]nameRule{
	// "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9,
	// or contain underscores, dots, colons and dashes" (Gemini API,
	// FunctionDeclaration.name; google.golang.org/genai's documentation
	// of it allows 128 characters, the API reference 64).
	Gemini: geminiFunctionNames, GeminiJSON: geminiFunctionNames,
}

var geminiFunctionNames = nameRule{
	ok: func(s string) bool {
		if s == "" || len(s) > 64 {
			return false
		}
		for i := 0; i < len(s); i++ {
			if !geminiFunctionChar(s[i], i == 0) {
				return false
			}
		}
		return true
	},
	allowed: geminiFunctionChar,
	max:     64,
	says:    "Gemini wants a function name that starts with a letter or '_'",
}

func geminiFunctionChar(c byte, first bool) bool {
	switch {
	case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		return true
	case first:
		return false
	}
	return '0' <= c && c <= '9' || c == '.' || c == ':' || c == '-'
}

// strictBudget counts what Anthropic limits across the strict tools of one
// request.
type strictBudget struct {
	tools, optional, unions int
}

// take counts a strict tool in, or returns why it does not fit.
func (b *strictBudget) take(schema []byte) string {
	optional, unions := strictCost(schema)
	switch {
	case b.tools+1 > anthropicMaxStrictTools:
		return "Anthropic allows " + strconv.Itoa(anthropicMaxStrictTools) + " strict tools per request, and the tools before it took them"
	case b.optional+optional > anthropicMaxOptionalParams:
		return "Anthropic allows " + strconv.Itoa(anthropicMaxOptionalParams) + " optional parameters across the strict tools of a request; with its " +
			strconv.Itoa(optional) + " there would be " + strconv.Itoa(b.optional+optional)
	case b.unions+unions > anthropicMaxUnionParams:
		return "Anthropic allows " + strconv.Itoa(anthropicMaxUnionParams) + " parameters with anyOf or a list of types across the strict tools of a request; with its " +
			strconv.Itoa(unions) + " there would be " + strconv.Itoa(b.unions+unions)
	}
	b.tools++
	b.optional += optional
	b.unions += unions
	return ""
}
