package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
)

type noteArgs struct {
	Text string `json:"text" jsonschema:"minLength=1"`
}

// approvalRegistry has a tool that needs approval and counts its runs.
// keys and memory, when set, are shared with other replicas.
func approvalRegistry(t *testing.T, keys *keyring.Keyring, memory tool.ApprovalStore) (*tool.Registry[state], *atomic.Int32, *finished) {
	t.Helper()
	var runs atomic.Int32
	rec := &finished{}
	reg := tool.NewRegistry[state](&tool.RegistryOptions{Keyring: keys, Observer: rec})
	reg.MustAdd(tool.New(tool.Definition{Name: "write_note", Title: "Write a note", Description: "Write a note.", Safety: tool.SafetyMutating},
		func(_ context.Context, in noteArgs) (string, error) {
			runs.Add(1)
			return "wrote " + in.Text, nil
		}))
	reg.Use(tool.Approval(&tool.ApprovalOptions[state]{Approver: Approver(nil), Store: memory}))
	return reg, &runs, rec
}

// elicitor answers elicitations with a script and records them.
type elicitor struct {
	mu      sync.Mutex
	answers []*sdk.ElicitResult
	asked   []*sdk.ElicitParams
}

func (e *elicitor) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, req.Params)
	if len(e.answers) == 0 {
		return &sdk.ElicitResult{Action: "cancel"}, nil
	}
	a := e.answers[0]
	e.answers = e.answers[1:]
	return a, nil
}

func (e *elicitor) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.asked)
}

func accept(decision, reason string) *sdk.ElicitResult {
	c := map[string]any{"decision": decision}
	if reason != "" {
		c["reason"] = reason
	}
	return &sdk.ElicitResult{Action: "accept", Content: c}
}

func TestApprovalAnswers(t *testing.T) {
	tests := []struct {
		name   string
		answer *sdk.ElicitResult
		runs   bool
		text   string // in the result the model reads
	}{
		{"allow once", accept("allow_once", ""), true, "wrote hi"},
		{"deny with a reason", accept("deny", "not in this folder"), false, "not in this folder"},
		{"decline", &sdk.ElicitResult{Action: "decline"}, false, "declined"},
		{"cancel", &sdk.ElicitResult{Action: "cancel"}, false, "dismissed"},
	}
	for _, protocol := range protocols {
		for _, tt := range tests {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				reg, runs, _ := approvalRegistry(t, nil, nil)
				el := &elicitor{answers: []*sdk.ElicitResult{tt.answer}}
				cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{ElicitationHandler: el.handle}, protocol)
				res := call(t, cs, "write_note", `{"text":"hi"}`)
				if got := runs.Load() == 1; got != tt.runs {
					t.Errorf("ran = %v, want %v", got, tt.runs)
				}
				if res.IsError == tt.runs || !strings.Contains(text(res), tt.text) {
					t.Errorf("isError=%v %q, want it to contain %q", res.IsError, text(res), tt.text)
				}
				if el.count() != 1 {
					t.Fatalf("asked %d times, want once", el.count())
				}
				msg := el.asked[0].Message
				for _, s := range []string{"Write a note", "write_note", `{"text":"hi"}`} {
					if !strings.Contains(msg, s) {
						t.Errorf("the question %q does not show %q", msg, s)
					}
				}
			})
		}
	}
}

func TestApprovalClientCannotAsk(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			reg, runs, rec := approvalRegistry(t, nil, nil)
			cs := connect(t, serve(t, reg, nil), nil, protocol) // no elicitation handler: no capability
			res, err := callErr(cs, "write_note", `{"text":"hi"}`)
			if runs.Load() != 0 {
				t.Fatalf("runs=%d: a client that cannot ask must not get the call run", runs.Load())
			}
			if protocol == mrtrProtocol {
				// SEP-2575: a request that needs a capability the client did
				// not declare is refused with the protocol's own error.
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) || werr.Code != sdk.CodeMissingRequiredClientCapabilities ||
					string(werr.Data) != `{"requiredCapabilities":{"elicitation":{}}}` {
					t.Fatalf("got %v %+v, want a -32021 error naming elicitation", err, res)
				}
			} else {
				if err != nil || !res.IsError || !strings.Contains(text(res), "could not be asked") {
					t.Fatalf("got %v, isError=%v %q", err, res != nil && res.IsError, text(res))
				}
			}
			if h := rec.result("write_note"); h.Status != tool.StatusDenied || !errors.Is(h.Err, ErrCannotAsk) {
				t.Errorf("host view: %s %v", h.Status, h.Err)
			}
		})
	}
}

