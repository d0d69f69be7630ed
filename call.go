package tool

import (
	"encoding/json"
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
	// ReturnPending asks that a call whose approver defers end at once,
	// [StatusAwaitingApproval] with Result.Pending, even when the approver
	// can wait for its own answer ([Awaiter], as the approval page's
	// does): the caller offers the pending approval and resumes the call
	// later, to end the model's turn in between. Without it, such a call
	// waits for the answer. Frontends that cannot hand a pending approval
	// back to the host (MCP, provider loops, agent frameworks) leave it
	// false.
	ReturnPending bool
	// DryRun asks what the call would do, without doing it: it goes
	// through lookup, preflight, the middlewares ([Approval] classifies
	// it, asks the policy and the "allow always" memory, and describes
	// it) and ends [StatusDryRun], with Result.DryRun saying what would
	// run and whether and why a person would be asked. Nothing runs: no
	// approver is asked, nothing is remembered or claimed, no limit is
	// counted, no record is kept. A carried Approval is not checked.
	// Middlewares of your own see Call.DryRun, and should do nothing a
	// dry run must not.
	DryRun bool

	// task is set by [Tasks] on the call a task runs: the tool gets its
	// TaskTimeout and may ask for input ([AskInput]).
	task *taskRun
}

// Call is one call on its way through the pipeline: what middlewares and
// tools see. A Call belongs to one goroutine at a time; middlewares may
// change the arguments only through [Call.SetArgs], which sends them back
// through preflight.
//
// Its exported fields are the facts of the request. A type that is the
// call itself (Request, Call, [CallInfo]) names them ID and Name; a type
// that is about a call ([Result], [Event], [ApprovalRequest],
// [PolicyInput], [ArgsError]) names them CallID and Tool.
type Call[C any] struct {
	// ID is the provider's tool-call ID.
	ID string
	// Name is the tool's name.
	Name string
	// State is the host's per-call state, passed to Registry.Call.
	State C
	// Session is Request.Session.
	Session string
	// DryRun is Request.DryRun: the call ends before its tool would run.
	DryRun bool

	st callState[C]
}

// callState is what the stages keep of one call, each part declared in
// the file of the stage that owns it (see pipeline.go). It lives inside
// the Call, so a call costs one allocation however many stages it passes.
type callState[C any] struct {
	entry    *entry[C]     // lookup: the tool, its definition, its compiled preflight (registry.go)
	events   *emitter      // events: the call's observers, nil without any (event_emitter.go)
	args     argsState     // preflight: the arguments and what preflight made of them (preflight.go)
	page     *pageScope    // preflight's cursor check: a paginated call's page (pagination.go)
	record   recordState   // record: the call's hold on its ID, made long when the tool starts (record.go)
	approval approvalState // approval: the answer a resumed call carries, the seal, what a dry run found (approval_seal.go)
	asTask   bool          // deadline: the call runs as a task, with the tool's TaskTimeout (task.go)
	started  bool          // run: the tool was handed the call, whatever result the stages above make of it (run.go)
}

// newCall is the call lookup hands the pipeline.
func newCall[C any](e *entry[C], state C, req *Request, events *emitter) *Call[C] {
	return &Call[C]{ID: req.ID, Name: req.Name, State: state, Session: req.Session, DryRun: req.DryRun, st: callState[C]{
		entry: e, events: events,
		args:     argsState{raw: req.Args, nullMeansAbsent: req.NullMeansAbsent},
		approval: approvalState{answer: req.Approval, returnPending: req.ReturnPending},
		asTask:   req.task != nil,
	}}
}

// Tool returns the tool being called.
func (c *Call[C]) Tool() Tool[C] {
	if c.st.entry == nil {
		return nil
	}
	return c.st.entry.tool
}

// Definition returns the called tool's definition.
func (c *Call[C]) Definition() Definition {
	if c.st.entry != nil {
		return c.st.entry.def
	}
	return Definition{Name: c.Name}
}

// runtime returns the options of the registry the call runs in, or the
// defaults.
func (c *Call[C]) runtime() *runtimeConfig {
	if c.st.entry != nil && c.st.entry.rt != nil {
		return c.st.entry.rt
	}
	return defaultRuntime
}
