package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool/functiontool"
	"google.golang.org/genai"
)

// adkTool is the method set ADK's flow calls on a function tool
// (toolinternal.FunctionTool, an internal interface).
type adkTool interface {
	Run(ctx agent.ToolContext, args any) (map[string]any, error)
}

// openADK runs a functiontool.New tool the way ADK's LLM flow does for one
// function call: the model's arguments arrive decoded into a map (genai
// decodes the FunctionCall), a ToolContext is made for the call, Run
// validates the map against the input schema (google/jsonschema-go),
// converts it to the struct through JSON, runs the function, converts the
// result back to a map through JSON and validates it against the output
// schema; the map is then encoded into the FunctionResponse. The decode at
// the start and the encode at the end are counted here, so that ADK too
// goes from the same bytes to the same bytes.
//
// ADK infers schemas with google/jsonschema-go, which refuses Toolbelt-style
// tags, so the tool is given Toolbelt's input schema: both validate the same
// constraints.
func openADK() (func([]byte) call, func(), error) {
	var schema jsonschema.Schema
	if err := json.Unmarshal(inputSchema(), &schema); err != nil {
		return nil, nil, err
	}
	t, err := functiontool.New(functiontool.Config{Name: toolName, Description: toolDesc, InputSchema: &schema},
		func(ctx agent.ToolContext, in searchArgs) (searchOut, error) { return search(ctx, in) })
	if err != nil {
		return nil, nil, err
	}
	run, ok := t.(adkTool)
	if !ok {
		return nil, nil, fmt.Errorf("adk: %T has no Run method", t)
	}
	prepare := func(args []byte) call {
		return func(ctx context.Context, text *string) (bool, error) {
			var fc genai.FunctionCall
			fc.ID, fc.Name = "1", toolName
			if err := json.Unmarshal(args, &fc.Args); err != nil {
				return adkOutcome(err, text)
			}
			tc := agent.NewToolContext(newInvocation(ctx), fc.ID, &session.EventActions{StateDelta: make(map[string]any)}, nil)
			res, err := run.Run(tc, fc.Args)
			if err != nil {
				return adkOutcome(err, text)
			}
			b, err := json.Marshal(res)
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

// adkOutcome reports a tool error: ADK sends it to the model as
// {"error": message} in the FunctionResponse.
func adkOutcome(err error, text *string) (bool, error) {
	if text != nil {
		*text = err.Error()
	}
	if errors.Is(err, context.Canceled) {
		return false, err
	}
	return true, nil
}

// invocation is the agent.InvocationContext of a bare tool call: no agent,
// memory or artifacts, and a session only when the tool reads one (ADK's
// own context is internal). functiontool's Run reads none of them;
// tooladk's reads the session's IDs; ToolContext keeps it for the tool.
type invocation struct {
	context.Context
	session session.Session // nil for functiontool, which reads none
	ended   bool
}

func newInvocation(ctx context.Context) agent.InvocationContext { return &invocation{Context: ctx} }

func (*invocation) Agent() agent.Agent          { return nil }
func (*invocation) Artifacts() agent.Artifacts  { return nil }
func (*invocation) Memory() agent.Memory        { return nil }
func (i *invocation) Session() session.Session  { return i.session }
func (*invocation) InvocationID() string        { return "e-bench" }
func (*invocation) Branch() string              { return "" }
func (*invocation) UserContent() *genai.Content { return nil }
func (*invocation) RunConfig() *agent.RunConfig { return nil }
func (i *invocation) EndInvocation()            { i.ended = true }
func (i *invocation) Ended() bool               { return i.ended }
func (i *invocation) WithContext(ctx context.Context) agent.InvocationContext {
	return &invocation{Context: ctx, session: i.session, ended: i.ended}
}
