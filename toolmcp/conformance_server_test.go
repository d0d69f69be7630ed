//lint:file-ignore SA1019 the suite checks sampling and logging, which protocol 2026-07-28 deprecates (SEP-2577).

package toolmcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// The server the official conformance suite (npm @modelcontextprotocol/
// conformance, server mode) runs against. Every tool is a Toolbelt tool in
// a Registry served by AddTools; resources, prompts, completion and
// subscriptions are the SDK's, written here with the SDK directly.

// A 1x1 PNG and a silent WAV: the suite checks the types, not the pixels.
const (
	conformancePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	conformanceWAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// session returns the client session of the call running under ctx.
func session(ctx context.Context) (*sdk.CallToolRequest, error) {
	req, ok := RequestFromContext(ctx)
	if !ok || req.Session == nil {
		return nil, errors.New("not called over MCP")
	}
	return req, nil
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func constant(content ...tool.Content) func(context.Context, struct{}) (*tool.Result, error) {
	return func(context.Context, struct{}) (*tool.Result, error) { return &tool.Result{Content: content}, nil }
}

// elicit sends an elicitation and reports the answer as text.
func elicit(ctx context.Context, message string, schema any) (string, error) {
	req, err := session(ctx)
	if err != nil {
		return "", err
	}
	res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil {
		return "", fmt.Errorf("elicitation failed: %w", err)
	}
	content, _ := json.Marshal(res.Content)
	return fmt.Sprintf("User response: action=%s, content=%s", res.Action, content), nil
}

func conformanceTools() []tool.Definer {
	ro := func(name, desc string) tool.Definition {
		return tool.Definition{Name: name, Description: desc, Safety: tool.SafetyReadOnly}
	}
	return []tool.Definer{
		tool.New(ro("test_simple_text", "Returns simple text."), constant(tool.TextContent("This is a simple text response for testing."))),
		tool.New(ro("test_image_content", "Returns an image."), constant(tool.ImageContent(mustBase64(conformancePNG), "image/png"))),
		tool.New(ro("test_audio_content", "Returns audio."), constant(tool.AudioContent(mustBase64(conformanceWAV), "audio/wav"))),
		tool.New(ro("test_embedded_resource", "Returns an embedded resource."),
			constant(tool.ResourceContent("test://embedded-resource", "text/plain", "This is an embedded resource content.", nil))),
		tool.New(ro("test_multiple_content_types", "Returns text, an image and a resource."), constant(
			tool.TextContent("Multiple content types test:"),
			tool.ImageContent(mustBase64(conformancePNG), "image/png"),
			tool.ResourceContent("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`, nil))),
		tool.New(ro("test_tool_with_logging", "Sends three log messages while it runs."),
			func(ctx context.Context, _ struct{}) (string, error) {
				req, err := session(ctx)
				if err != nil {
					return "", err
				}
				for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
					if i > 0 {
						if err := pause(ctx, 50*time.Millisecond); err != nil {
							return "", err
						}
					}
					if err := req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: msg}); err != nil {
						return "", err
					}
				}
				return "Tool with logging executed successfully", nil
			}),
		tool.New(ro("test_tool_with_progress", "Reports progress three times."),
			func(ctx context.Context, _ struct{}) (string, error) {
				for _, p := range []float64{0, 50, 100} {
					tool.ReportProgress(ctx, tool.Progress{Done: p, Total: 100, Message: fmt.Sprintf("Completed step %.0f of 100", p)})
					// Wait after each report, the last too: a client may drop
					// a notification read together with the response
					// (typescript-sdk#2580), and the suite's client is one.
					if err := pause(ctx, 50*time.Millisecond); err != nil {
						return "", err
					}
				}
				req, err := session(ctx)
				if err != nil {
					return "", err
				}
				return fmt.Sprint(req.Params.GetProgressToken()), nil
			}),
		tool.New(ro("test_error_handling", "Always fails."),
			func(context.Context, struct{}) (string, error) {
				return "", errors.New("This tool intentionally returns an error for testing")
			}),
		tool.New(ro("test_sampling", "Asks the client's model."),
			func(ctx context.Context, in struct {
				Prompt string `json:"prompt" jsonschema:"description=The prompt to send to the LLM"`
			}) (string, error) {
				req, err := session(ctx)
				if err != nil {
					return "", err
				}
				res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{
					Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: in.Prompt}}},
					MaxTokens: 100,
				})
				if err != nil {
					return "", fmt.Errorf("sampling failed: %w", err)
				}
				if tc, ok := res.Content.(*sdk.TextContent); ok {
					return "LLM response: " + tc.Text, nil
				}
				return "LLM response: (not text)", nil
			}),
		tool.New(ro("test_elicitation", "Asks the client's user."),
			func(ctx context.Context, in struct {
				Message string `json:"message" jsonschema:"description=The message to show the user"`
			}) (string, error) {
				return elicit(ctx, in.Message, map[string]any{
					"type": "object",
					"properties": map[string]any{
						"username": map[string]any{"type": "string", "description": "User's response"},
						"email":    map[string]any{"type": "string", "description": "User's email address"},
					},
					"required": []string{"username", "email"},
				})
			}),
		tool.New(ro("test_elicitation_sep1034_defaults", "Elicits with defaults (SEP-1034)."),
			func(ctx context.Context, _ struct{}) (string, error) {
				return elicit(ctx, "Test defaults for primitives", map[string]any{
					"type": "object",
					"properties": map[string]any{
						"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
						"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
						"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
						"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
						"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
					},
				})
			}),
		tool.New(ro("test_elicitation_sep1330_enums", "Elicits with every enum form (SEP-1330)."),
			func(ctx context.Context, _ struct{}) (string, error) {
				titled := func(prefix string) []map[string]any {
					var out []map[string]any
					for i, t := range []string{"First", "Second", "Third"} {
						out = append(out, map[string]any{"const": fmt.Sprintf("%s%d", prefix, i+1), "title": t + " Option"})
					}
					return out
				}
				return elicit(ctx, "Test enum schemas", map[string]any{
					"type": "object",
					"properties": map[string]any{
						"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
						"titledSingle":   map[string]any{"type": "string", "oneOf": titled("value")},
						"legacyEnum": map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"},
							"enumNames": []string{"Option One", "Option Two", "Option Three"}},
						"untitledMulti": map[string]any{"type": "array", "minItems": 1, "maxItems": 3,
							"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
						"titledMulti": map[string]any{"type": "array", "minItems": 1, "maxItems": 3,
							"items": map[string]any{"anyOf": titled("value")}},
					},
				})
			}),
		tool.NewRaw(tool.Definition{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features.", Safety: tool.SafetyReadOnly,
			InputSchema: json.RawMessage(`{
				"$schema": "https://json-schema.org/draft/2020-12/schema",
				"type": "object",
				"$defs": {
					"address": {
						"$anchor": "addressDef",
						"type": "object",
						"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
					}
				},
				"properties": {
					"name": {"type": "string"},
					"address": {"$ref": "#/$defs/address"},
					"contactMethod": {"type": "string", "enum": ["phone", "email"]},
					"phone": {"type": "string"},
					"email": {"type": "string"}
				},
				"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
				"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
				"then": {"required": ["phone"]},
				"else": {"required": ["email"]},
				"additionalProperties": false
			}`)},
			func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
				return tool.TextResult("JSON Schema 2020-12 tool called with: " + string(args)), nil
			}),
		tool.New(ro("test_reconnection", "Closes the SSE stream mid-call (SEP-1699); the client reconnects for the result."),
			func(ctx context.Context, _ struct{}) (string, error) {
				req, err := session(ctx)
				if err != nil {
					return "", err
				}
				if req.Extra != nil && req.Extra.CloseSSEStream != nil {
					req.Extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
				}
				if err := pause(ctx, 100*time.Millisecond); err != nil {
					return "", err
				}
				return "Reconnection test completed successfully.", nil
			}),
	}
}

