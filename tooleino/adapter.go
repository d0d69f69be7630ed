package tooleino

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	einotool "github.com/cloudwego/eino/components/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// Options configures an [Adapter]. A nil *Options means the defaults.
type Options[C any] struct {
	// Tools names the registry's tools to offer the agent, in this order.
	// Nil offers every tool the registry lists ([tool.Registry.Definitions]),
	// and follows it: tools added later are offered by the next call of
	// [Adapter.Tools]. read_output ([tool.ReadOutputTool]) is offered with
	// any subset when the registry has it, since cut output tells the model
	// to call it.
	Tools []string
	// State returns the host state a call runs with, from the context Eino
	// hands the tool: the one given to the runner's Run or Resume (or the
	// graph's Invoke), with Eino's values added. Nil means C's zero value.
	// An error ends the Eino run with it: the call did not run.
	State func(ctx context.Context) (C, error)
	// Session returns the conversation a call belongs to
	// ([tool.Request].Session). Nil means [SessionFrom].
	Session func(ctx context.Context) string
	// Target is the provider behind the Eino chat model, whose dialect
	// the tools' schemas are shown in ([dialect.Target]: OpenAI,
	// OpenAIStrict, Anthropic, AnthropicStrict, GeminiJSON; Gemini means
	// GeminiJSON here, since Eino's model adapters take JSON Schema). Names
	// and keywords the provider refuses are changed as the provider
	// adapters change them, every change is in [Adapter.Warnings], and the
	// model's calls are mapped back. Zero shows each tool's own schema.
	Target dialect.Target
	// Events sends each call's progress and partial output to the event
	// stream of the adk agent that runs it (adk.SendEvent), as events whose
	// Output.CustomizedOutput is a [*Progress], for the host's UI. The
	// model never sees them: Eino's streamable tools stream what the model
	// reads, and a Toolbelt call's progress is the host's. Outside an adk
	// ChatModelAgent they go nowhere.
	Events bool
}

// Adapter offers a [tool.Registry]'s tools to CloudWeGo Eino as Eino's own
// tools ([einotool.InvokableTool]): a ChatModelAgent, a ReAct agent or a
// compose.ToolsNode runs them as native tools, and every call goes through
// the registry's whole pipeline (preflight and its retry hints, records
// keyed by Eino's tool-call IDs, approval, limits, deadlines, output caps,
// events). It is safe for concurrent use.
type Adapter[C any] struct {
	reg   *tool.Registry[C]
	opts  Options[C]
	names []string          // the subset offered, nil for all
	x     *dialect.Exporter // nil without a Target
}

// New returns an Adapter for reg. opts may be nil.
func New[C any](reg *tool.Registry[C], opts *Options[C]) *Adapter[C] {
	a := &Adapter[C]{reg: reg}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.Tools != nil {
		a.names = slices.Clone(a.opts.Tools)
		if _, ok := reg.Lookup(tool.ReadOutputTool); ok && !slices.Contains(a.names, tool.ReadOutputTool) {
			a.names = append(a.names, tool.ReadOutputTool)
		}
	}
	if target := a.opts.Target; target != 0 {
		if target == dialect.Gemini {
			target = dialect.GeminiJSON
		}
		a.x = dialect.NewExporter(source[C]{a}, target)
	}
	return a
}

// Tools returns the tools to give the agent (adk.ToolsConfig's, or
// compose.ToolsNodeConfig's Tools), each an [einotool.InvokableTool]. It
// fails when a tool named in [Options].Tools is not in the registry, and
// leaves out, with a Severe warning ([Adapter.Warnings]), a tool the
// provider of [Options].Target would refuse, or whose schema Eino's schema
// type cannot read (a remote MCP server's, say): one bad tool does not keep
// the agent from starting.
func (a *Adapter[C]) Tools() ([]einotool.BaseTool, error) {
	var missing []string
	for _, name := range a.names {
		if _, ok := a.reg.Lookup(name); !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("tooleino: the registry has no tool named %q", missing)
	}
	var ts []einotool.BaseTool
	if a.x != nil {
		for _, e := range a.x.Tools() {
			if _, err := einoSchema(e.Schema); err == nil {
				ts = append(ts, &einoTool[C]{a: a, name: e.Tool, sent: e.Name})
			}
		}
		return ts, nil
	}
	for _, d := range a.definitions() {
		if _, err := einoSchema(d.InputSchema); err == nil {
			ts = append(ts, &einoTool[C]{a: a, name: d.Name, sent: d.Name})
		}
	}
	return ts, nil
}