func TestApprovalInvalidAnswer(t *testing.T) {
	answers := []*sdk.ElicitResult{
		accept("allow_forever", ""),
		{Action: "accept"},
		{Action: "accept", Content: map[string]any{"decision": true}},
		{Action: "yes"},
	}
	t.Run(legacyProtocol, func(t *testing.T) {
		reg, runs, _ := approvalRegistry(t, nil, nil)
		el := &elicitor{answers: answers}
		cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{ElicitationHandler: el.handle}, legacyProtocol)
		for range answers {
			if res := call(t, cs, "write_note", `{"text":"hi"}`); !res.IsError || runs.Load() != 0 {
				t.Fatalf("an answer that is not a choice ran the call: %q", text(res))
			}
		}
	})
	// On 2026-07-28 the answer reaches the server unchecked, in the retry.
	t.Run(mrtrProtocol, func(t *testing.T) {
		reg, runs, _ := approvalRegistry(t, nil, nil)
		cs := manualClient(t, serve(t, reg, nil))
		for _, a := range answers {
			st := firstRound(t, cs, `{"text":"hi"}`)
			res, err := mrtrCall(cs, `{"text":"hi"}`, a, st)
			if err != nil || !res.IsError || runs.Load() != 0 {
				t.Fatalf("answer %+v: err=%v, ran=%d %q", a, err, runs.Load(), text(res))
			}
		}
	})
}

func TestApprovalAllowAlways(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			reg, runs, _ := approvalRegistry(t, nil, nil)
			el := &elicitor{answers: []*sdk.ElicitResult{accept("allow_always", "")}}
			opts := &Options[state]{Session: func(*sdk.CallToolRequest) string { return "conversation-1" }}
			cs := connect(t, serve(t, reg, opts), &sdk.ClientOptions{ElicitationHandler: el.handle}, protocol)
			call(t, cs, "write_note", `{"text":"one"}`)
			call(t, cs, "write_note", `{"text":"two"}`)
			if runs.Load() != 2 || el.count() != 1 {
				t.Fatalf("runs=%d asked=%d, want 2 runs and one question", runs.Load(), el.count())
			}
			if !strings.Contains(el.asked[0].Message, "write_note") {
				t.Errorf("question: %q", el.asked[0].Message)
			}
		})
	}
}

// A connection MCP gives no session ID (stdio, in-memory) is one
// conversation: "allow always" holds on it, and on no other connection.
func TestApprovalAllowAlwaysPerConnection(t *testing.T) {
	reg, runs, _ := approvalRegistry(t, nil, nil)
	server := serve(t, reg, nil)
	el := &elicitor{answers: []*sdk.ElicitResult{accept("allow_always", ""), accept("allow_once", "")}}
	first := connect(t, server, &sdk.ClientOptions{ElicitationHandler: el.handle}, legacyProtocol)
	call(t, first, "write_note", `{"text":"one"}`)
	call(t, first, "write_note", `{"text":"two"}`)
	if runs.Load() != 2 || el.count() != 1 {
		t.Fatalf("runs=%d asked=%d, want 2 runs and one question", runs.Load(), el.count())
	}
	second := connect(t, server, &sdk.ClientOptions{ElicitationHandler: el.handle}, legacyProtocol)
	call(t, second, "write_note", `{"text":"three"}`)
	if runs.Load() != 3 || el.count() != 2 {
		t.Fatalf("runs=%d asked=%d: another connection must be asked", runs.Load(), el.count())
	}
}

