// Package adktest runs ADK agents offline, for tests and examples: a
// scripted model (ADK's model.LLM) and a runner around it, an llmagent on
// an in-memory session, whose turns a test drives one function call at a
// time and whose tool confirmations it answers as ADK's UIs do.
//
//	r := adktest.NewRunner(adktest.Config{Toolsets: []adktool.Toolset{tooladk.New(reg, nil)}})
//	turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
//	// turn.Response("c1") is what the model read; turn.Confirmation() what ADK asked
//	turn, err = r.Confirm(ctx, turn.Confirmation(), true, nil)
//
// Nothing here reaches the network.
package adktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	adktool "google.golang.org/adk/tool"
	"google.golang.org/adk/tool/toolconfirmation"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooladk"
)

// Names of what a Runner makes.
const (
	AppName   = "adktest"
	UserID    = "user"
	AgentName = "agent"
	// Done is the text the scripted model answers with once the tools
	// have answered.
	Done = "done"
)

// Model is an offline model.LLM. When the request's last content holds
// function responses (the tools have answered), it answers [Done]; else
// it answers with the function calls the next turn was given
// ([Runner.Run]), or with Done when there are none. It keeps every request
// it was sent. It is safe for concurrent use.
type Model struct {
	mu       sync.Mutex
	calls    []*genai.FunctionCall
	requests []*model.LLMRequest
}

// Name returns "adktest".
func (m *Model) Name() string { return "adktest" }

// GenerateContent answers req as the type's doc says.
func (m *Model) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	m.mu.Lock()
	m.requests = append(m.requests, req)
	calls := m.calls
	m.calls = nil
	m.mu.Unlock()
	content := genai.NewContentFromText(Done, genai.RoleModel)
	if !answered(req) && len(calls) > 0 {
		content = &genai.Content{Role: genai.RoleModel}
		for _, c := range calls {
			content.Parts = append(content.Parts, &genai.Part{FunctionCall: c})
		}
	}
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(&model.LLMResponse{Content: content, TurnComplete: true}, nil)
	}
}

// Requests returns the requests the model was sent, oldest first.
func (m *Model) Requests() []*model.LLMRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*model.LLMRequest(nil), m.requests...)
}

// script sets the function calls of the next turn.
func (m *Model) script(calls []*genai.FunctionCall) {
	m.mu.Lock()
	m.calls = calls
	m.mu.Unlock()
}

