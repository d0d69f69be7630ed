package toolmcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// Options configure [AddTools]. A nil *Options means the defaults.
type Options[C any] struct {
	// State gives the per-call state C of each tools/call, from the request:
	// its session ([SessionID]), the client's auth info
	// (req.Extra.TokenInfo), HTTP headers (req.Extra.Header). An error is
	// returned to the client as a protocol error and the call does not run;
	// return a *jsonrpc.Error to choose its code. Nil means the zero C.
	//
	// For state that lives as long as a session (a workspace, a login), key
	// it by [SessionID](req) here and drop it in SessionEnded. SessionID is
	// "" for every request without a session: each request of protocol
	// 2026-07-28 over HTTP (the Go SDK's client speaks it by default), and
	// each one to a stateless server. State keyed by "" alone would be
	// shared by all such clients, and never dropped: key it by the
	// authenticated user (req.Extra.TokenInfo) there, or refuse the call.
	State func(ctx context.Context, req *sdk.CallToolRequest) (C, error)
	// Session names the conversation a call belongs to ([tool.Request.Session]):
	// page cursors, read_output cursors, "allow always" answers and
	// resumable approvals are bound to it, and a call with none gets no
	// cursors and no "allow always". Nil means [SessionID]: the MCP
	// session, or the connection; none for HTTP without a session (a
	// stateless server, protocol 2026-07-28). A host that authenticates
	// its clients should name the user, or the user's conversation, here
	// (from req.Extra.TokenInfo): then nothing one user was given works for
	// another, and a stateless server gets cursors and "allow always".
	Session func(req *sdk.CallToolRequest) string
	// SessionEnded, if set, is called once for each MCP session of the
	// server that ends (the client closed it or went away, the HTTP
	// handler reclaimed it as idle, the host closed it), with its
	// [SessionID], so that the host can drop what it keeps for it. It is
	// called on a goroutine of its own, for the sessions that sent any
	// request while the tools were served; a panic in it is recovered.
	// Requests without a session (stateless HTTP) have no end.
	SessionEnded func(session string)
	// MaxSessionCalls bounds the tools/call requests of one MCP session
	// (one connection over stdio, one request over stateless HTTP) in
	// progress at once. Past it a call does not start: the client gets a
	// JSON-RPC error at once (code [CodeTooManyCalls]) and may call again
	// when one of its calls ends. The bound is the session's own: one
	// client that sends thousands of calls at once (a JSON-RPC batch of
	// protocol 2025-03-26 holds tens of thousands in one request body)
	// costs a goroutine and the memory of a call for each of this many at
	// most, and no other session's calls wait for it. A call waiting for
	// its approval counts. Zero means [DefaultMaxSessionCalls]; negative,
	// no bound.
	MaxSessionCalls int
	// Tasks, if set, serves MCP's tasks extension (SEP-2663): to
	// a client that declares it, a tools/call of a tool that may or must
	// run as a task ([tool.Definition].Task) is answered at once with a
	// task handle, run by Tasks, and followed with tasks/get, tasks/update
	// and tasks/cancel; other clients get a plain call (and an error for a
	// tool that must run as a task). Its tasks must be of reg, and its
	// TaskOptions.Answerer should be [Answerer], so that [Approver]'s
	// questions reach the client as the task's input requests.
	Tasks *tool.Tasks[C]
}

// DefaultMaxSessionCalls is the default of [Options.MaxSessionCalls].
const DefaultMaxSessionCalls = 100

// CodeTooManyCalls is the JSON-RPC error code of a tools/call refused
// because its session has [Options.MaxSessionCalls] calls in progress. It
// is in the range JSON-RPC leaves to servers (-32000 to -32099).
const CodeTooManyCalls = -32000