// With no session (the host's Session says so, as HTTP without one does),
// the question does not offer what cannot be remembered.
func TestApprovalAllowAlwaysNotOfferedWithoutSession(t *testing.T) {
	reg, _, _ := approvalRegistry(t, nil, nil)
	el := &elicitor{answers: []*sdk.ElicitResult{accept("allow_once", "")}}
	opts := &Options[state]{Session: func(*sdk.CallToolRequest) string { return "" }}
	cs := connect(t, serve(t, reg, opts), &sdk.ClientOptions{ElicitationHandler: el.handle}, legacyProtocol)
	call(t, cs, "write_note", `{"text":"one"}`)
	schema := el.asked[0].RequestedSchema.(map[string]any)
	enum := schema["properties"].(map[string]any)["decision"].(map[string]any)["enum"]
	if strings.Contains(strings.Join(toStrings(enum), ","), ApprovalAllowAlways) {
		t.Errorf("allow_always offered where nothing can be remembered: %v", enum)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// mrtrCall calls write_note with the client's automatic retries off, so
// the test sees each round.
func mrtrCall(cs *sdk.ClientSession, args string, answer *sdk.ElicitResult, state string) (*sdk.CallToolResult, error) {
	p := &sdk.CallToolParams{Name: "write_note", Arguments: rawArgs(args), RequestState: state}
	if answer != nil {
		p.InputResponses = sdk.InputResponseMap{ApprovalInputKey: answer}
	}
	return cs.CallTool(context.Background(), p)
}

func manualClient(t *testing.T, server *sdk.Server) *sdk.ClientSession {
	el := &elicitor{} // declares the capability; never called: the test answers
	return connect(t, server, &sdk.ClientOptions{
		ElicitationHandler: el.handle,
		MultiRoundTrip:     &sdk.MultiRoundTripOptions{Disabled: true},
	}, mrtrProtocol)
}

// firstRound makes the call that asks, and returns its requestState.
func firstRound(t *testing.T, cs *sdk.ClientSession, args string) string {
	t.Helper()
	res, err := mrtrCall(cs, args, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("want an input-required result with requestState, got %+v", res)
	}
	ep, ok := res.InputRequests[ApprovalInputKey].(*sdk.ElicitParams)
	if !ok || !strings.Contains(ep.Message, "write_note") {
		t.Fatalf("input requests: %#v", res.InputRequests)
	}
	if len(res.Content) != 0 {
		t.Fatalf("an input-required result carries content: %v", res.Content)
	}
	return res.RequestState
}

func TestMultiRoundTripApproval(t *testing.T) {
	reg, runs, _ := approvalRegistry(t, nil, nil)
	cs := manualClient(t, serve(t, reg, nil))
	const args = `{"text":"hi"}`

	st := firstRound(t, cs, args)
	if runs.Load() != 0 {
		t.Fatal("the tool ran before it was approved")
	}
	res, err := mrtrCall(cs, args, accept("allow_once", ""), st)
	if err != nil || res.IsError || text(res) != "wrote hi" || runs.Load() != 1 {
		t.Fatalf("retry with the answer: err=%v res=%q runs=%d", err, text(res), runs.Load())
	}

	refused := func(name, args string, answer *sdk.ElicitResult, state string) {
		t.Run(name, func(t *testing.T) {
			before := runs.Load()
			_, err := mrtrCall(cs, args, answer, state)
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "requestState") {
				t.Fatalf("err = %v, want an invalid-params error about requestState", err)
			}
			if runs.Load() != before {
				t.Fatal("the tool ran")
			}
		})
	}
	refused("replayed", args, accept("allow_once", ""), st)
	st2 := firstRound(t, cs, args)
	refused("tampered", args, accept("allow_once", ""), st2+"-TAMPERED")
	refused("other arguments", `{"text":"rm -rf"}`, accept("allow_once", ""), st2)
	refused("not a state", args, accept("allow_once", ""), "hello")

	t.Run("missing answer asks again", func(t *testing.T) {
		st3 := firstRound(t, cs, args)
		res, err := mrtrCall(cs, args, nil, st3)
		if err != nil || !res.NeedsInput() || res.RequestState == st3 {
			t.Fatalf("err=%v needsInput=%v: want a new question", err, res.NeedsInput())
		}
	})
	t.Run("deny", func(t *testing.T) {
		before := runs.Load()
		st4 := firstRound(t, cs, args)
		res, err := mrtrCall(cs, args, accept("deny", "no notes today"), st4)
		if err != nil || !res.IsError || !strings.Contains(text(res), "no notes today") || runs.Load() != before {
			t.Fatalf("err=%v isError=%v %q", err, res.IsError, text(res))
		}
	})
}

func TestMultiRoundTripAutomaticClient(t *testing.T) {
	reg, runs, _ := approvalRegistry(t, nil, nil)
	el := &elicitor{answers: []*sdk.ElicitResult{accept("allow_once", "")}}
	// The SDK client answers input requests with its elicitation handler
	// and retries by itself.
	cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{ElicitationHandler: el.handle}, mrtrProtocol)
	res := call(t, cs, "write_note", `{"text":"auto"}`)
	if res.IsError || runs.Load() != 1 || el.count() != 1 {
		t.Fatalf("isError=%v runs=%d asked=%d", res.IsError, runs.Load(), el.count())
	}
}

