package tooladk

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool/toolconfirmation"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
)

// FuzzDecision reads confirmation answers as a client may send them: any
// payload, confirmed or not. Only a confirmation allows, a payload never
// allows more than it says, and the reason the model reads is bounded.
func FuzzDecision(f *testing.F) {
	for _, seed := range []string{`null`, `{}`, `"yes"`, `{"decision":"allow_always"}`, `{"decision":"deny","reason":"no"}`,
		`{"decision":"allow_once","reason":"` + strings.Repeat("é", 2000) + `"}`, `{"decision":7}`, `[{"decision":"allow_always"}]`} {
		f.Add(true, []byte(seed))
		f.Add(false, []byte(seed))
	}
	f.Fuzz(func(t *testing.T, confirmed bool, payload []byte) {
		var v any
		if json.Unmarshal(payload, &v) != nil {
			return
		}
		d := decision(&toolconfirmation.ToolConfirmation{Confirmed: confirmed, Payload: v})
		switch {
		case !confirmed && d.Kind != tool.DecisionDeny:
			t.Fatalf("not confirmed, decided %v", d.Kind)
		case d.Kind != tool.DecisionDeny && d.Kind != tool.DecisionAllowOnce && d.Kind != tool.DecisionAllowAlways:
			t.Fatalf("decided %v", d.Kind)
		case len(d.Reason) > maxReason || !utf8.ValidString(d.Reason):
			t.Fatalf("reason of %d bytes, valid UTF-8 %v", len(d.Reason), utf8.ValidString(d.Reason))
		}
		if m, _ := v.(map[string]any); d.Kind == tool.DecisionAllowAlways && m[AnswerFieldDecision] != AnswerAllowAlways {
			t.Fatalf("allowed always on %s", payload)
		}
	})
}

// FuzzRun sends the toolset's Run any arguments a model's call can carry
// (any JSON value, as genai decodes it): it answers every one with exactly
// one of "output" or "error", never with an error of the run, and a
// destructive call never runs unasked.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{`null`, `{}`, `[]`, `"{\"city\":\"x\"}"`, `{"city":"Lisbon"}`, `{"city":"Lisbon","units":"kelvin"}`,
		`{"city":1e400}`, `{"path":"/etc/passwd"}`, `{"n":9007199254740993}`,
		`{"city":"\u202e"}`, `{"city":{"city":{"city":null}}}`} {
		f.Add("weather", []byte(seed))
		f.Add("delete_file", []byte(seed))
	}
	var deleted atomic.Int32
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(
		tool.New(tool.Definition{Name: "weather", Description: "Weather.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in struct {
				City string `json:"city" jsonschema:"minLength=1"`
			}) (string, error) {
				return "sunny in " + in.City, nil
			}),
		tool.New(tool.Definition{Name: "delete_file", Description: "Delete.", Safety: tool.SafetyDestructive},
			func(context.Context, struct {
				Path string `json:"path"`
			}) (string, error) {
				deleted.Add(1)
				return "deleted", nil
			}),
	)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: Approver()}))
	ts := New(reg, nil)
	sessions := session.InMemoryService()
	s, err := sessions.Create(context.Background(), &session.CreateRequest{AppName: "fuzz", UserID: "u"})
	if err != nil {
		f.Fatal(err)
	}
	ic := &invocation{Context: context.Background(), session: s.Session}
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		if name != "weather" && name != "delete_file" {
			return
		}
		var v any
		if json.Unmarshal(args, &v) != nil {
			return
		}
		tc := agent.NewToolContext(ic, "call-"+string(rune('a'+n.Add(1)%26)), nil, nil)
		out, err := ts.run(tc, name, v)
		if err != nil {
			t.Fatalf("Run returned an error: %v", err)
		}
		_, isOut := out["output"]
		_, isErr := out["error"]
		if len(out) != 1 || isOut == isErr {
			t.Fatalf("answered %v", out)
		}
		if deleted.Load() != 0 {
			t.Fatal("a destructive call ran without an answer")
		}
	})
}

// invocation is the agent.InvocationContext of a bare tool call on a real
// session: what Run reads of it.
type invocation struct {
	context.Context
	session session.Session
}

func (*invocation) Agent() agent.Agent          { return nil }
func (*invocation) Artifacts() agent.Artifacts  { return nil }
func (*invocation) Memory() agent.Memory        { return nil }
func (i *invocation) Session() session.Session  { return i.session }
func (*invocation) InvocationID() string        { return "e-fuzz" }
func (*invocation) Branch() string              { return "" }
func (*invocation) UserContent() *genai.Content { return nil }
func (*invocation) RunConfig() *agent.RunConfig { return nil }
func (*invocation) EndInvocation()              {}
func (*invocation) Ended() bool                 { return false }
func (i *invocation) WithContext(ctx context.Context) agent.InvocationContext {
	return &invocation{Context: ctx, session: i.session}
}
