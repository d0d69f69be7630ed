package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	adktool "google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooladk"
)

// openTooladk runs the search tool of a Registry through tooladk the way
// ADK's LLM flow runs a function tool (the adk case's path, with the
// toolset's tool in place of functiontool's): the arguments decoded into a
// map as genai decodes a FunctionCall, a ToolContext for the call, Run
// (which encodes the map again for Registry.Call: preflight, the schema,
// the pipeline), the response map encoded. The result's "output" is what
// the model reads; a refused call's "error" is the retry hint.
func openTooladk() (func([]byte) call, func(), error) {
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(tool.New(tool.Definition{Name: toolName, Description: toolDesc}, search)); err != nil {
		return nil, nil, err
	}
	ts := tooladk.New(reg, nil)
	tools, err := ts.Tools(nil)
	if err != nil {
		return nil, nil, err
	}
	run, ok := tools[0].(adkTool)
	if len(tools) != 1 || !ok {
		return nil, nil, fmt.Errorf("tooladk: %d tools, the first a %T", len(tools), tools[0])
	}
	sessions := session.InMemoryService()
	s, err := sessions.Create(context.Background(), &session.CreateRequest{AppName: "bench", UserID: "user"})
	if err != nil {
		return nil, nil, err
	}
	prepare := func(args []byte) call {
		return func(ctx context.Context, text *string) (bool, error) {
			var fc genai.FunctionCall
			fc.ID, fc.Name = "1", toolName
			if err := json.Unmarshal(args, &fc.Args); err != nil {
				return adkOutcome(err, text)
			}
			ic := &invocation{Context: ctx, session: s.Session}
			tc := agent.NewToolContext(ic, fc.ID, &session.EventActions{StateDelta: make(map[string]any)}, nil)
			res, err := run.Run(tc, fc.Args)
			if err != nil {
				return false, err // only Options.State fails Run, and there is none
			}
			return tooladkOutcome(res, text)
		}
	}
	return prepare, func() {}, nil
}

// tooladkOutcome reads tooladk's function response: {"output": …} or
// {"error": "<the retry hint>"}. The output is encoded as ADK encodes the
// response for the model.
func tooladkOutcome(res map[string]any, text *string) (bool, error) {
	if msg, ok := res["error"].(string); ok {
		if text != nil {
			*text = msg
		}
		return true, nil
	}
	b, err := json.Marshal(res["output"])
	if err != nil {
		return false, err
	}
	if text != nil {
		*text = string(b)
	}
	return false, nil
}

// openADKFlow runs one turn of an ADK agent per call, through ADK's own
// runner: an llmagent whose model (scripted, offline) answers the user's
// message with the function call, the flow runs the tool, appends the
// events to an in-memory session, and asks the model again, which ends
// the turn. With toolbelt the tool is the registry's search tool through
// tooladk; without, ADK's functiontool given the same input schema. Each
// call opens a session of its own and deletes it after, so that no call
// pays for the events of the ones before.
func openADKFlow(toolbelt bool) func() (func([]byte) call, func(), error) {
	return func() (func([]byte) call, func(), error) {
		cfg := llmagent.Config{Name: "bench", Description: "the search tool's agent", Model: scriptedModel{}}
		if toolbelt {
			reg := tool.NewRegistry[struct{}](nil)
			if err := reg.Add(tool.New(tool.Definition{Name: toolName, Description: toolDesc}, search)); err != nil {
				return nil, nil, err
			}
			cfg.Toolsets = []adktool.Toolset{tooladk.New(reg, nil)}
		} else {
			var schema jsonschema.Schema
			if err := json.Unmarshal(inputSchema(), &schema); err != nil {
				return nil, nil, err
			}
			t, err := functiontool.New(functiontool.Config{Name: toolName, Description: toolDesc, InputSchema: &schema},
				func(ctx agent.ToolContext, in searchArgs) (searchOut, error) { return search(ctx, in) })
			if err != nil {
				return nil, nil, err
			}
			cfg.Tools = []adktool.Tool{t}
		}
		a, err := llmagent.New(cfg)
		if err != nil {
			return nil, nil, err
		}
		sessions := session.InMemoryService()
		r, err := runner.New(runner.Config{AppName: "bench", Agent: a, SessionService: sessions})
		if err != nil {
			return nil, nil, err
		}
		prepare := func(args []byte) call {
			return func(ctx context.Context, text *string) (bool, error) {
				var fc genai.FunctionCall
				if err := json.Unmarshal(args, &fc.Args); err != nil {
					return adkOutcome(err, text) // genai would not have made the call
				}
				fc.ID, fc.Name = "1", toolName
				s, err := sessions.Create(ctx, &session.CreateRequest{AppName: "bench", UserID: "user"})
				if err != nil {
					return false, err
				}
				defer sessions.Delete(ctx, &session.DeleteRequest{AppName: "bench", UserID: "user", SessionID: s.Session.ID()})
				msg := genai.NewContentFromText("search", genai.RoleUser)
				var resp map[string]any
				for ev, err := range r.Run(context.WithValue(ctx, callKey{}, &fc), "user", s.Session.ID(), msg, agent.RunConfig{}) {
					if err != nil {
						return false, err
					}
					if ev.Content == nil {
						continue
					}
					for _, p := range ev.Content.Parts {
						if p.FunctionResponse != nil && p.FunctionResponse.ID == "1" {
							resp = p.FunctionResponse.Response
						}
					}
				}
				if resp == nil {
					return false, errors.New("adk: the turn had no function response")
				}
				if toolbelt {
					return tooladkOutcome(resp, text)
				}
				if msg, ok := resp["error"].(string); ok {
					if text != nil {
						*text = msg
					}
					return true, nil
				}
				b, err := json.Marshal(resp)
				if err != nil {
					return false, err
				}
				if text != nil {
					*text = string(b)
				}
				return false, nil
			}
		}
		return prepare, func() {}, nil
	}
}

// callKey is the context key under which a turn carries the function
// call its model makes.
type callKey struct{}

// scriptedModel is the agent's model: it answers the user's message with
// the function call the turn's context carries (the model "makes" the
// call the benchmark prepared), and the request after it (the tool has
// answered) with "done".
type scriptedModel struct{}

func (scriptedModel) Name() string { return "scripted" }

func (scriptedModel) GenerateContent(ctx context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	content := genai.NewContentFromText("done", genai.RoleModel)
	fc, _ := ctx.Value(callKey{}).(*genai.FunctionCall)
	if n := len(req.Contents); fc != nil && n > 0 && req.Contents[n-1].Role == genai.RoleUser && req.Contents[n-1].Parts[0].Text != "" {
		content = &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: fc}}}
	}
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(&model.LLMResponse{Content: content, TurnComplete: true}, nil)
	}
}