const watchedResource = "test://watched-resource"

// newConformanceServer is the SDK server with the conformance tools served
// from a Registry, and the SDK features the suite also checks.
func newConformanceServer() (*sdk.Server, *tool.Registry[struct{}], error) {
	server := sdk.NewServer(&sdk.Implementation{Name: "toolbelt-conformance-server", Version: "v0.1.0"}, &sdk.ServerOptions{
		CompletionHandler: func(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
			return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}, nil
		},
		SubscribeHandler:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(conformanceTools()...); err != nil {
		return nil, nil, err
	}
	// The tools above are read-only and run without asking; those of
	// addConformance2026 that write ask the client's user.
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: Approver(nil)}))
	if err := addConformance2026(server, reg); err != nil {
		return nil, nil, err
	}
	tasks, err := addConformanceTasks(server, reg)
	if err != nil {
		return nil, nil, err
	}
	AddTools(server, reg, &Options[struct{}]{Tasks: tasks})
	server.AddReceivingMiddleware(askBeforeTask)

	text := func(uri, mime, body string) sdk.ResourceHandler {
		return func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: body}}}, nil
		}
	}
	server.AddResource(&sdk.Resource{Name: "static-text", URI: "test://static-text", MIMEType: "text/plain", Description: "A static text resource"},
		text("test://static-text", "text/plain", "This is the content of the static text resource."))
	server.AddResource(&sdk.Resource{Name: "static-binary", URI: "test://static-binary", MIMEType: "image/png", Description: "A static binary resource"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: mustBase64(conformancePNG)}}}, nil
		})
	server.AddResourceTemplate(&sdk.ResourceTemplate{Name: "template", URITemplate: "test://template/{id}/data", MIMEType: "application/json",
		Description: "A resource template with a parameter"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			body, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(body)}}}, nil
		})
	server.AddResource(&sdk.Resource{Name: "watched-resource", URI: watchedResource, MIMEType: "text/plain", Description: "A resource that can be subscribed to"},
		text(watchedResource, "text/plain", "Watched resource content"))

	prompt := func(desc string, msgs ...*sdk.PromptMessage) *sdk.GetPromptResult {
		return &sdk.GetPromptResult{Description: desc, Messages: msgs}
	}
	user := func(c sdk.Content) *sdk.PromptMessage { return &sdk.PromptMessage{Role: "user", Content: c} }
	server.AddPrompt(&sdk.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments"},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return prompt("A simple test prompt", user(&sdk.TextContent{Text: "This is a simple prompt for testing."})), nil
		})
	server.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with arguments", Arguments: []*sdk.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		a := req.Params.Arguments
		return prompt("A prompt with arguments", user(&sdk.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])})), nil
	})
	server.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt with an embedded resource",
		Arguments: []*sdk.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return prompt("A prompt with an embedded resource",
				user(&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				user(&sdk.TextContent{Text: "Please process the embedded resource above."})), nil
		})
	server.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return prompt("A prompt with an image",
				user(&sdk.ImageContent{Data: mustBase64(conformancePNG), MIMEType: "image/png"}),
				user(&sdk.TextContent{Text: "Please analyze the image above."})), nil
		})
	return server, reg, nil
}
