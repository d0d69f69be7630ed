package tool

import (
	"context"
	"encoding/json"

	"github.com/toolbelt-go/tool/internal/canon"
)

// Request is one tool call as the model made it.
type Request struct {
	// ID is the provider's tool-call ID; it is copied to the Result.
	ID string
	// Name is the tool name the model asked for. Matched exactly.
	Name string
	// Args is the arguments as the model wrote them. Absent, empty,
	// whitespace-only and null arguments mean {}.
	Args json.RawMessage
	// Session names the conversation the call belongs to. Pagination
	// cursors are bound to it, and approval remembers "allow always" per
	// session unless ApprovalOptions.Session says otherwise. An empty
	// Session belongs to no conversation: no cursor or remembered answer
	// of another call applies to it (see the README's "Sessions").
	Session string
	// Observer, if set, receives this call's events as well as the
	// registry's observer: an adapter routes one call's progress to the
	// client that made it (MCP's notifications/progress).
	Observer Observer
	// NullMeansAbsent says the model was given the tool's schema in a
	// strict form where every optional key is required and nullable
	// (OpenAI's strict mode): a null for a key the tool's own schema makes
	// optional, and does not let be null, is read as the key being absent.
	// Adapters that export strict schemas set it; the arguments are then
	// validated against the tool's own schema as usual.
	NullMeansAbsent bool
	// Approval, set when resuming a call that ended
	// [StatusAwaitingApproval], carries the answer and the state it was
	// given for. The call must have the same tool, arguments and session.
	Approval *ApprovalAnswer
}

// Call is one call on its way through the pipeline: what middlewares and
// tools see. A Call belongs to one goroutine at a time; middlewares may
// change Args only through [Call.SetArgs], which makes preflight run again.
type Call[C any] struct {
	// ID is the provider's tool-call ID.
	ID string
	// Name is the tool's name.
	Name string
	// State is the host's per-call state, passed to Registry.Call.
	State C
	// Session is Request.Session.
	Session string

	args   json.RawMessage // the model's bytes, or SetArgs'
	gen    uint64          // counts SetArgs: what an approval seal covers
	canon  json.RawMessage // after preflight: the canonical JSON of value, made on first use
	tool   Tool[C]
	def    *Definition
	pf     *preflight
	rt     *runtimeConfig // nil: the defaults
	events *emitter       // nil: no observer
	// guarded is set once the deadline stage runs the tool: a Wrap inside
	// then calls its tool directly.
	guarded bool
	seal    *seal           // what an approval covered, checked before the tool runs
	answer  *ApprovalAnswer // Request.Approval
	// nullMeansAbsent is Request.NullMeansAbsent.
	nullMeansAbsent bool
	page            *pageScope // the cursor stage's result, for paginated tools

	// Set by preflight.
	value       any
	validated   bool
	prepared    any // the typed tool's decoded arguments (*In)
	preparedFor any // the tool that decoded them
}

// CallInfo identifies the call a tool is running for: what a tool that
// needs no host state may still want to know (to key per-conversation
// memory by session, to log the call ID).
type CallInfo struct {
	ID      string // the provider's tool-call ID
	Name    string // the tool's name
	Session string // Request.Session
}

type callInfoKey struct{}

// CallInfoFrom returns the call the tool running under ctx was called for;
// false outside a call made through a Registry or Wrap.
func CallInfoFrom(ctx context.Context) (CallInfo, bool) {
	c, ok := ctx.Value(callInfoKey{}).(CallInfo)
	return c, ok
}

// Tool returns the tool being called.
func (c *Call[C]) Tool() Tool[C] { return c.tool }

// emit sends a pipeline event to the call's observer, if any.
func (c *Call[C]) emit(ev Event) {
	if c.events != nil {
		c.events.fromPipeline(ev)
	}
}

func (c *Call[C]) runtime() *runtimeConfig {
	if c.rt != nil {
		return c.rt
	}
	return defaultRuntime
}

// Definition returns the called tool's definition.
func (c *Call[C]) Definition() Definition {
	if c.def != nil {
		return *c.def
	}
	if c.tool != nil {
		return c.tool.Definition()
	}
	return Definition{Name: c.Name}
}

// Value returns the validated argument tree (map[string]any with
// json.Number numbers, schema defaults filled in) and reports whether
// preflight has validated the current Args.
func (c *Call[C]) Value() (any, bool) {
	if !c.validated {
		return nil, false
	}
	return c.tree(), true
}

// tree returns the validated tree, built from the arguments the first time
// it is asked for when preflight decoded them without one.
func (c *Call[C]) tree() any {
	if c.value == nil && c.validated && c.pf != nil && c.pf.args != nil {
		c.value = c.pf.tree(c.args)
	}
	return c.value
}

// Args returns the arguments: the model's bytes before preflight, and after
// it the canonical JSON of the value that was validated (schema defaults
// filled in), which is exactly what the tool is handed and what an approval
// covers. Change them only through [Call.SetArgs].
func (c *Call[C]) Args() json.RawMessage {
	if !c.validated {
		return c.args
	}
	if c.canon == nil {
		c.canon = canon.Encode(c.tree())
	}
	return c.canon
}

// SetArgs replaces the arguments (an approver's edit, say). The new
// arguments are validated again before the tool runs.
func (c *Call[C]) SetArgs(args json.RawMessage) {
	c.args, c.canon = args, nil
	c.gen++
	c.value, c.validated = nil, false
	c.prepared, c.preparedFor = nil, nil
}