// Warnings returns what showing the tools to the model changed or could
// not keep, one entry per change, each with Warning.Tool set: the
// [Options].Target dialect's changes (keywords moved into descriptions,
// names renamed, tools left out), and what Eino's own schema type
// (eino-contrib/jsonschema, which ToolInfo carries) cannot hold, which
// reaches the model in no form (Lossy, or Info for an annotation). The
// registry still checks every call against the tool's whole schema.
func (a *Adapter[C]) Warnings() []dialect.Warning {
	var ws []dialect.Warning
	if a.x != nil {
		ws = a.x.Warnings()
		for _, e := range a.x.Tools() {
			ws = append(ws, einoLosses(e.Tool, a.x.Target(), e.Schema)...)
		}
		return ws
	}
	for _, d := range a.definitions() {
		ws = append(ws, einoLosses(d.Name, 0, d.InputSchema)...)
	}
	return ws
}

// UnknownTool answers a call to a tool the agent was not given, for
// compose.ToolsNodeConfig.UnknownToolsHandler (adk.ToolsConfig embeds
// it). Without one, Eino ends the whole run with an error when the model
// names a tool it does not have; with it, the model reads which tools
// there are and the run goes on. A hidden tool of the registry
// ([tool.Definition].Hidden: callable, not listed) is called, through the
// pipeline, when every tool is offered; with [Options].Tools, only the
// tools named there are.
func (a *Adapter[C]) UnknownTool(ctx context.Context, name, input string) (string, error) {
	if a.names != nil {
		return notOffered(name, a.names), nil
	}
	t := &einoTool[C]{a: a, name: name, sent: name}
	if a.x != nil {
		t.name = a.x.Request("", name, nil).Name
	}
	return t.InvokableRun(ctx, input)
}

// definitions are the definitions of the tools offered, in order.
func (a *Adapter[C]) definitions() []tool.Definition {
	if a.names == nil {
		return a.reg.Definitions()
	}
	defs := make([]tool.Definition, 0, len(a.names))
	for _, name := range a.names {
		if t, ok := a.reg.Lookup(name); ok {
			defs = append(defs, t.Definition())
		}
	}
	return defs
}

// definition is the definition of the tool offered under name.
func (a *Adapter[C]) definition(name string) (tool.Definition, error) {
	if a.x != nil {
		for _, e := range a.x.Tools() {
			if e.Tool == name {
				d := tool.Definition{Name: e.Name, Title: name, Description: e.Description, InputSchema: e.Schema}
				return d, nil
			}
		}
	} else if t, ok := a.reg.Lookup(name); ok && (a.names == nil || slices.Contains(a.names, name)) {
		return t.Definition(), nil
	}
	return tool.Definition{}, fmt.Errorf("tooleino: %w %q (removed from the registry since the agent was given it)", errGone, name)
}

var errGone = errors.New("no tool named")

// request is the registry's request for a call Eino made under the name
// sent, with args as the model wrote them.
func (a *Adapter[C]) request(id, sent, args string) tool.Request {
	if a.x != nil {
		return a.x.Request(id, sent, json.RawMessage(args))
	}
	return tool.Request{ID: id, Name: sent, Args: json.RawMessage(args)}
}

func (a *Adapter[C]) state(ctx context.Context) (C, error) {
	if a.opts.State == nil {
		var zero C
		return zero, nil
	}
	return a.opts.State(ctx)
}

func (a *Adapter[C]) session(ctx context.Context) string {
	if a.opts.Session != nil {
		return a.opts.Session(ctx)
	}
	return SessionFrom(ctx)
}

// source is what the dialect exporter exports: the tools offered.
type source[C any] struct{ a *Adapter[C] }

func (s source[C]) Definitions() []tool.Definition     { return s.a.definitions() }
func (s source[C]) OnChange(fn func()) (cancel func()) { return s.a.reg.OnChange(fn) }
