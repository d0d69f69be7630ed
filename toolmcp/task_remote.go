package toolmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// metaTask is where the guard keeps a CreateTaskResult's task (taskId,
// status, pollIntervalMs) in the result it passes on: the SDK's
// CallToolResult has no field for them and would drop them.
const metaTask = metaPrefix + "task"

// taskMeta moves the task of a CreateTaskResult (resultType "task") into
// the result's _meta. The _meta of any other result loses the keys of
// toolmcp's own prefix, as the guard's own lists do: a server's plain
// result that carried a metaTask of its own would have been followed as a
// task. Each member was read within the message's bounds, so the copy is
// too (runTask checks what it follows).
func taskMeta(members []member) []member {
	var isTask, hasMeta bool
	task := map[string]json.RawMessage{}
	for _, m := range members {
		switch m.key {
		case "resultType":
			isTask = string(m.raw) == `"task"`
		case "taskId", "status", "statusMessage", "pollIntervalMs", "ttlMs", "createdAt", "lastUpdatedAt":
			task[m.key] = json.RawMessage(m.raw)
		case "_meta":
			hasMeta = true
		}
	}
	switch {
	case isTask:
		return withMeta(members, map[string]any{metaTask: task})
	case hasMeta:
		return withMeta(members, nil)
	}
	return members
}

// maxTaskID bounds the taskId of a remote task RemoteTools follows: it is
// sent back in every poll, and in a header (Mcp-Name). Task IDs are short
// (toolmcp's are 32 characters; SEP-2663 asks only that they be
// unguessable).
const maxTaskID = 1 << 10

// followsTasks says why RemoteTools cannot follow the tasks of cs's server,
// or nil when it can: the tasks extension is of protocol 2026-07-28.
func followsTasks(cs *sdk.ClientSession) error {
	if r := cs.InitializeResult(); r != nil && r.ProtocolVersion < protocolMultiRoundTrip {
		return errors.New(`the server runs it only as a task (execution.taskSupport "required"), and toolmcp follows tasks from protocol 2026-07-28 on (SEP-2663), not in this session's ` +
			strconv.Quote(r.ProtocolVersion) + `, so it could never be called`)
	}
	return nil
}

// addTaskMethods lets c send the tasks extension's methods.
func addTaskMethods(c *sdk.Client) {
	for _, m := range []string{methodTasksGet} {
		_ = sdk.AddSendingCustomMethod[*taskParams, *taskWire](c, m)
	}
	for _, m := range []string{methodTasksUpdate, methodTasksCancel} {
		_ = sdk.AddSendingCustomMethod[*taskParams, *taskAck](c, m)
	}
}

// maxTaskReadFailures is how many tasks/get in a row may fail before
// RemoteTools stops following a remote task (and asks it to stop): one
// lost request does not end a call of an hour.
const maxTaskReadFailures = 3

// Polling bounds: a server's pollIntervalMs is kept within them.
const (
	minTaskPoll = 50 * time.Millisecond
	maxTaskPoll = 5 * time.Second
)

// runTask calls a tool the server runs only as a task: the call declares
// the tasks extension, and the task it starts is polled until it ends.
// The caller's context cancels it (tasks/cancel). A question the task
// asks is relayed, once, to whoever follows the caller's own task
// ([tool.AskInput]: the MCP client of a task toolmcp serves, a Go host
// through Tasks.Answer); a call that is not a task cannot be asked, and
// the remote task is cancelled, as it is when the caller's task ends
// while it is asked, or when maxTaskReadFailures reads in a row fail.
func (t *remoteTool) runTask(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	params := &sdk.CallToolParams{Name: t.name, Arguments: args}
	params.SetMeta(taskCapabilities())
	res, err := t.cs.CallTool(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, &tool.Error{Message: "the MCP server could not run " + t.name + ": " + err.Error(), Cause: err}
	}
	created, isTask := res.Meta[metaTask].(map[string]any)
	if !isTask {
		return fromRemoteResult(t.name, res), nil // the server answered at once
	}
	id, _ := created["taskId"].(string)
	if id == "" || len(id) > maxTaskID {
		// Nothing to poll, or to cancel, by: the call fails, saying so
		// (it was taken for an empty result that the server answered at
		// once; a taskId of megabytes was sent back in every poll).
		return nil, &tool.Error{Message: fmt.Sprintf("the MCP server answered the call to %s with a task whose taskId is not a string of 1 to %d bytes, so it cannot be followed; "+
			"whether it runs is up to the server", t.name, maxTaskID)}
	}
	poll := pollInterval(created["pollIntervalMs"])
	answered := map[string]bool{} // the keys of the questions answered
	failed := 0                   // reads failed in a row
	// stop asks the server to stop the task it is no longer followed in:
	// it would otherwise run on, its result read by no one.
	stop := func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_, _ = sdk.CallCustomMethod[*taskParams, *taskAck](cctx, t.cs, methodTasksCancel, taskRequest(id, nil))
		cancel()
	}
	for {
		select {
		case <-ctx.Done():
			stop()
			return nil, context.Cause(ctx)
		case <-time.After(poll):
		}
		w, err := sdk.CallCustomMethod[*taskParams, *taskWire](ctx, t.cs, methodTasksGet, taskRequest(id, nil))
		if err != nil {
			if ctx.Err() != nil {
				continue // cancelled while polling: cancel the task above
			}
			if failed++; failed < maxTaskReadFailures {
				continue // read again at the next poll
			}
			stop()
			return nil, &tool.Error{Message: fmt.Sprintf("the MCP server's task for %s could not be read %d times in a row, so it was asked to stop: %v", t.name, failed, err), Cause: err}
		}
		failed = 0
		poll = pollInterval(float64(w.PollIntervalMs))
		switch w.Status {
		case string(tool.TaskCompleted):
			var out sdk.CallToolResult
			if err := json.Unmarshal(w.Result, &out); err != nil {
				return nil, &tool.Error{Message: "the MCP server's task for " + t.name + " ended with a result that is not a tool result", Cause: err}
			}
			return fromRemoteResult(t.name, &out), nil
		case string(tool.TaskFailed):
			msg := "the task failed"
			if w.Error != nil {
				msg = w.Error.Message
			}
			return nil, &tool.Error{Message: "the MCP server's task for " + t.name + " failed: " + cut(msg, maxPartialLog), Cause: &RemoteError{Tool: t.name, Message: msg}}
		case string(tool.TaskCancelled):
			return nil, &tool.Error{Message: "the MCP server cancelled its task for " + t.name, Cause: &RemoteError{Tool: t.name, Message: "cancelled"}}
		case string(tool.TaskInputRequired):
			if err := t.relayInput(ctx, id, w.InputRequests, answered); err != nil {
				stop()
				if ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
				return nil, err
			}
		default:
			if w.StatusMessage != "" {
				tool.ReportProgress(ctx, tool.Progress{Message: tool.EscapeModelText(cut(w.StatusMessage, maxPartialLog))})
			}
		}
	}
}

