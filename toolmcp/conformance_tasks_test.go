package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// The fixtures of the conformance suite's tasks scenarios (SEP-2663), as
// Toolbelt tools run as tasks by [tool.Tasks] and served by AddTools:
//
//   - greet never runs as a task; slow_compute may; failing_job must (so a
//     client without the extension gets -32021), and fails after a second;
//     protocol_error_job panics, which fails its task;
//   - confirm_delete deletes, so Approver asks the client's user: inside a
//     task, the question is the task's input request, answered by
//     tasks/update;
//   - multi_input asks the client two questions at once (AskInput);
//   - test_tool_with_task asks for a name before its task starts (an
//     input-required tools/call, SEP-2322) and then runs as a task that
//     greets that name. Toolbelt asks before a task only for approval: the
//     fixture's first round is an SDK tool that the middleware below routes
//     the call to, and its second round the registry's task with the name
//     as its argument.
func addConformanceTasks(server *sdk.Server, reg *tool.Registry[struct{}]) (*tool.Tasks[struct{}], error) {
	type greetIn struct {
		Name string `json:"name"`
	}
	type computeIn struct {
		Seconds float64 `json:"seconds"`
		Label   string  `json:"label,omitempty"`
	}
	readOnly := func(name, desc string, task tool.TaskSupport) tool.Definition {
		return tool.Definition{Name: name, Description: desc, Safety: tool.SafetyReadOnly, Task: task}
	}
	err := reg.Add(
		tool.New(readOnly("greet", "Greets, within the call.", tool.TaskNever),
			func(_ context.Context, in greetIn) (string, error) { return "Hello, " + in.Name + "!", nil }),
		tool.New(readOnly("slow_compute", "Sleeps for the given seconds, as a task when the client follows tasks.", tool.TaskMay),
			func(ctx context.Context, in computeIn) (string, error) {
				tool.ReportProgress(ctx, tool.Progress{Message: "computing " + in.Label})
				if err := pause(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
					return "", err
				}
				return fmt.Sprintf("computed %s in %gs", in.Label, in.Seconds), nil
			}),
		tool.New(readOnly("failing_job", "Fails after a second; runs only as a task.", tool.TaskMust),
			func(ctx context.Context, _ struct{}) (string, error) {
				if err := pause(ctx, time.Second); err != nil {
					return "", err
				}
				return "", errors.New("the job failed")
			}),
		tool.New(readOnly("protocol_error_job", "Panics.", tool.TaskMay),
			func(context.Context, struct{}) (string, error) { panic("protocol_error_job") }),
		tool.New(tool.Definition{Name: "confirm_delete", Description: "Deletes a file, once the user approves.", Safety: tool.SafetyDestructive, Task: tool.TaskMay},
			func(_ context.Context, in struct {
				Filename string `json:"filename"`
			}) (string, error) {
				return "deleted " + in.Filename, nil
			}),
		tool.New(readOnly("multi_input", "Asks the client two questions at once.", tool.TaskMust),
			func(ctx context.Context, _ struct{}) (string, error) {
				ask := func(msg string) *sdk.ElicitParams {
					return &sdk.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}
				}
				got, err := AskInput(ctx, sdk.InputRequestMap{"first": ask("First name?"), "second": ask("Second name?")})
				if err != nil {
					return "", err
				}
				name := func(k string) any {
					if r, ok := got[k].(*sdk.ElicitResult); ok {
						return r.Content["name"]
					}
					return nil
				}
				return fmt.Sprintf("got %v and %v", name("first"), name("second")), nil
			}),
		tool.New(readOnly("test_tool_with_task", "Asks for a name, then greets it as a task.", tool.TaskMust),
			func(_ context.Context, in greetIn) (string, error) {
				return "Hello from the task, " + in.Name + "!", nil
			}),
	)
	if err != nil {
		return nil, err
	}
	server.AddTool(&sdk.Tool{Name: "test_tool_with_task_round_1", Description: "The first round of test_tool_with_task.", InputSchema: emptyObject},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"user_name": &sdk.ElicitParams{Message: "What is your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}}}, nil
		})
	return tool.NewTasks(reg, &tool.TaskOptions{Answerer: Answerer, PollInterval: 200 * time.Millisecond}), nil
}

// askBeforeTask routes test_tool_with_task's first round to its SDK tool,
// and its second to the registry's task with the name given.
func askBeforeTask(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		creq, ok := req.(*sdk.CallToolRequest)
		if method != "tools/call" || !ok || creq.Params == nil || creq.Params.Name != "test_tool_with_task" {
			return next(ctx, method, req)
		}
		p := *creq.Params
		r, answered := p.InputResponses["user_name"].(*sdk.ElicitResult)
		if !answered {
			p.Name = "test_tool_with_task_round_1"
		} else {
			args, _ := json.Marshal(map[string]any{"name": r.Content["name"]})
			p.Arguments, p.InputResponses, p.RequestState = args, nil, ""
		}
		routed := *creq
		routed.Params = &p
		return next(ctx, method, &routed)
	}
}