// AddTools adds every visible tool of reg to server, and keeps adding the
// tools added to reg later (the SDK sends notifications/tools/list_changed
// for each). The server stays the caller's: add resources, prompts and
// other tools to it with the SDK as usual, and serve it over any transport.
// Hidden tools are not listed, and can be called.
//
// What a client sees of each tool is its [tool.Definition]: name, title,
// description, inputSchema, outputSchema, and annotations from its safety
// class (readOnlyHint, destructiveHint, idempotentHint, openWorldHint).
//
// Every tools/call goes through [tool.Registry.Call], so the registry's
// preflight is the only validation (the SDK's raw handler does none), and
// its middlewares, deadlines, output caps and events apply:
//
//   - the model view becomes the CallToolResult: content blocks of every
//     kind, structuredContent, isError (a retry hint for invalid arguments
//     is an isError result the model can act on);
//   - [tool.ReportProgress] becomes notifications/progress when the client
//     sent a progress token, and [tool.ReportPartial] a log message
//     (notifications/message, sent when the client set a log level);
//   - a notifications/cancelled from the client cancels the call's context
//     with [ErrCancelledByClient] as its cause;
//   - a call the approval middleware deferred ([tool.DecisionDefer], as
//     [Approver] does for clients on protocol 2026-07-28) ends as an
//     input-required result whose requestState is the call's signed
//     state and whose input request [ApprovalInputKey] is the approval
//     form; the client's retry carrying the answer under the same key
//     resumes it, and ends as [tool.ApprovalAnswer] lists. An outcome the
//     model reads (allowed, edited, denied, cancelled) is a tools/call
//     result like any other; a requestState the registry refuses
//     ([tool.ErrApprovalState]: replayed, expired, for other arguments,
//     unusable, or unchecked because the approval store failed) is a
//     protocol error, invalid params (-32602) whose message says why, and
//     nothing runs. A retry without an answer is asked again.
//
// The returned function stops following reg and removes the tools from
// server. AddTools is safe to call while server is serving.
func AddTools[C any](server *sdk.Server, reg *tool.Registry[C], opts *Options[C]) (remove func()) {
	s := &served[C]{server: server, reg: reg, added: map[string]bool{}}
	if opts != nil {
		s.opts = *opts
	}
	s.maxCalls = s.opts.MaxSessionCalls
	if s.maxCalls == 0 {
		s.maxCalls = DefaultMaxSessionCalls
	}
	if s.opts.SessionEnded != nil {
		s.watch = &sessionWatch{ended: s.opts.SessionEnded}
	}
	server.AddReceivingMiddleware(s.middleware)
	if s.opts.Tasks != nil {
		s.serveTasks() // tasks extension (task.go)
	}
	s.cancelWatch = reg.OnChange(s.sync)
	s.sync()
	return s.remove
}

// served is one registry served on one SDK server.
type served[C any] struct {
	server *sdk.Server
	reg    *tool.Registry[C]
	opts   Options[C]

	cancelWatch func()
	watch       *sessionWatch // nil: no Options.SessionEnded

	mu      sync.Mutex
	added   map[string]bool // tool names added to the server; true for hidden ones
	stopped bool

	maxCalls int // per session; <= 0: no bound
	callsMu  sync.Mutex
	calls    map[*sdk.ServerSession]int // tools/call in progress, per session that has any
}

// sync adds to the server the registry's visible tools it does not have
// yet. Registries only grow, and a name is never registered twice, so
// adding what is new is the whole of keeping up.
func (s *served[C]) sync() {
	defs := s.reg.Definitions()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	for _, d := range defs {
		if _, ok := s.added[d.Name]; !ok {
			s.added[d.Name] = false
			s.server.AddTool(sdkTool(d), s.handle)
		}
	}
}

// addHidden adds a hidden tool to the server the first time a client
// calls it, so that the SDK dispatches the call (and treats an
// input-required result as it does for any tool); the list filter keeps
// it out of tools/list. It reports whether name is a tool of the
// registry.
func (s *served[C]) addHidden(name string) bool {
	t, ok := s.reg.Lookup(name)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return false
	}
	if _, ok := s.added[name]; !ok {
		// A visible tool called between its Add and the sync that follows
		// lands here too; it stays listed.
		d := t.Definition()
		s.added[name] = d.Hidden
		s.server.AddTool(sdkTool(d), s.handle)
	}
	return true
}

func (s *served[C]) remove() {
	s.cancelWatch()
	if s.watch != nil {
		s.watch.stop()
	}
	s.mu.Lock()
	s.stopped = true
	names := make([]string, 0, len(s.added))
	for n := range s.added {
		names = append(names, n)
	}
	clear(s.added)
	s.mu.Unlock()
	s.server.RemoveTools(names...)
}

