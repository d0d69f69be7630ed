//lint:file-ignore SA1019 the suite checks sampling and roots input requests, which protocol 2026-07-28 deprecates (SEP-2577).

package toolmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// The fixtures the conformance suite's 2026-07-28 requirements call for,
// beside those of conformance_server_test.go. Where Toolbelt has the
// feature, the fixture is a Toolbelt tool served by AddTools:
//
//   - test_input_required_result_tampered_state and
//     test_streaming_elicitation need the user's approval, which Approver
//     asks for with a signed, resumable input request (SEP-2322);
//   - test_logging_tool streams partial output, which AddTools sends as a
//     log message only when the client asked for one (SEP-2575);
//   - test_trigger_tool_change adds a tool to the registry, and AddTools
//     tells the listening clients;
//   - test_header_tool routes a parameter into an HTTP header (x-mcp-header,
//     SEP-2243), which the registry keeps in the schema it serves.
//
// The other input-required fixtures ask the client for arbitrary input
// (sampling, roots, a form of their own) and read the answers, which a
// Toolbelt tool has no API for: they are written with the SDK directly, as
// the prompts and resources are.

// addConformance2026 adds the 2026-07-28 fixtures to server and reg.
func addConformance2026(server *sdk.Server, reg *tool.Registry[struct{}]) error {
	var added atomic.Int32
	mutating := func(name, desc string) tool.Definition {
		return tool.Definition{Name: name, Description: desc, Safety: tool.SafetyMutating}
	}
	err := reg.Add(
		tool.New(mutating("test_input_required_result_tampered_state", "Needs the user's approval: an input request with signed requestState."),
			func(context.Context, struct{}) (string, error) { return "integrity-ok: state verified", nil }),
		tool.New(mutating("test_streaming_elicitation", "Needs the user's approval, asked in its result, never by a request of the server's own."),
			func(ctx context.Context, _ struct{}) (string, error) {
				tool.ReportProgress(ctx, tool.Progress{Message: "half way", Done: 1, Total: 2})
				return "Streaming complete", nil
			}),
		tool.New(tool.Definition{Name: "test_logging_tool", Description: "Streams partial output, sent as a log message when the client sets a level.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, _ struct{}) (string, error) {
				tool.ReportPartial(ctx, tool.TextContent("Diagnostic trace logging activated"))
				return "Logging evaluated", nil
			}),
		tool.New(tool.Definition{Name: "test_trigger_tool_change", Description: "Adds a tool to the registry.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) {
				name := fmt.Sprintf("test_added_%d", added.Add(1))
				return "Mutation triggered", reg.Add(tool.New(tool.Definition{Name: name, Description: "Added by test_trigger_tool_change.", Safety: tool.SafetyReadOnly},
					constant(tool.TextContent("added"))))
			}),
		tool.NewRaw(tool.Definition{Name: "test_header_tool", Description: "Its region also travels as the Mcp-Param-Region header.", Safety: tool.SafetyReadOnly,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}},"required":["region"]}`)},
			func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
				return tool.TextResult("header tool called with " + string(args)), nil
			}),
	)
	if err != nil {
		return err
	}

	var prompts atomic.Int32
	server.AddTool(&sdk.Tool{Name: "test_trigger_prompt_change", Description: "Adds a prompt.", InputSchema: emptyObject},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			name := fmt.Sprintf("test_added_prompt_%d", prompts.Add(1))
			server.AddPrompt(&sdk.Prompt{Name: name, Description: "Added by test_trigger_prompt_change."},
				func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
					return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "added"}}}}, nil
				})
			return textResult("Mutation triggered"), nil
		})
	server.AddTool(&sdk.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability.", InputSchema: emptyObject},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
				return nil, &jsonrpc.Error{Code: sdk.CodeMissingRequiredClientCapabilities, Message: "this tool needs the sampling capability",
					Data: json.RawMessage(`{"requiredCapabilities":{"sampling":{}}}`)}
			}
			return textResult("Success"), nil
		})

	ask := func(name string, requests sdk.InputRequestMap, state string, answer func(sdk.InputResponseMap, string) (*sdk.CallToolResult, bool)) {
		server.AddTool(&sdk.Tool{Name: name, Description: "Asks the client for input (SEP-2322).", InputSchema: emptyObject},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				if res, ok := answer(req.Params.InputResponses, req.Params.RequestState); ok {
					return res, nil
				}
				return &sdk.CallToolResult{InputRequests: requests, RequestState: state}, nil
			})
	}
	nameForm := func(message, field string) *sdk.ElicitParams {
		return &sdk.ElicitParams{Message: message, RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{field: map[string]any{"type": "string"}}, "required": []string{field},
		}}
	}
	sampling := func(text string) *sdk.CreateMessageParams {
		return &sdk.CreateMessageParams{Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}, MaxTokens: 100}
	}
	ask("test_input_required_result_elicitation", sdk.InputRequestMap{"user_name": nameForm("What is your name?", "name")}, "",
		func(in sdk.InputResponseMap, _ string) (*sdk.CallToolResult, bool) {
			if r, ok := in["user_name"].(*sdk.ElicitResult); ok {
				return textResult(fmt.Sprintf("Hello, %v!", r.Content["name"])), true
			}
			return nil, false
		})
	ask("test_input_required_result_sampling", sdk.InputRequestMap{"capital_question": sampling("What is the capital of France?")}, "",
		func(in sdk.InputResponseMap, _ string) (*sdk.CallToolResult, bool) {
			if r, ok := in["capital_question"].(*sdk.CreateMessageWithToolsResult); ok {
				return textResult(fmt.Sprintf("Sampling result: %d blocks", len(r.Content))), true
			}
			return nil, false
		})
	ask("test_input_required_result_list_roots", sdk.InputRequestMap{"client_roots": &sdk.ListRootsParams{}}, "",
		func(in sdk.InputResponseMap, _ string) (*sdk.CallToolResult, bool) {
			if r, ok := in["client_roots"].(*sdk.ListRootsResult); ok {
				return textResult(fmt.Sprintf("Found %d root(s)", len(r.Roots))), true
			}
			return nil, false
		})
	ask("test_input_required_result_request_state", sdk.InputRequestMap{"confirm": nameForm("Please confirm", "ok")}, `{"kind":"request-state"}`,
		func(in sdk.InputResponseMap, state string) (*sdk.CallToolResult, bool) {
			if _, ok := in["confirm"].(*sdk.ElicitResult); ok && state == `{"kind":"request-state"}` {
				return textResult("state-ok: requestState validated"), true
			}
			return nil, false
		})
	ask("test_input_required_result_multiple_inputs", sdk.InputRequestMap{
		"user_name":    nameForm("What is your name?", "name"),
		"greeting":     sampling("Generate a greeting"),
		"client_roots": &sdk.ListRootsParams{},
	}, `{"kind":"multiple-inputs"}`,
		func(in sdk.InputResponseMap, state string) (*sdk.CallToolResult, bool) {
			_, a := in["user_name"].(*sdk.ElicitResult)
			_, b := in["greeting"].(*sdk.CreateMessageWithToolsResult)
			_, c := in["client_roots"].(*sdk.ListRootsResult)
			if a && b && c && state == `{"kind":"multiple-inputs"}` {
				return textResult("all three answered"), true
			}
			return nil, false
		})
	server.AddTool(&sdk.Tool{Name: "test_input_required_result_multi_round", Description: "Asks twice (SEP-2322).", InputSchema: emptyObject},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			p := req.Params
			if r, ok := p.InputResponses["step2"].(*sdk.ElicitResult); ok && p.RequestState == "round-2" {
				return textResult(fmt.Sprintf("Multi-round complete: likes %v", r.Content["color"])), nil
			}
			if _, ok := p.InputResponses["step1"].(*sdk.ElicitResult); ok && p.RequestState == "round-1" {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"step2": nameForm("Step 2: What is your favorite color?", "color")}, RequestState: "round-2"}, nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"step1": nameForm("Step 1: What is your name?", "name")}, RequestState: "round-1"}, nil
		})
	server.AddTool(&sdk.Tool{Name: "test_input_required_result_capabilities", Description: "Asks only for what the client can give (SEP-2322).", InputSchema: emptyObject},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if len(req.Params.InputResponses) > 0 {
				return textResult("capabilities-ok"), nil
			}
			requests := sdk.InputRequestMap{}
			if caps := req.ClientCapabilities(); caps != nil {
				if caps.Elicitation != nil {
					requests["elicit_input"] = nameForm("Elicitation input", "value")
				}
				if caps.Sampling != nil {
					requests["sample_input"] = sampling("Sample request")
				}
			}
			if len(requests) == 0 {
				return textResult("No supported capabilities declared"), nil
			}
			return &sdk.CallToolResult{InputRequests: requests, RequestState: "capabilities"}, nil
		})
	server.AddPrompt(&sdk.Prompt{Name: "test_input_required_result_prompt", Description: "Asks for context before it is made (SEP-2322)."},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			if r, ok := req.Params.InputResponses["user_context"].(*sdk.ElicitResult); ok {
				return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user",
					Content: &sdk.TextContent{Text: fmt.Sprintf("Prompt with context: %v", r.Content["context"])}}}}, nil
			}
			return &sdk.GetPromptResult{InputRequests: sdk.InputRequestMap{"user_context": nameForm("What context should the prompt use?", "context")}}, nil
		})
	return nil
}

var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}