// relayInput asks the questions of a remote task of the frontend that
// follows this call's own task, and answers the remote task. A question
// already answered is not asked again: SEP-2663 lets a server acknowledge
// tasks/update before its tasks/get shows the answer, and keys are never
// reused within a task, so the same key is the same question (the person
// was asked it again, and a second answer sent).
func (t *remoteTool) relayInput(ctx context.Context, id string, raw json.RawMessage, answered map[string]bool) error {
	var questions map[string]json.RawMessage
	if err := json.Unmarshal(raw, &questions); err != nil {
		return nil // nothing to answer yet: poll again
	}
	for k := range questions {
		if answered[k] {
			delete(questions, k)
		}
	}
	if len(questions) == 0 {
		return nil
	}
	for k, q := range questions {
		questions[k] = escapeQuestion(q)
	}
	answers, err := tool.AskInput(ctx, questions)
	if errors.Is(err, tool.ErrNoTask) {
		return &tool.Error{Message: "the MCP server's task for " + t.name + " asked for input, which this call cannot relay (it does not run as a task a client follows), so it was cancelled"}
	}
	if err != nil {
		return err
	}
	if _, err = sdk.CallCustomMethod[*taskParams, *taskAck](ctx, t.cs, methodTasksUpdate, taskRequest(id, answers)); err != nil {
		return err
	}
	for k := range questions {
		answered[k] = true
	}
	return nil
}

// questionText names the members of a question that a person reads: a
// remote server's words, escaped before they are shown, as its
// descriptions are.
var questionText = map[string]bool{"message": true, "title": true, "description": true, "enumNames": true}

// escapeQuestion returns a remote task's question with what a person
// reads of it escaped ([tool.EscapeModelText]): a control, bidirectional
// or invisible character is shown, never used to make the question read
// other than it is. The data it asks for (keys, enum values, defaults)
// is left as it is. A question that is not JSON is passed on as it is:
// the client refuses it.
func escapeQuestion(q json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(q))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return q
	}
	b, err := json.Marshal(escapeText(v, false))
	if err != nil {
		return q
	}
	return b
}

// escapeText escapes the strings of v that are questionText (read is
// true below such a member).
func escapeText(v any, read bool) any {
	switch v := v.(type) {
	case string:
		if read {
			return tool.EscapeModelText(v)
		}
	case []any:
		for i := range v {
			v[i] = escapeText(v[i], read)
		}
	case map[string]any:
		for k, m := range v {
			v[k] = escapeText(m, questionText[k])
		}
	}
	return v
}

// taskCapabilities are the client capabilities a remote task's requests
// declare (SEP-2575 has each request declare them): the tasks extension,
// and elicitation, which a task's questions are relayed as.
func taskCapabilities() map[string]any {
	return map[string]any{sdk.MetaKeyClientCapabilities: map[string]any{
		"elicitation": map[string]any{},
		"extensions":  map[string]any{TasksExtension: map[string]any{}},
	}}
}

func taskRequest(id string, answers map[string]json.RawMessage) *taskParams {
	p := &taskParams{TaskID: id, InputResponses: answers}
	p.SetMeta(taskCapabilities())
	return p
}

func pollInterval(v any) time.Duration {
	ms, _ := v.(float64)
	d := time.Duration(ms) * time.Millisecond
	return min(max(d, minTaskPoll), maxTaskPoll)
}

// fromRemoteResult is a remote tool's result as the registry takes it.
func fromRemoteResult(name string, res *sdk.CallToolResult) *tool.Result {
	out := &tool.Result{Content: fromSDKContent(res.Content)}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.Structured = b
		}
	}
	if res.IsError {
		out.IsError = true
		out.Status = tool.StatusFailed
		out.Err = &RemoteError{Tool: name, Message: out.Text()}
	}
	return out
}