// answered reports whether the request's last content is the tools'
// answers.
func answered(req *model.LLMRequest) bool {
	if len(req.Contents) == 0 {
		return false
	}
	last := req.Contents[len(req.Contents)-1]
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// Call returns the function call a model makes: its ID, the tool's name,
// and its arguments decoded from JSON as genai decodes a response's (into
// a map, numbers as float64). It panics if args is not a JSON object.
func Call(id, name, args string) *genai.FunctionCall {
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil || m == nil {
		panic(fmt.Sprintf("adktest: Call(%q): arguments %q are not a JSON object: %v", name, args, err))
	}
	return &genai.FunctionCall{ID: id, Name: name, Args: m}
}

// Config configures a [Runner].
type Config struct {
	// Tools and Toolsets are the agent's (llmagent.Config).
	Tools    []adktool.Tool
	Toolsets []adktool.Toolset
	// Sessions is the session service. Nil means a new in-memory one.
	// Two runners on one service are two replicas of one ADK app.
	Sessions session.Service
	// SessionID, if set, names a session of Sessions (app AppName, user
	// UserID) the turns run in, such as another Runner's: a turn can
	// then start on one replica and its confirmation be answered on the
	// other. Empty means a new session.
	SessionID string
	// Agent, if set, changes the agent's configuration before it is made
	// (its callbacks, say); Name, Model, Tools and Toolsets are set.
	Agent func(*llmagent.Config)
}

// Runner is ADK's runner with an llmagent whose model is a [Model], on
// one session. Its methods run one turn each and return its events.
type Runner struct {
	// Runner is ADK's runner.
	Runner *runner.Runner
	// Model is the agent's model.
	Model *Model
	// Sessions is the session service, and SessionID the session the
	// turns run in (user UserID, app AppName).
	Sessions  session.Service
	SessionID string
}

// NewRunner makes the agent, the runner and a session. It panics if ADK
// refuses them (a configuration error of the test).
func NewRunner(cfg Config) *Runner {
	r, err := newRunner(cfg)
	if err != nil {
		panic("adktest: " + err.Error())
	}
	return r
}

func newRunner(cfg Config) (*Runner, error) {
	m := &Model{}
	ac := llmagent.Config{Name: AgentName, Description: "an offline agent", Model: m, Tools: cfg.Tools, Toolsets: cfg.Toolsets}
	if cfg.Agent != nil {
		cfg.Agent(&ac)
	}
	a, err := llmagent.New(ac)
	if err != nil {
		return nil, err
	}
	sessions := cfg.Sessions
	if sessions == nil {
		sessions = session.InMemoryService()
	}
	run, err := runner.New(runner.Config{AppName: AppName, Agent: a, SessionService: sessions})
	if err != nil {
		return nil, err
	}
	id := cfg.SessionID
	if id == "" {
		s, err := sessions.Create(context.Background(), &session.CreateRequest{AppName: AppName, UserID: UserID})
		if err != nil {
			return nil, err
		}
		id = s.Session.ID()
	}
	return &Runner{Runner: run, Model: m, Sessions: sessions, SessionID: id}, nil
}

// Turn is the events of one turn, in order.
type Turn struct {
	Events []*session.Event
}

// Response returns the last function response to the call id in the
// turn, nil when there is none.
func (t *Turn) Response(id string) map[string]any {
	var out map[string]any
	for _, e := range t.Events {
		if e.Content == nil {
			continue
		}
		for _, p := range e.Content.Parts {
			if fr := p.FunctionResponse; fr != nil && fr.ID == id {
				out = fr.Response
			}
		}
	}
	return out
}

// Confirmation returns the turn's first adk_request_confirmation call
// (what ADK's UIs show as the question), nil when ADK asked nothing.
func (t *Turn) Confirmation() *genai.FunctionCall {
	for _, c := range t.Confirmations() {
		return c
	}
	return nil
}

// Confirmations returns every adk_request_confirmation call of the turn.
func (t *Turn) Confirmations() []*genai.FunctionCall {
	var out []*genai.FunctionCall
	for _, e := range t.Events {
		if e.Content == nil {
			continue
		}
		for _, p := range e.Content.Parts {
			if fc := p.FunctionCall; fc != nil && fc.Name == toolconfirmation.FunctionCallName {
				out = append(out, fc)
			}
		}
	}
	return out
}

// Question returns what a confirmation call asks: the ToolConfirmation
// the tool requested (its Hint and Payload) and the call it is about.
func Question(confirmation *genai.FunctionCall) (*toolconfirmation.ToolConfirmation, *genai.FunctionCall, error) {
	orig, err := toolconfirmation.OriginalCallFrom(confirmation)
	if err != nil {
		return nil, nil, err
	}
	switch tc := confirmation.Args["toolConfirmation"].(type) {
	case toolconfirmation.ToolConfirmation:
		return &tc, orig, nil
	case *toolconfirmation.ToolConfirmation:
		return tc, orig, nil
	default:
		b, err := json.Marshal(tc)
		if err != nil {
			return nil, nil, err
		}
		var out toolconfirmation.ToolConfirmation
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, nil, err
		}
		return &out, orig, nil
	}
}

// Run runs one turn: a user message, then the model makes calls (all at
// once, as one response), then, once they are answered, says [Done].
func (r *Runner) Run(ctx context.Context, calls ...*genai.FunctionCall) (*Turn, error) {
	r.Model.script(calls)
	return r.send(ctx, genai.NewContentFromText("go on", genai.RoleUser))
}

