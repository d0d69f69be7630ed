package tooleino_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	einotool "github.com/cloudwego/eino/components/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/tooleino/einotest"
)

// names are the names the tools are shown under.
func names(t *testing.T, ts []einotool.BaseTool) []string {
	t.Helper()
	var ns []string
	for _, x := range ts {
		info, err := x.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ns = append(ns, info.Name)
	}
	return ns
}

// TestTools: every tool the registry lists, or the subset named, with
// read_output when the registry spills; a name the registry does not have
// is an error.
func TestTools(t *testing.T) {
	h := newHost(t, hostOptions{reg: &tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)}})
	h.reg.MustAdd(tool.New(tool.Definition{Name: "secret", Description: "Hidden.", Hidden: true},
		func(context.Context, struct{}) (string, error) { return "", nil }))
	for _, tc := range []struct {
		name   string
		subset []string
		want   []string
	}{
		{name: "all", want: []string{tool.ReadOutputTool, "search", "shell"}},
		{name: "a subset", subset: []string{"shell"}, want: []string{"shell", tool.ReadOutputTool}},
		{name: "a hidden tool by name", subset: []string{"secret", tool.ReadOutputTool}, want: []string{"secret", tool.ReadOutputTool}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(t, h.tools(&tooleino.Options[struct{}]{Tools: tc.subset})); !slices.Equal(got, tc.want) {
				t.Errorf("tools %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := tooleino.New(h.reg, &tooleino.Options[struct{}]{Tools: []string{"shell", "sehll"}}).Tools(); err == nil || !strings.Contains(err.Error(), "sehll") {
		t.Errorf("an unknown name: %v", err)
	}
}

// TestUnknownTool: with Adapter.UnknownTool as Eino's handler, a call of a
// tool the agent was not given is answered, and the run goes on; without
// it, Eino ends the run.
func TestUnknownTool(t *testing.T) {
	h := newHost(t, hostOptions{})
	h.reg.MustAdd(tool.New(tool.Definition{Name: "secret", Description: "Hidden.", Hidden: true, Safety: tool.SafetyReadOnly},
		func(context.Context, struct{}) (string, error) { return "the secret", nil }))
	for _, tc := range []struct {
		name, call string
		subset     []string
		want       string
	}{
		{name: "misspelled", call: "serch", want: `there is no tool named "serch"`},
		{name: "misspelled, closest named", call: "serch", want: `Did you mean "search"`},
		{name: "hidden", call: "secret", want: "the secret"},
		{name: "not in the subset", call: "search", subset: []string{"shell"}, want: `no tool named "search" in this conversation`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tooleino.New(h.reg, &tooleino.Options[struct{}]{Tools: tc.subset})
			ts, err := a.Tools()
			if err != nil {
				t.Fatal(err)
			}
			res := h.run(einotest.RunConfig{Tools: ts, UnknownTool: a.UnknownTool}, call("c1", tc.call, `{}`))
			if len(res.Outputs) != 1 || !strings.Contains(res.Outputs[0].Text, tc.want) || res.Final != "done" {
				t.Errorf("the model read %+v, want %q", res.Outputs, tc.want)
			}
		})
	}
	if _, err := einotest.Run(context.Background(), einotest.RunConfig{Tools: h.tools(nil), Call: call("c1", "serch", `{}`)}); err == nil {
		t.Errorf("Eino without the handler ran a call of an unknown tool")
	}
}

// TestSession: the session is WithSession's, or Options.Session's.
func TestSession(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "where", Description: "Says the session.", Safety: tool.SafetyReadOnly},
		func(ctx context.Context, _ struct{}) (string, error) {
			info, _ := tool.CallInfoFrom(ctx)
			return "in " + info.Session, nil
		}))
	type convKey struct{}
	for _, tc := range []struct {
		name string
		opts *tooleino.Options[struct{}]
		want string
	}{
		{name: "WithSession", want: "in conv-1"},
		{name: "Options.Session", opts: &tooleino.Options[struct{}]{Session: func(ctx context.Context) string {
			s, _ := ctx.Value(convKey{}).(string)
			return s
		}}, want: "in mine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := tooleino.New(reg, tc.opts).Tools()
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.WithValue(context.Background(), convKey{}, "mine")
			res, err := einotest.Run(ctx, einotest.RunConfig{Tools: ts, Session: "conv-1", Call: call("c1", "where", `{}`)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Outputs) != 1 || res.Outputs[0].Text != tc.want {
				t.Errorf("the model read %+v, want %q", res.Outputs, tc.want)
			}
		})
	}
	if s := tooleino.SessionFrom(context.Background()); s != "" {
		t.Errorf("SessionFrom of a bare context: %q", s)
	}
}

// TestTarget: with a provider's dialect, the model is shown the schema in
// it, names the provider refuses renamed, and the calls it makes under
// them mapped back; a strict schema's nulls mean absent.
func TestTarget(t *testing.T) {
	type args struct {
		FilePath string `json:"file path"`
		Mode     string `json:"mode,omitempty" jsonschema:"enum=r,enum=w,default=r"`
	}
	var got []args
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "open", Description: "Opens a file.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in args) (string, error) {
			got = append(got, in)
			return "opened " + in.FilePath + " " + in.Mode, nil
		}))
	for _, tc := range []struct {
		target dialect.Target
		args   string // the call the model makes under the schema it is shown
		want   string
	}{
		{target: 0, args: `{"file path":"a.go"}`, want: "opened a.go r"},
		{target: dialect.OpenAIStrict, args: `{"file path":"a.go","mode":null}`, want: "opened a.go r"},
		{target: dialect.Anthropic, args: `{"file_path":"a.go","mode":"w"}`, want: "opened a.go w"},
		{target: dialect.Gemini, args: `{"file_path":"a.go"}`, want: "opened a.go r"},
	} {
		t.Run(tc.target.String(), func(t *testing.T) {
			a := tooleino.New(reg, &tooleino.Options[struct{}]{Target: tc.target})
			ts, err := a.Tools()
			if err != nil {
				t.Fatal(err)
			}
			info, err := ts[0].Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			shown, err := info.ToJSONSchema()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(shown)
			if tc.target == dialect.OpenAIStrict && !strings.Contains(string(b), `"null"`) {
				t.Errorf("shown %s: not strict", b)
			}
			if tc.target == dialect.Anthropic || tc.target == dialect.Gemini {
				if !strings.Contains(string(b), `"file_path"`) || !hasWarning(a.Warnings(), dialect.Renamed) {
					t.Errorf("shown %s, warnings %v: the name was not renamed", b, a.Warnings())
				}
			}
			res, err := einotest.Run(context.Background(), einotest.RunConfig{Tools: ts, Call: call("c1", info.Name, tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Outputs) != 1 || res.Outputs[0].Text != tc.want {
				t.Errorf("the model read %+v, want %q", res.Outputs, tc.want)
			}
		})
	}
}

func hasWarning(ws []dialect.Warning, a dialect.Action) bool {
	for _, w := range ws {
		if w.Action == a {
			return true
		}
	}
	return false
}
