package tooladk_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	adktool "google.golang.org/adk/tool"
	"google.golang.org/adk/tool/toolconfirmation"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooladk/adktest"
	"github.com/toolbelt-go/tool/workspace"
)

// What the model reads of calls ADK's runner makes through the toolset:
// each goes through the registry's pipeline, and a call the pipeline
// refuses is answered with its retry hint, never an error of the run.
func TestCallThroughRunner(t *testing.T) {
	for _, tc := range []struct {
		name       string
		call       *genai.FunctionCall
		wantOutput string
		wantError  []string
	}{
		{"valid; host state from ADK's context", adktest.Call("c1", "weather", `{"city":"Lisbon"}`), "21°C and sunny in Lisbon (metric) for user", nil},
		{"not in the enum: the retry hint", adktest.Call("c1", "weather", `{"city":"Lisbon","units":"kelvin"}`), "",
			[]string{"Invalid arguments for weather", `/units: must be one of "metric", "imperial"`, "Fix the arguments and call weather again."}},
		{"missing key", adktest.Call("c1", "weather", `{}`), "", []string{"Required keys: city."}},
		{"unknown key", adktest.Call("c1", "weather", `{"city":"Lisbon","unit":"metric"}`), "", []string{`"unit"`, `Did you mean "units"?`}},
		{"key in another case", adktest.Call("c1", "weather", `{"City":"Lisbon"}`), "", []string{`"City"`}},
		{"null for a string", adktest.Call("c1", "weather", `{"city":null}`), "", []string{"/city"}},
		{"an integer past 2^53, changed by Gemini's floats", adktest.Call("c1", "count", `{"n":9007199254740993}`), "",
			[]string{"2^53"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, _ := newRegistry(t, nil, nil)
			reg.MustAdd(tool.New(tool.Definition{Name: "count", Description: "Count to n."},
				func(_ context.Context, in struct {
					N int64 `json:"n"`
				}) (int64, error) {
					return in.N, nil
				}))
			r := newRunner(tooladk.New(reg, stateFromADK()))
			turn, err := r.Run(context.Background(), tc.call)
			if err != nil {
				t.Fatalf("the run failed: %v", err)
			}
			resp := turn.Response("c1")
			if resp == nil {
				t.Fatalf("no function response in %d events", len(turn.Events))
			}
			if tc.wantError == nil {
				if got := outputText(resp); got != tc.wantOutput || errorText(resp) != "" {
					t.Errorf("answered %v, want output %q", resp, tc.wantOutput)
				}
				return
			}
			if _, ok := resp["output"]; ok {
				t.Errorf("answered with output: %v", resp)
			}
			contains(t, "the error", errorText(resp), tc.wantError...)
		})
	}
}

