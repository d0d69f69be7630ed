package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// TasksExtension is the identifier of MCP's tasks extension (SEP-2663,
// protocol 2026-07-28), under which clients and servers declare it in
// their capabilities' extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// The tasks extension's methods. The SDK (v1.8.0) has none of them: they
// are added to the server as custom methods, so that its transports
// accept them, and answered in toolmcp's receiving middleware, which has
// the request's headers, capabilities and session.
const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
)

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	sdk.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// taskWire is a task as the extension writes it: a CreateTaskResult
// (resultType "task") or a tasks/get result (resultType "complete").
type taskWire struct {
	sdk.ResultBase
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          int64           `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *taskError      `json:"error,omitempty"`
	InputRequests  json.RawMessage `json:"inputRequests,omitempty"`
}

type taskError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// taskAck is the empty result of tasks/update and tasks/cancel.
type taskAck struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
}

// serveTasks answers tools/call with task handles for the tools that may
// run as tasks, for clients that declare the extension, and serves
// tasks/get, tasks/update and tasks/cancel.
func (s *served[C]) serveTasks() {
	for _, m := range []string{methodTasksGet, methodTasksUpdate, methodTasksCancel} {
		// Only the middleware answers them; this handler is what the SDK
		// would call past it, and says so.
		err := sdk.AddReceivingCustomMethod(s.server, m, func(context.Context, *sdk.ServerSession, *taskParams) (*taskAck, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "tasks are not served here"}
		})
		if err != nil {
			panic("toolmcp: " + err.Error()) // only if the SDK makes tasks/* standard methods
		}
	}
	s.server.AddReceivingMiddleware(s.taskMiddleware)
}

func (s *served[C]) taskMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "initialize", "server/discover":
			res, err := next(ctx, method, req)
			declareTasks(res)
			return res, err
		case "tools/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*sdk.ListToolsResult); ok && err == nil {
				return s.listWithTasks(lr), nil
			}
			return res, err
		case "tools/call":
			if creq, ok := req.(*sdk.CallToolRequest); ok {
				if res, err, handled := s.startTask(ctx, creq); handled {
					return res, err
				}
			}
		case methodTasksGet, methodTasksUpdate, methodTasksCancel:
			treq, ok := req.(*sdk.ServerRequest[*taskParams])
			if !ok || treq.Params == nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "missing params"}
			}
			return s.taskMethod(ctx, method, treq)
		}
		return next(ctx, method, req)
	}
}

// declareTasks adds the extension to the server's capabilities in res.
func declareTasks(res sdk.Result) {
	var caps **sdk.ServerCapabilities
	switch r := res.(type) {
	case *sdk.InitializeResult:
		caps = &r.Capabilities
	case *sdk.DiscoverResult:
		caps = &r.Capabilities
	default:
		return
	}
	if *caps == nil {
		*caps = &sdk.ServerCapabilities{}
	}
	(*caps).AddExtension(TasksExtension, nil)
}

// declaresTasks reports whether the client declared the extension for this
// request (in its _meta, or when it initialized its session).
func declaresTasks(caps *sdk.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// errTasksRequired is the error a client that did not declare the
// extension gets for what needs it (SEP-2575's missing capability).
func errTasksRequired(what string) error {
	return &jsonrpc.Error{
		Code:    sdk.CodeMissingRequiredClientCapabilities,
		Message: what + " needs the client capability extensions[\"" + TasksExtension + "\"], which this request did not declare",
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + TasksExtension + `":{}}}}`),
	}
}

// startTask starts a tools/call as a task when the tool may run as one and
// the client declared the extension; handled is false when the call is
// served as a plain call.
func (s *served[C]) startTask(ctx context.Context, req *sdk.CallToolRequest) (_ sdk.Result, _ error, handled bool) {
	p := req.Params
	if p == nil {
		return nil, nil, false
	}
	t, ok := s.reg.Lookup(p.Name)
	if !ok {
		return nil, nil, false
	}
	support := t.Definition().Task
	if support == tool.TaskNever {
		return nil, nil, false
	}
	if !declaresTasks(req.ClientCapabilities()) {
		if support == tool.TaskMust {
			return nil, errTasksRequired("The tool " + p.Name + " runs only as a task, which"), true
		}
		return nil, nil, false
	}
	var state C
	if s.opts.State != nil {
		var err error
		if state, err = s.opts.State(ctx, req); err != nil {
			return nil, err, true
		}
	}
	task, err := s.opts.Tasks.Start(withRequest(ctx, req), state, tool.Request{
		ID: newCallID(), Name: p.Name, Args: p.Arguments, Session: s.session(req),
	})
	switch {
	case errors.Is(err, tool.ErrTaskLimit):
		return nil, &jsonrpc.Error{Code: CodeTooManyCalls, Message: "this session holds as many tasks as it may: the call did not start; call again when one has ended and expired"}, true
	case err != nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task could not be started: " + err.Error()}, true
	}
	w := s.wire(ctx, req, task)
	w.ResultType = "task"
	w.Result, w.Error, w.InputRequests = nil, nil, nil
	return w, nil, true
}