// startCall counts one more call in progress in ss, if its bound leaves
// room for it.
func (s *served[C]) startCall(ss *sdk.ServerSession) bool {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if s.calls[ss] >= s.maxCalls {
		return false
	}
	if s.calls == nil {
		s.calls = map[*sdk.ServerSession]int{}
	}
	s.calls[ss]++
	return true
}

// endCall counts a call of ss as ended; a session with none in progress
// holds no entry.
func (s *served[C]) endCall(ss *sdk.ServerSession) {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if s.calls[ss]--; s.calls[ss] <= 0 {
		delete(s.calls, ss)
	}
}

func (s *served[C]) hidden(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.added[name]
}

// middleware keeps hidden tools out of tools/list and adds one to the
// server when a client calls it by name.
func (s *served[C]) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if s.watch != nil {
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
				s.watch.see(ss, req.GetExtra())
			}
		}
		switch method {
		case "tools/call":
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok && ss != nil && s.maxCalls > 0 {
				if !s.startCall(ss) {
					return nil, &jsonrpc.Error{Code: CodeTooManyCalls, Message: fmt.Sprintf(
						"too many tool calls in progress in this session (at most %d at once): this call did not start; call again when one of them ends", s.maxCalls)}
				}
				defer s.endCall(ss)
			}
			if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok && p != nil {
				s.mu.Lock()
				_, known := s.added[p.Name]
				s.mu.Unlock()
				if !known {
					s.addHidden(p.Name)
				}
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*sdk.ListToolsResult); ok && err == nil {
				kept := lr.Tools[:0:0]
				for _, t := range lr.Tools {
					if !s.hidden(t.Name) {
						kept = append(kept, t)
					}
				}
				lr.Tools = kept
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// sdkTool is what a client sees of a tool: the definition's MCP form.
func sdkTool(d tool.Definition) *sdk.Tool {
	t := &sdk.Tool{
		Name:        d.Name,
		Title:       d.Title,
		Description: d.Description,
		InputSchema: json.RawMessage(d.InputSchema),
	}
	if len(d.OutputSchema) > 0 {
		t.OutputSchema = json.RawMessage(d.OutputSchema)
	}
	if a := d.Annotations(); a != (tool.Annotations{}) {
		t.Annotations = &sdk.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnly != nil && *a.ReadOnly,
			DestructiveHint: a.Destructive,
			IdempotentHint:  a.Idempotent != nil && *a.Idempotent,
			OpenWorldHint:   a.OpenWorld,
		}
		// The SDK always writes idempotentHint, which MCP reads only for
		// tools that are not read-only; a read is idempotent, so say so
		// rather than write false.
		if t.Annotations.ReadOnlyHint {
			t.Annotations.IdempotentHint = true
		}
	}
	return t
}

// handle serves one tools/call through the registry.
func (s *served[C]) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var state C
	if s.opts.State != nil {
		var err error
		if state, err = s.opts.State(ctx, req); err != nil {
			return nil, err
		}
	}
	p := req.Params
	treq := tool.Request{
		ID:       newCallID(),
		Name:     p.Name,
		Args:     p.Arguments,
		Session:  s.session(req),
		Observer: newNotifier(ctx, req),
	}
	if p.RequestState != "" {
		// A retry without the answer is asked again (a new input request)
		// rather than denied: SEP-2322 has the server re-request missing
		// input, and the unanswered state is simply never used.
		if ans, ok := p.InputResponses[ApprovalInputKey].(*sdk.ElicitResult); ok {
			// The client's answer counts only for a call deferred to it:
			// the registry refuses it for one deferred to anyone else.
			treq.Approval = &tool.ApprovalAnswer{State: p.RequestState, Decision: decisionFrom(ans), Answerer: Answerer}
		}
	}
	callCtx, done := detach(ctx)
	defer done()
	res := s.reg.Call(withRequest(callCtx, req), state, treq)
	t, ok := s.reg.Lookup(p.Name)
	return toCallToolResult(req, res, ok && len(t.Definition().OutputSchema) > 0)
}