// Confirm answers a confirmation call as ADK's UIs do: a user message
// holding a FunctionResponse to it, {"confirmed": confirmed, "payload":
// payload}. ADK then runs the call it was about again, with the answer.
func (r *Runner) Confirm(ctx context.Context, confirmation *genai.FunctionCall, confirmed bool, payload any) (*Turn, error) {
	if confirmation == nil {
		return nil, errors.New("adktest: Confirm: no confirmation call (ADK asked nothing)")
	}
	resp := map[string]any{"confirmed": confirmed}
	if payload != nil {
		resp["payload"] = payload
	}
	return r.send(ctx, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID: confirmation.ID, Name: toolconfirmation.FunctionCallName, Response: resp}}}})
}

// Drive runs call in a turn of its own and answers each confirmation ADK
// asks about it with answer, until the call has an answer that is not a
// question (at most four rounds). It returns the function response the
// model read last, and the turns.
func (r *Runner) Drive(ctx context.Context, call *genai.FunctionCall,
	answer func(q *toolconfirmation.ToolConfirmation) (confirmed bool, payload any)) (map[string]any, []*Turn, error) {
	turn, err := r.Run(ctx, call)
	if err != nil {
		return nil, nil, err
	}
	turns := []*Turn{turn}
	for range 4 {
		c := turn.Confirmation()
		if c == nil {
			return turn.Response(call.ID), turns, nil
		}
		q, _, err := Question(c)
		if err != nil {
			return nil, turns, err
		}
		confirmed, payload := answer(q)
		if turn, err = r.Confirm(ctx, c, confirmed, payload); err != nil {
			return nil, turns, err
		}
		turns = append(turns, turn)
	}
	return turn.Response(call.ID), turns, errors.New("adktest: Drive: still asked after four answers")
}

// Answer returns how a user answers ADK's confirmation with the decision
// d, for [Runner.Confirm] and [Runner.Drive]: confirmed for allow once,
// confirmed with the payload {"decision": "allow_always"} for allow
// always, not confirmed with {"reason": d.Reason} for deny. ok is false
// for a decision ADK's confirmation cannot carry (an edit, a deferral).
func Answer(d tool.Decision) (confirmed bool, payload any, ok bool) {
	switch d.Kind {
	case tool.DecisionAllowOnce:
		return true, nil, true
	case tool.DecisionAllowAlways:
		return true, map[string]any{tooladk.AnswerFieldDecision: tooladk.AnswerAllowAlways}, true
	case tool.DecisionDeny:
		if d.Reason == "" {
			return false, nil, true
		}
		return false, map[string]any{tooladk.AnswerFieldReason: d.Reason}, true
	}
	return false, nil, false
}

// Forge appends to the session, as the agent, a confirmation request for
// call with other arguments, as one who can write to the session store
// would: ADK resumes what the newest agent-authored confirmation names,
// so answering the returned confirmation call makes ADK run call's ID
// with args. It is how a test checks that an answer is bound to the
// arguments that were shown.
func (r *Runner) Forge(ctx context.Context, shown *genai.FunctionCall, args string) (*genai.FunctionCall, error) {
	q, orig, err := Question(shown)
	if err != nil {
		return nil, err
	}
	altered := Call(orig.ID, orig.Name, args)
	fc := &genai.FunctionCall{ID: shown.ID + "-forged", Name: toolconfirmation.FunctionCallName,
		Args: map[string]any{"originalFunctionCall": altered, "toolConfirmation": *q}}
	got, err := r.Sessions.Get(ctx, &session.GetRequest{AppName: AppName, UserID: UserID, SessionID: r.SessionID})
	if err != nil {
		return nil, err
	}
	ev := session.NewEventWithContext(ctx, "forged")
	ev.Author = AgentName
	ev.Content = &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: fc}}}
	ev.LongRunningToolIDs = []string{fc.ID}
	if err := r.Sessions.AppendEvent(ctx, got.Session, ev); err != nil {
		return nil, err
	}
	return fc, nil
}

func (r *Runner) send(ctx context.Context, msg *genai.Content) (*Turn, error) {
	t := &Turn{}
	for ev, err := range r.Runner.Run(ctx, UserID, r.SessionID, msg, agent.RunConfig{}) {
		if err != nil {
			return t, err
		}
		t.Events = append(t.Events, ev)
	}
	return t, nil
}