// taskMethod answers tasks/get, tasks/update and tasks/cancel.
func (s *served[C]) taskMethod(ctx context.Context, method string, req *sdk.ServerRequest[*taskParams]) (sdk.Result, error) {
	if !declaresTasks(req.ClientCapabilities()) {
		return nil, errTasksRequired(method)
	}
	p := req.Params
	if req.Extra != nil && req.Extra.Header != nil && req.Extra.Header.Get(protocolVersionHeader) >= protocolMultiRoundTrip {
		// Over HTTP from 2026-07-28 on, SEP-2663 routes tasks/* by Mcp-Name,
		// which must be the taskId, and a missing or disagreeing standard
		// header is refused (SEP-2243). NewHTTPHandler refuses such a
		// request before the SDK reads it (checkTaskRequest, with 400);
		// this is for the SDK's handler, served without it.
		if why := taskNameMismatch(req.Extra.Header, method, p.TaskID); why != "" {
			return nil, &jsonrpc.Error{Code: sdk.CodeHeaderMismatch, Message: why}
		}
	}
	creq := &sdk.CallToolRequest{Session: req.Session, Extra: req.Extra, Params: &sdk.CallToolParamsRaw{}}
	session := s.session(creq)
	tasks := s.opts.Tasks
	task, err := tasks.Get(ctx, session, p.TaskID)
	if err != nil {
		return nil, taskLookupError(err)
	}
	switch method {
	case methodTasksCancel:
		if err := tasks.Cancel(ctx, session, p.TaskID); err != nil && !errors.Is(err, tool.ErrTaskNotFound) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task could not be cancelled: " + err.Error()}
		}
		return &taskAck{ResultType: "complete"}, nil
	case methodTasksUpdate:
		ans := tool.TaskAnswer{Answerer: Answerer} // the client answers as itself: only a call deferred to it resumes
		for k, v := range p.InputResponses {
			if task.Pending != nil && k == task.PendingKey {
				var er sdk.ElicitResult
				if json.Unmarshal(v, &er) != nil {
					continue // not an answer to the form: ignored, asked again
				}
				d := decisionFrom(&er)
				ans.Approval, ans.ApprovalKey = &d, k // for this question only, not the one after it
				continue
			}
			if ans.Input == nil {
				ans.Input = map[string]json.RawMessage{}
			}
			ans.Input[k] = v
		}
		if ans.Approval == nil && len(ans.Input) == 0 {
			return &taskAck{ResultType: "complete"}, nil // SEP-2663: keys not outstanding are ignored
		}
		var state C
		if s.opts.State != nil && ans.Approval != nil {
			// The resumed call runs here, with the state of this request.
			creq.Params = &sdk.CallToolParamsRaw{Name: task.Tool, Arguments: task.Pending.Request.Args}
			if state, err = s.opts.State(ctx, creq); err != nil {
				return nil, err
			}
		}
		err := tasks.Answer(withRequest(ctx, creq), state, session, p.TaskID, ans)
		if err != nil && !errors.Is(err, tool.ErrTaskState) {
			return nil, taskLookupError(err)
		}
		return &taskAck{ResultType: "complete"}, nil
	}
	w := s.wire(ctx, creq, task)
	w.ResultType = "complete"
	return w, nil
}

func taskLookupError(err error) error {
	if errors.Is(err, tool.ErrTaskNotFound) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found (or expired)"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task store failed: " + err.Error()}
}