// A call ID that already ran in the session (the model repeats a call, a
// turn is replayed) is answered from its record: the tool does not run
// again. Another session's call with the same ID runs.
func TestRecordKeyedByFunctionCallID(t *testing.T) {
	reg, _ := newRegistry(t, nil, nil)
	var runs atomic.Int32
	reg.MustAdd(tool.New(tool.Definition{Name: "tick", Description: "Count a tick."},
		func(context.Context, struct{}) (int32, error) { return runs.Add(1), nil }))
	ts := tooladk.New(reg, nil)
	r := newRunner(ts)
	ctx := context.Background()
	for i := range 2 {
		turn, err := r.Run(ctx, adktest.Call("c1", "tick", `{}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := outputText(turn.Response("c1")); got != "1" {
			t.Errorf("call %d answered %v, want the first call's 1", i+1, turn.Response("c1"))
		}
	}
	if runs.Load() != 1 {
		t.Errorf("the tool ran %d times, want once", runs.Load())
	}
	other := newRunner(ts) // another session
	turn, err := other.Run(ctx, adktest.Call("c1", "tick", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := outputText(turn.Response("c1")); got != "2" {
		t.Errorf("another session's c1 answered %v, want it to run (2)", turn.Response("c1"))
	}
}

// The stages past approval hold through the runner: the tool's deadline,
// its call limits, and the output cap, whose rest the model reads with
// read_output in the same session.
func TestStagesThroughRunner(t *testing.T) {
	reg := tool.NewRegistry[host](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	reg.MustAdd(
		tool.New(tool.Definition{Name: "slow", Description: "Never ends on its own.", Timeout: 50 * time.Millisecond},
			func(ctx context.Context, _ struct{}) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
			}),
		tool.New(tool.Definition{Name: "once", Description: "Once a minute.", CallLimits: []tool.CallLimit{{Rate: 1, PerSession: true}}},
			func(context.Context, struct{}) (string, error) { return "ran", nil }),
		tool.New(tool.Definition{Name: "log", Description: "A long log.", MaxOutputBytes: 1024},
			func(context.Context, struct{}) (string, error) { return longLog, nil }),
	)
	r := newRunner(tooladk.New(reg, nil))
	ctx := context.Background()

	turn, err := r.Run(ctx, adktest.Call("d1", "slow", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "the timed-out call", errorText(turn.Response("d1")), "50ms")

	turn, err = r.Run(ctx, adktest.Call("l1", "once", `{}`), adktest.Call("l2", "once", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	first, second := turn.Response("l1"), turn.Response("l2")
	if outputText(first) != "ran" && outputText(second) != "ran" {
		t.Errorf("neither limited call ran: %v %v", first, second)
	}
	if errorText(first) == "" && errorText(second) == "" {
		t.Errorf("both calls ran past a limit of one a minute: %v %v", first, second)
	}

	turn, err = r.Run(ctx, adktest.Call("o1", "log", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	cutText := outputText(turn.Response("o1"))
	m := regexp.MustCompile(`call read_output with \{"cursor":"([A-Za-z0-9_-]+)"\}`).FindStringSubmatch(cutText)
	if m == nil {
		t.Fatalf("no read_output cursor in the cut result:\n%s", cutText)
	}
	turn, err = r.Run(ctx, adktest.Call("o2", tool.ReadOutputTool, `{"cursor":"`+m[1]+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	rest := outputText(turn.Response("o2"))
	if !strings.Contains(rest, "line 0200") {
		t.Errorf("read_output did not give back the cut part:\n%s", rest)
	}
}

var longLog = func() string {
	var b strings.Builder
	for i := range 400 {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("0", 4-len(itoa(i))) + itoa(i))
		b.WriteString(": all is well\n")
	}
	return b.String()
}()

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// The registry's observer sees each call with ADK's function-call ID and
// the ADK session, and a tool reaches ADK's tool context.
func TestEventsAndToolContext(t *testing.T) {
	var mu sync.Mutex
	var events []tool.Event
	reg := tool.NewRegistry[host](&tool.RegistryOptions{Observer: tool.ObserverFunc(func(e tool.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	})})
	reg.MustAdd(tool.New(tool.Definition{Name: "whoami", Description: "Who calls."},
		func(ctx context.Context, _ struct{}) (string, error) {
			tc, ok := tooladk.ToolContextFrom(ctx)
			if !ok {
				return "", errors.New("no ADK tool context")
			}
			return tc.FunctionCallID() + " " + tc.UserID() + " " + tc.AgentName(), nil
		}))
	r := newRunner(tooladk.New(reg, nil))
	turn, err := r.Run(context.Background(), adktest.Call("w1", "whoami", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := outputText(turn.Response("w1")); got != "w1 user agent" {
		t.Errorf("the tool read %q from ADK's context, want %q", got, "w1 user agent")
	}
	mu.Lock()
	defer mu.Unlock()
	wantSession := "adk/adktest/user/" + r.SessionID
	var kinds []tool.EventKind
	for _, e := range events {
		kinds = append(kinds, e.Kind)
		if e.CallID != "w1" || e.Session != wantSession {
			t.Errorf("event %v for call %q in session %q, want w1 in %q", e.Kind, e.CallID, e.Session, wantSession)
		}
	}
	if len(kinds) < 2 || kinds[0] != tool.EventStarted || kinds[len(kinds)-1] != tool.EventFinished {
		t.Errorf("events %v, want Started … Finished", kinds)
	}
}

// Options.State failing: the call does not run, the model reads that the
// application could not prepare it (not the cause), and ADK's
// OnToolErrorCallbacks get the cause.
func TestStateError(t *testing.T) {
	reg, _ := newRegistry(t, nil, nil)
	cause := errors.New("database down at 10.0.0.7")
	ts := tooladk.New(reg, &tooladk.Options[host]{State: func(agent.ToolContext) (host, error) { return host{}, cause }})
	var seen error
	r := adktest.NewRunner(adktest.Config{Toolsets: []adktool.Toolset{ts}, Agent: func(c *llmagent.Config) {
		c.OnToolErrorCallbacks = append(c.OnToolErrorCallbacks, func(_ agent.ToolContext, _ adktool.Tool, _ map[string]any, err error) (map[string]any, error) {
			seen = err
			return nil, nil
		})
	}})
	turn, err := r.Run(context.Background(), adktest.Call("c1", "weather", `{"city":"Lisbon"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := errorText(turn.Response("c1"))
	contains(t, "the model's answer", got, "could not be prepared by the application")
	if strings.Contains(got, "10.0.0.7") {
		t.Errorf("the host's cause reached the model: %q", got)
	}
	var se *tooladk.StateError
	if !errors.As(seen, &se) || !errors.Is(seen, cause) || se.Tool != "weather" {
		t.Errorf("OnToolErrorCallbacks got %v, want a *StateError of weather wrapping the cause", seen)
	}
}

// run_shell keeps its sandbox through ADK: a destructive command is asked
// about through ADK's confirmation, and once confirmed runs confined to
// the workspace (a write outside it fails, one inside succeeds).
func TestRunShellSandboxed(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	ct := codetools.New(ws, nil)
	if mode, why := ct.Sandbox(); mode == process.SandboxNone {
		if os.Getenv("TOOLBELT_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox, and TOOLBELT_REQUIRE_SANDBOX is set: %v", why)
		}
		t.Skipf("no sandbox on this machine (install bubblewrap): %v", why)
	}
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(ct.Tools()...)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooladk.Approver()}))
	r := newRunner(tooladk.New(reg, nil))
	ctx := context.Background()
	escape := filepath.Join(outside, "escaped.txt")
	command := `echo inside > inside.txt; rm -f inside.txt.old; echo out > ` + escape
	asked := 0
	resp, _, err := r.Drive(ctx, adktest.Call("s1", "run_shell", `{"command":"`+command+`"}`),
		func(q *toolconfirmation.ToolConfirmation) (bool, any) {
			asked++
			contains(t, "the question", q.Hint, "(tool run_shell)", "sandboxed, writing only in the workspace", "rm -f inside.txt.old")
			return true, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Errorf("asked %d times through ADK's confirmation, want once", asked)
	}
	if _, err := os.Stat(filepath.Join(dir, "inside.txt")); err != nil {
		t.Errorf("the write inside the workspace failed (%v): %v", err, resp)
	}
	if _, err := os.Stat(escape); err == nil {
		t.Errorf("the command wrote outside the workspace: %v", resp)
	}
}

// The function response of each kind of result: the keys Gemini
// documents, the structured output as JSON with its numbers as written.
func TestResponseShapes(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(
		tool.New(tool.Definition{Name: "big", Description: "A large id."},
			func(context.Context, struct{}) (map[string]any, error) {
				return map[string]any{"id": json.Number("12345678901234567890")}, nil
			}),
		tool.New(tool.Definition{Name: "empty", Description: "Nothing."},
			func(context.Context, struct{}) (string, error) { return "", nil }),
		tool.New(tool.Definition{Name: "fails", Description: "Fails."},
			func(context.Context, struct{}) (string, error) { return "", tool.Errorf("the disk is full") }),
	)
	r := newRunner(tooladk.New(reg, nil))
	turn, err := r.Run(context.Background(), adktest.Call("b", "big", `{}`), adktest.Call("e", "empty", `{}`), adktest.Call("f", "fails", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"b": `{"output":{"id":12345678901234567890}}`,
		"e": `{"output":"(the tool returned no output)"}`,
		"f": `{"error":"Error: the disk is full"}`,
	} {
		got, _ := json.Marshal(turn.Response(id))
		if string(got) != want {
			t.Errorf("call %s answered %s, want %s", id, got, want)
		}
	}
}