// Two replicas that share the keyring and the approval memory, and name
// the session from what the client is (here, one user): the call asked on
// one is resumed on the other, and only once.
func TestMultiRoundTripAcrossReplicas(t *testing.T) {
	user := &Options[state]{Session: func(*sdk.CallToolRequest) string { return "user-1" }}
	keys, err := keyring.FromSecret([]byte("a secret shared by every replica, 32+ bytes"))
	if err != nil {
		t.Fatal(err)
	}
	memory := tool.NewMemoryApprovalStore(0)
	regA, runsA, _ := approvalRegistry(t, keys, memory)
	regB, runsB, _ := approvalRegistry(t, keys, memory)
	a := manualClient(t, serve(t, regA, user))
	b := manualClient(t, serve(t, regB, user))
	const args = `{"text":"replicated"}`
	st := firstRound(t, a, args)
	res, err := mrtrCall(b, args, accept("allow_once", ""), st)
	if err != nil || res.IsError || runsB.Load() != 1 || runsA.Load() != 0 {
		t.Fatalf("resume on B: err=%v %q runsA=%d runsB=%d", err, text(res), runsA.Load(), runsB.Load())
	}
	if _, err := mrtrCall(a, args, accept("allow_once", ""), st); err == nil || runsA.Load() != 0 {
		t.Fatalf("the state was used twice: err=%v runsA=%d", err, runsA.Load())
	}
	// A replica with another key cannot resume it.
	regC, runsC, _ := approvalRegistry(t, nil, memory)
	c := manualClient(t, serve(t, regC, user))
	st2 := firstRound(t, a, args)
	if _, err := mrtrCall(c, args, accept("allow_once", ""), st2); err == nil || runsC.Load() != 0 {
		t.Fatalf("a foreign keyring resumed the call: err=%v", err)
	}
}

// The approval form's question shows the arguments that will run whole,
// however long the tool's preview: the preview is cut, saying so, and the
// arguments come last, after it. A preview made from the arguments is not
// shown beside them a second time.
func TestApprovalQuestionShowsTheArgumentsWhole(t *testing.T) {
	longText := strings.Repeat("a line of the note\n", 700) + "; rm -rf src"
	for _, protocol := range protocols {
		for _, tc := range []struct {
			name     string
			describe bool
			text     string
		}{
			{"after a preview of 26 KiB", true, longText},
			{"with a preview made from them", false, "hi"},
		} {
			t.Run(protocol+"/"+tc.name, func(t *testing.T) {
				reg := tool.NewRegistry[state](nil)
				write := tool.New(tool.Definition{Name: "write_note", Description: "Write a note.", Safety: tool.SafetyMutating},
					func(_ context.Context, in noteArgs) (string, error) { return "wrote", nil })
				if tc.describe {
					write = tool.WithApprovalHooks(write, tool.ApprovalHooks[noteArgs]{
						Describe: func(_ context.Context, in noteArgs) (tool.Preview, error) {
							return tool.Preview{Title: "Write a note", Edits: []tool.Edit{{Path: "note.txt", New: in.Text + in.Text}}}, nil
						},
					})
				}
				reg.MustAdd(write)
				reg.Use(tool.Approval(&tool.ApprovalOptions[state]{Approver: Approver(nil)}))
				el := &elicitor{answers: []*sdk.ElicitResult{accept("deny", "")}}
				cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{ElicitationHandler: el.handle}, protocol)
				args, _ := json.Marshal(noteArgs{Text: tc.text})
				call(t, cs, "write_note", string(args))
				if el.count() != 1 {
					t.Fatalf("asked %d times, want once", el.count())
				}
				msg := el.asked[0].Message
				if !strings.HasSuffix(msg, "\n\nArguments: "+string(args)) {
					t.Errorf("the question does not end with the arguments whole: …%q", msg[max(0, len(msg)-200):])
				}
				if n := strings.Count(msg, string(args)); n != 1 {
					t.Errorf("the arguments are shown %d times", n)
				}
				if cut := strings.Contains(msg, "[… the preview is cut here: "); cut != tc.describe {
					t.Errorf("the preview said cut: %v, want %v", cut, tc.describe)
				}
			})
		}
	}
}