// wire is task as the extension writes it.
func (s *served[C]) wire(_ context.Context, req *sdk.CallToolRequest, task *tool.Task) *taskWire {
	w := &taskWire{
		TaskID: task.ID, Status: string(task.Status), StatusMessage: task.Message,
		CreatedAt:      task.Created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  task.Updated.UTC().Format(time.RFC3339Nano),
		TTLMs:          max(task.Expires.Sub(task.Created).Milliseconds(), 1),
		PollIntervalMs: max(task.PollInterval.Milliseconds(), 1),
	}
	switch task.Status {
	case tool.TaskCompleted:
		if task.Result != nil {
			declared := false
			if t, ok := s.reg.Lookup(task.Tool); ok {
				declared = len(t.Definition().OutputSchema) > 0
			}
			if out, err := toCallToolResult(req, task.Result, declared); err == nil {
				w.Result, _ = completeResult(out)
			} else {
				w.Status, w.Result = string(tool.TaskFailed), nil
				w.Error = &taskError{Code: int64(jsonrpc.CodeInternalError), Message: err.Error()}
			}
		}
	case tool.TaskFailed:
		w.Error = &taskError{Code: int64(jsonrpc.CodeInternalError), Message: task.Cause}
	case tool.TaskInputRequired:
		requests := map[string]json.RawMessage{}
		if task.Pending != nil && task.Pending.Answerer == Answerer {
			if b, err := json.Marshal(sdk.InputRequestMap{task.PendingKey: approvalForm(task.Pending.Request)}); err == nil {
				var m map[string]json.RawMessage
				if json.Unmarshal(b, &m) == nil {
					requests[task.PendingKey] = m[task.PendingKey]
				}
			}
		}
		for k, v := range task.Input {
			requests[k] = v
		}
		w.InputRequests, _ = json.Marshal(requests)
	}
	return w
}

// completeResult is out as a completed task inlines it. A result of
// 2026-07-28 carries its resultType ("complete"), which the SDK writes only
// on the results it sends itself, not on one marshaled into a task: a
// client that checks the inlined CallToolResult (ext-tasks) refused it.
func completeResult(out *sdk.CallToolResult) (json.RawMessage, error) {
	b, err := json.Marshal(out)
	if err != nil || len(b) < 2 || b[0] != '{' {
		return b, err
	}
	if len(b) == 2 {
		return json.RawMessage(`{"resultType":"complete"}`), nil
	}
	return append([]byte(`{"resultType":"complete",`), b[1:]...), nil
}

// listWithTasks adds execution.taskSupport to the listed tools that may or
// must run as tasks ("optional", "required"); the SDK's Tool has no field
// for it.
func (s *served[C]) listWithTasks(lr *sdk.ListToolsResult) sdk.Result {
	support := map[string]string{}
	for _, t := range lr.Tools {
		if tl, ok := s.reg.Lookup(t.Name); ok {
			switch tl.Definition().Task {
			case tool.TaskMay:
				support[t.Name] = "optional"
			case tool.TaskMust:
				support[t.Name] = "required"
			}
		}
	}
	if len(support) == 0 {
		return lr
	}
	return &toolsWithTasks{ListToolsResult: lr, support: support}
}

// toolsWithTasks is a tools/list result that writes each tool's
// execution.taskSupport.
type toolsWithTasks struct {
	*sdk.ListToolsResult
	support map[string]string
}

func (r *toolsWithTasks) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(m["tools"], &tools); err != nil {
		return nil, err
	}
	for _, t := range tools {
		var name string
		_ = json.Unmarshal(t["name"], &name)
		if ts, ok := r.support[name]; ok {
			t["execution"] = json.RawMessage(`{"taskSupport":"` + ts + `"}`)
		}
	}
	if m["tools"], err = json.Marshal(tools); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// AskInput asks the MCP client for input from a tool running as a task
// the client follows ([tool.Tasks], served by [AddTools] with
// [Options].Tasks): the task is input_required with requests (each an
// elicitation, a sampling request or a roots request), until the client
// has answered them all through tasks/update, on any replica. It returns
// [tool.ErrNoTask] when the tool does not run as a task.
func AskInput(ctx context.Context, requests sdk.InputRequestMap) (sdk.InputResponseMap, error) {
	b, err := json.Marshal(requests)
	if err != nil {
		return nil, err
	}
	var questions map[string]json.RawMessage
	if err := json.Unmarshal(b, &questions); err != nil {
		return nil, err
	}
	answers, err := tool.AskInput(ctx, questions)
	if err != nil {
		return nil, err
	}
	out := sdk.InputResponseMap{}
	for k, v := range answers {
		var one sdk.InputResponseMap
		if err := json.Unmarshal([]byte(`{"a":`+string(v)+`}`), &one); err != nil {
			return nil, fmt.Errorf("mcp: the client's answer to %q is not an input response: %w", k, err)
		}
		out[k] = one["a"]
	}
	return out, nil
}
