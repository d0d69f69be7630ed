package tooladk

import (
	"context"
	"encoding/json"
	"net/url"

	"google.golang.org/adk/agent"

	"github.com/toolbelt-go/tool"
)

// StateError is the error a tool's Run returns when [Options].State
// fails: the call does not run. ADK hands it to the agent's
// OnToolErrorCallbacks, where the host finds its cause (errors.As, Err);
// the model reads only its Error text, which does not carry the cause.
type StateError struct {
	// Tool is the tool's name in the registry.
	Tool string
	// Err is what Options.State returned.
	Err error
}

// Error returns what the model reads: that the application could not
// prepare the call.
func (e *StateError) Error() string { return stateFailed(e.Tool) }

// Unwrap returns Err.
func (e *StateError) Unwrap() error { return e.Err }

// run makes one call of the model, named sent, through the registry.
func (t *Toolset[C]) run(ctx agent.ToolContext, sent string, args any) (map[string]any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return map[string]any{"error": argsNotEncodable(sent)}, nil
	}
	req := t.x.Request(ctx.FunctionCallID(), sent, raw)
	if err := t.x.CheckPrecision(req); err != nil {
		// Gemini carries numbers as 64-bit floats: a large integer may have
		// changed on the way, and must not run as if the model wrote it.
		return map[string]any{"error": "Error: " + err.Error()}, nil
	}
	req.Session = t.session(ctx)
	var state C
	if t.opts.State != nil {
		if state, err = t.opts.State(ctx); err != nil {
			return nil, &StateError{Tool: req.Name, Err: err}
		}
	}
	// A call ADK runs with a confirmation is a resumed one: it can carry an
	// answer, and ADK shows no new question for it.
	confirmed := ctx.ToolConfirmation() != nil
	if confirmed {
		req.Approval = answer(ctx)
	}
	res := t.reg.Call(withToolContext(ctx), state, req)
	if res.Status == tool.StatusAwaitingApproval {
		if p := res.Pending; p != nil && p.Answerer == Answerer && !confirmed {
			return ask(ctx, res)
		}
		// Deferred to someone else, who does not wait for the answer; or
		// asked while resumed, when ADK shows no second question. Nothing
		// here can answer it: the model is told, truthfully.
		return map[string]any{"error": notRelayed(req.Name)}, nil
	}
	return response(res), nil
}

// session is the call's session: Options.Session, or ADK's app, user and
// session IDs, each escaped so that no two triples make the same name.
func (t *Toolset[C]) session(ctx agent.ToolContext) string {
	if t.opts.Session != nil {
		return t.opts.Session(ctx)
	}
	return "adk/" + url.PathEscape(ctx.AppName()) + "/" + url.PathEscape(ctx.UserID()) + "/" + url.PathEscape(ctx.SessionID())
}

type toolContextKey struct{}

// withToolContext is the context a call runs under: ctx itself (its
// deadline, its cancellation, its values), able to give back ADK's tool
// context to the approver and the tools (ToolContextFrom).
func withToolContext(ctx agent.ToolContext) context.Context {
	return context.WithValue(ctx, toolContextKey{}, ctx)
}

// ToolContextFrom returns ADK's tool context of the call that ctx belongs
// to, when the call came through a [Toolset]: a tool reads the session's
// state, the user or the artifacts from it, and the host's own approver
// tells a call from an ADK agent by it. A tool that keeps using it after
// it returns (a tool abandoned at its deadline) races with ADK.
func ToolContextFrom(ctx context.Context) (agent.ToolContext, bool) {
	tc, ok := ctx.Value(toolContextKey{}).(agent.ToolContext)
	return tc, ok
}