func (s *served[C]) session(req *sdk.CallToolRequest) string {
	if s.opts.Session != nil {
		return s.opts.Session(req)
	}
	return SessionID(req)
}

// toCallToolResult maps a registry result to the MCP result; declared
// says whether the tool lists an outputSchema.
func toCallToolResult(req *sdk.CallToolRequest, res *tool.Result, declared bool) (*sdk.CallToolResult, error) {
	switch {
	case res.Status == tool.StatusAwaitingApproval && res.Pending != nil && res.Pending.Answerer == Answerer && multiRoundTrip(req):
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{ApprovalInputKey: approvalForm(res.Pending.Request)},
			RequestState:  res.Pending.State,
		}, nil
	case res.Status == tool.StatusAwaitingApproval:
		// Deferred to someone other than this client, by an approver that
		// cannot wait for its own answer: the client is not asked (it is
		// not who the host chose), and no retry of it can resume the call.
		res.Content = []tool.Content{tool.TextContent(notRelayed(res.Tool))}
	case res.Status == tool.StatusDenied && errors.Is(res.Err, tool.ErrApprovalState):
		// SEP-2322: a server rejects state that fails verification with an
		// error, not with a result the client could take for an answer.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: " + res.Text()}
	case res.Status == tool.StatusDenied && errors.Is(res.Err, errNoElicitation) && multiRoundTrip(req):
		return nil, &jsonrpc.Error{
			Code:    sdk.CodeMissingRequiredClientCapabilities,
			Message: "The call to " + res.Tool + " needs the user's approval, asked by elicitation, and the client did not declare the elicitation capability",
			Data:    json.RawMessage(`{"requiredCapabilities":{"elicitation":{}}}`),
		}
	case res.Status == tool.StatusDenied && errors.Is(res.Err, ErrCannotAsk):
		res.Content = []tool.Content{tool.TextContent("The call to " + res.Tool + " needs the user's approval, and the user could not be asked " +
			"through this MCP client (it does not support elicitation, its connection cannot carry the question, or its answer was not valid), " +
			"so it did not run. Do not repeat it; tell the user it needs approval.")}
	}
	out := &sdk.CallToolResult{Content: toSDKContent(res.Content), IsError: res.IsError}
	switch {
	case isObject(res.Structured):
		out.StructuredContent = res.Structured
	case declared && !res.IsError:
		// A tool with an outputSchema must return structured content, and
		// clients fail a success that has none (the TypeScript SDK does).
		// The output stage left it out (over the size cap, or its text was
		// cut), or the tool returned no object: the result goes as an error
		// result that says the tool did run, with the text there is.
		out.IsError = true
		out.Content = append([]sdk.Content{&sdk.TextContent{Text: missingStructured(res)}}, out.Content...)
	}
	return out, nil
}

// notRelayed is what the model reads of a call whose approval was
// deferred to a party this server can neither ask nor wait for.
func notRelayed(name string) string {
	return "The call to " + name + " needs the user's approval, which was asked for outside this conversation, " +
		"and this server cannot wait for the answer, so it did not run. Do not repeat it now; tell the user it needs their approval."
}

// missingStructured says why a successful call of a tool with an
// outputSchema comes back as an error result.
func missingStructured(res *tool.Result) string {
	if res.Truncated > 0 {
		return "The call to " + res.Tool + " ran and succeeded, but its result is over the size limit: only its text is sent, " +
			"cut where marked below, and the result is marked as an error only because its structured form had to be left out. " +
			"Do not run it again for the same result; read the rest as the note at the cut says, if it says how, or narrow the request."
	}
	return "The call to " + res.Tool + " ran, but its result is not the object its output schema declares " +
		"(a null, say), so it is marked as an error; its text follows."
}

// isObject reports whether b, valid JSON or empty, is an object: MCP's
// structuredContent is one, and a client refuses a result with anything
// else there.
func isObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

// newCallID returns a call ID unique to this process and the next.
//
// It is not the JSON-RPC request ID: the SDK (v1.8.0) does not expose that
// to handlers or middleware (modelcontextprotocol/go-sdk#1264).
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "mcp-" + hex.EncodeToString(b[:])
}
