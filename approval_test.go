package tool_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

type writeArgs struct {
	Path    string `json:"path" jsonschema:"minLength=1"`
	Content string `json:"content"`
}

type shellArgs struct {
	Command string `json:"command" jsonschema:"minLength=1"`
}

// fixture is a registry with approval and tools that record their runs.
type fixture struct {
	reg      *tool.Registry[struct{}]
	approver *tooltest.Approver
	rec      *tooltest.Recorder
	mu       sync.Mutex
	ran      []string
	files    map[string]string
}

// file reads a file of the fixture's workspace; setFile changes one
// ("link:/etc/" makes it a link that leads outside).
func (f *fixture) file(path string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.files[path]
}

func (f *fixture) setFile(path, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = content
}

func (f *fixture) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, s)
}

func (f *fixture) runs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ran...)
}

func newFixture(t *testing.T, opts tool.ApprovalOptions[struct{}], steps ...tooltest.Step) *fixture {
	t.Helper()
	f := &fixture{approver: tooltest.NewApprover(steps...), rec: &tooltest.Recorder{}, files: map[string]string{"main.go": "package main\n\nfunc main() {}\n"}}
	if opts.Approver == nil {
		opts.Approver = f.approver
	}
	read := tool.New(tool.Definition{Name: "read_file", Description: "Reads a file.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in struct {
			Path string `json:"path"`
		}) (string, error) {
			f.record("read " + in.Path)
			return f.files[in.Path], nil
		})
	write := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "write_file", Title: "Write a file", Description: "Writes a file.", Safety: tool.SafetyMutating},
		func(_ context.Context, in writeArgs) (string, error) {
			f.record("write " + in.Path + " " + in.Content)
			return "written", nil
		}), tool.ApprovalHooks[writeArgs]{
		Require: func(in writeArgs) tool.Requirement {
			if target, ok := strings.CutPrefix(f.file(in.Path), "link:"); ok {
				return tool.Requirement{Mode: tool.RequireScoped, Reason: "write through a link outside the workspace", Scope: target}
			}
			if strings.HasPrefix(in.Path, "/") {
				dir := in.Path[:strings.LastIndex(in.Path, "/")+1]
				return tool.Requirement{Mode: tool.RequireScoped, Reason: "write outside the workspace", Scope: dir}
			}
			return tool.Requirement{}
		},
		Describe: func(_ context.Context, in writeArgs) (tool.Preview, error) {
			if in.Path == "broken" {
				return tool.Preview{}, errors.New("cannot read the old file")
			}
			if in.Path == "panics" {
				panic("describe bug")
			}
			return tool.Preview{Title: "Edit " + in.Path, Edits: []tool.Edit{{Path: in.Path, Old: f.files[in.Path], New: in.Content}}}, nil
		},
	})
	shell := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "shell", Description: "Runs a command.", Safety: tool.SafetyMutating},
		func(_ context.Context, in shellArgs) (string, error) {
			f.record("shell " + in.Command)
			return "ran", nil
		}), tool.ApprovalHooks[shellArgs]{
		Classify: func(in shellArgs) tool.Safety {
			switch strings.Fields(in.Command)[0] {
			case "rm", "truncate":
				return tool.SafetyDestructive
			case "ls", "cat":
				return tool.SafetyReadOnly
			}
			return tool.SafetyUnspecified
		},
		Require: func(in shellArgs) tool.Requirement {
			if strings.HasPrefix(in.Command, "rm") {
				return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "deletes files"}
			}
			return tool.Requirement{}
		},
	})
	f.reg = tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: f.rec})
	require.NoError(t, f.reg.Add(read, write, shell))
	f.reg.Use(tool.Approval(&opts))
	return f
}

// call makes a call in the fixture's conversation, "conv".
func (f *fixture) call(id, name, args string) *tool.Result {
	return f.callIn("conv", id, name, args)
}

func (f *fixture) callIn(session, id, name, args string) *tool.Result {
	return f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: id, Name: name, Args: []byte(args), Session: session})
}

func TestApprovalOutcomes(t *testing.T) {
	tests := []struct {
		name      string
		step      tooltest.Step
		want      tool.Status
		wantErr   error
		wantText  string
		wantRun   bool
		wantAsked int
	}{
		{name: "allow once", step: tooltest.AllowOnce(), want: tool.StatusOK, wantRun: true, wantAsked: 1},
		{name: "deny with a reason", step: tooltest.Deny("not that file, use docs/"), want: tool.StatusDenied, wantErr: tool.ErrDenied,
			wantText: "the user said: not that file, use docs/", wantAsked: 1},
		{name: "approver error", step: tooltest.Fail(errors.New("ui crashed")), want: tool.StatusDenied, wantErr: tool.ErrApproverFailed,
			wantText: "the approval step failed", wantAsked: 1},
		{name: "approver panics", step: tooltest.Panic("approver bug"), want: tool.StatusDenied, wantErr: tool.ErrApproverFailed, wantAsked: 1},
		{name: "script used up", step: nil, want: tool.StatusDenied, wantErr: tooltest.ErrScriptDone, wantAsked: 1},
		{name: "unknown decision", step: func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			return tool.Decision{Kind: 99}, nil
		}, want: tool.StatusDenied, wantErr: tool.ErrDenied, wantAsked: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var steps []tooltest.Step
			if tt.step != nil {
				steps = append(steps, tt.step)
			}
			f := newFixture(t, tool.ApprovalOptions[struct{}]{}, steps...)
			res := f.call("c1", "write_file", `{"path":"main.go","content":"x"}`)
			tooltest.WantStatus(t, res, tt.want)
			tooltest.WantTextContains(t, res, tt.wantText)
			if tt.wantErr != nil {
				assert.ErrorIs(t, res.Err, tt.wantErr)
			}
			assert.Equal(t, tt.wantRun, len(f.runs()) == 1, "runs: %v", f.runs())
			assert.Equal(t, tt.wantAsked, f.approver.Asked())
			if tt.want == tool.StatusDenied {
				assert.Contains(t, res.Text(), "It did not run")
			}
			assert.Equal(t, "started approval_requested approval_decided finished", f.rec.Kinds("c1"))
		})
	}
}

func TestApprovalWaitEnds(t *testing.T) {
	t.Run("approver never answers", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, tool.ApprovalOptions[struct{}]{Timeout: 30 * time.Second}, tooltest.Hang())
			start := time.Now()
			res := f.call("c1", "write_file", `{"path":"main.go","content":"x"}`)
			tooltest.WantStatus(t, res, tool.StatusDenied)
			tooltest.WantTextContains(t, res, "no one approved it within 30s")
			assert.ErrorIs(t, res.Err, tool.ErrApprovalTimeout)
			assert.Equal(t, 30*time.Second, time.Since(start))
			assert.Empty(t, f.runs())
		})
	})
	t.Run("approver ignores its context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stuck := make(chan struct{})
			f := newFixture(t, tool.ApprovalOptions[struct{}]{Timeout: 30 * time.Second}, func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
				<-stuck
				return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
			})
			res := f.call("c1", "write_file", `{"path":"main.go","content":"x"}`)
			tooltest.WantStatus(t, res, tool.StatusDenied)
			close(stuck) // its late "allow" changes nothing
			synctest.Wait()
			assert.Empty(t, f.runs())
		})
	})
	t.Run("caller cancels the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Hang())
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(5*time.Second, cancel)
			res := f.reg.Call(ctx, struct{}{}, tool.Request{ID: "c1", Name: "write_file", Args: []byte(`{"path":"main.go","content":"x"}`)})
			tooltest.WantStatus(t, res, tool.StatusCanceled)
			tooltest.WantTextContains(t, res, "cancelled while it waited for approval", "did not run")
			assert.Empty(t, f.runs())
		})
	})
	t.Run("the wait does not count against the tool's timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			slowYes := func(ctx context.Context, _ tool.ApprovalRequest) (tool.Decision, error) {
				time.Sleep(time.Minute)
				return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
			}
			r := tool.NewRegistry[struct{}](nil)
			r.MustAdd(sleeper("t", time.Second, 500*time.Millisecond))
			r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(slowYes)}))
			tooltest.WantOK(t, call(r, "t", ""))
		})
	})
}

func TestApprovalPolicyPaths(t *testing.T) {
	f := newFixture(t, tool.ApprovalOptions[struct{}]{})
	tooltest.WantOK(t, f.call("r", "read_file", `{"path":"main.go"}`))
	tooltest.WantOK(t, f.call("ls", "shell", `{"command":"ls -la"}`))
	assert.Equal(t, 0, f.approver.Asked(), "read-only calls run without asking")

	deny := newFixture(t, tool.ApprovalOptions[struct{}]{Policy: tool.ReadOnlyPolicy()})
	res := deny.call("w", "write_file", `{"path":"main.go","content":"x"}`)
	tooltest.WantStatus(t, res, tool.StatusDenied)
	tooltest.WantTextContains(t, res, "policy does not allow mutating calls")
	tooltest.WantOK(t, deny.call("ls", "shell", `{"command":"cat main.go"}`))
	res = deny.call("rm", "shell", `{"command":"rm -rf /"}`)
	tooltest.WantTextContains(t, res, "policy does not allow destructive calls")
	assert.Equal(t, 0, deny.approver.Asked())
	assert.Equal(t, []string{"shell cat main.go"}, deny.runs())

	none := tool.NewRegistry[struct{}](nil)
	none.MustAdd(tool.New(tool.Definition{Name: "w", Description: "Writes."}, func(context.Context, noArgs) (string, error) { return "", nil }))
	none.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{}))
	res = call(none, "w", "")
	tooltest.WantStatus(t, res, tool.StatusDenied)
	assert.ErrorIs(t, res.Err, tool.ErrNoApprover)
}

func TestApprovalNeverSeesInvalidArguments(t *testing.T) {
	f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowOnce())
	res := f.call("c", "write_file", `{"path":"","content":"x","extra":1}`)
	tooltest.WantStatus(t, res, tool.StatusInvalid)
	assert.Equal(t, 0, f.approver.Asked())
}

// TestTierConfirm pins what TierConfirm means: the policy asks about the
// tool even when it is read-only, and an "allow always" answer covers its
// calls for the session, as for any ask; RequireAskAlways asks every time.
func TestTierConfirm(t *testing.T) {
	lookup := func(req tool.Requirement) tool.AnyTool {
		return tool.WithApprovalHooks(tool.New(tool.Definition{Name: "lookup", Description: "Looks up a price.", Safety: tool.SafetyReadOnly, Tier: tool.TierConfirm},
			func(context.Context, noArgs) (string, error) { return "42", nil }),
			tool.ApprovalHooks[noArgs]{Require: func(noArgs) tool.Requirement { return req }})
	}
	tests := []struct {
		name      string
		req       tool.Requirement
		wantAsked int
	}{
		{"asked once, then remembered", tool.Requirement{}, 1},
		{"asked every time with RequireAskAlways", tool.Requirement{Mode: tool.RequireAskAlways}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			approver := tooltest.NewApprover(tooltest.AllowAlways(), tooltest.AllowAlways(), tooltest.AllowAlways())
			r := registryWith(t, nil, lookup(tt.req))
			r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver}))
			for i := range 3 {
				res := r.Call(context.Background(), struct{}{}, tool.Request{ID: strconv.Itoa(i), Name: "lookup", Session: "conv"})
				tooltest.WantOK(t, res)
			}
			assert.Equal(t, tt.wantAsked, approver.Asked())
		})
	}
}

func TestAllowAlwaysMemory(t *testing.T) {
	t.Run("per tool", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowAlways(), tooltest.AllowOnce())
		tooltest.WantOK(t, f.call("1", "write_file", `{"path":"a","content":"x"}`))
		tooltest.WantOK(t, f.call("2", "write_file", `{"path":"b","content":"y"}`))
		assert.Equal(t, 1, f.approver.Asked(), "remembered for the tool")
		tooltest.WantOK(t, f.call("3", "shell", `{"command":"make"}`))
		assert.Equal(t, 2, f.approver.Asked(), "not for another tool")
	})
	t.Run("never for a more dangerous class", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowAlways(), tooltest.AllowOnce())
		tooltest.WantOK(t, f.call("1", "shell", `{"command":"touch x"}`))
		tooltest.WantOK(t, f.call("2", "shell", `{"command":"make"}`))
		assert.Equal(t, 1, f.approver.Asked(), "mutating calls of the tool are remembered")
		tooltest.WantOK(t, f.call("3", "shell", `{"command":"truncate -s0 notes"}`))
		assert.Equal(t, 2, f.approver.Asked(), "a destructive call of the same tool is asked again")
		assert.Equal(t, tool.SafetyDestructive, f.approver.Requests()[1].Safety)
	})
	t.Run("nothing without a session", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowAlways(), tooltest.AllowOnce(), tooltest.AllowOnce())
		tooltest.WantOK(t, f.callIn("", "1", "write_file", `{"path":"a","content":"x"}`))
		tooltest.WantOK(t, f.callIn("", "2", "write_file", `{"path":"a","content":"x"}`))
		assert.Equal(t, 2, f.approver.Asked(), "a call with no session inherits no answer")
		tooltest.WantOK(t, f.call("3", "write_file", `{"path":"a","content":"x"}`))
		assert.Equal(t, 3, f.approver.Asked(), "and leaves none for a session")
	})
	t.Run("expires", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, tool.ApprovalOptions[struct{}]{RememberFor: time.Hour}, tooltest.AllowAlways(), tooltest.AllowOnce())
			tooltest.WantOK(t, f.call("1", "write_file", `{"path":"a","content":"x"}`))
			time.Sleep(59 * time.Minute)
			tooltest.WantOK(t, f.call("2", "write_file", `{"path":"a","content":"x"}`))
			assert.Equal(t, 1, f.approver.Asked())
			time.Sleep(2 * time.Minute)
			tooltest.WantOK(t, f.call("3", "write_file", `{"path":"a","content":"x"}`))
			assert.Equal(t, 2, f.approver.Asked(), "asked again once the answer expired")
		})
	})
	t.Run("never for ask-always", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowAlways(), tooltest.Deny("no"))
		tooltest.WantOK(t, f.call("1", "shell", `{"command":"rm a"}`))
		tooltest.WantStatus(t, f.call("2", "shell", `{"command":"rm a"}`), tool.StatusDenied)
		assert.Equal(t, 2, f.approver.Asked())
		assert.Equal(t, tool.RequireAskAlways, f.approver.Requests()[0].Requirement.Mode)
		assert.Equal(t, tool.SafetyDestructive, f.approver.Requests()[0].Safety)
	})
	t.Run("per scope", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowAlways(), tooltest.AllowOnce(), tooltest.AllowOnce())
		tooltest.WantOK(t, f.call("1", "write_file", `{"path":"/etc/hosts","content":"x"}`))
		tooltest.WantOK(t, f.call("2", "write_file", `{"path":"/etc/motd","content":"x"}`))
		assert.Equal(t, 1, f.approver.Asked(), "same scope")
		tooltest.WantOK(t, f.call("3", "write_file", `{"path":"/usr/x","content":"x"}`))
		tooltest.WantOK(t, f.call("4", "write_file", `{"path":"inside","content":"x"}`))
		assert.Equal(t, 3, f.approver.Asked(), "another scope, and unscoped calls, are asked")
		assert.Equal(t, "/etc/", f.approver.Requests()[0].Requirement.Scope)
	})
	t.Run("per session", func(t *testing.T) {
		session := "alice"
		f := newFixture(t, tool.ApprovalOptions[struct{}]{Session: func(*tool.Call[struct{}]) string { return session }},
			tooltest.AllowAlways(), tooltest.AllowOnce())
		tooltest.WantOK(t, f.call("1", "write_file", `{"path":"a","content":"x"}`))
		session = "bob"
		tooltest.WantOK(t, f.call("2", "write_file", `{"path":"a","content":"x"}`))
		assert.Equal(t, 2, f.approver.Asked())
	})
}

func TestApprovalAroundOneTool(t *testing.T) {
	approver := tooltest.NewApprover(tooltest.Deny("no"))
	w := tool.Wrap(tool.Adapt[struct{}](tool.New(tool.Definition{Name: "w", Description: "Writes.", Safety: tool.SafetyDestructive},
		func(context.Context, noArgs) (string, error) { return "ran", nil })),
		tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver}))
	res := tooltest.RunFor(t, w, struct{}{}, "", nil)
	tooltest.WantStatus(t, res, tool.StatusDenied)
	assert.Equal(t, 1, approver.Asked())
}

func TestAnApproverErrorCanSpeakToTheModel(t *testing.T) {
	cannot := &tool.Error{Message: "the user's client cannot show approval prompts", Hint: "ask the user to approve in the app"}
	f := newFixture(t, tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
		return tool.Decision{}, fmt.Errorf("elicitation: %w", cannot)
	})})
	res := f.call("1", "write_file", `{"path":"a","content":"x"}`)
	tooltest.WantStatus(t, res, tool.StatusDenied)
	assert.Contains(t, res.Text(), "cannot show approval prompts")
	assert.Contains(t, res.Text(), "approve in the app")
	assert.ErrorIs(t, res.Err, tool.ErrApproverFailed)
}

// An approver that answers at once may still take minutes (a person at a
// terminal, an MCP client's elicitation): its answer holds only for the
// call it was shown. A call that became another kind while it was asked
// is asked about again, as it is now; a deny stands.
func TestApprovalClassChangedWhileAsking(t *testing.T) {
	link := func(f **fixture) tooltest.Step {
		return func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			(*f).setFile("a", "link:/etc/") // while the person read, the path became a link that leads outside
			return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
		}
	}
	tests := []struct {
		name  string
		then  tooltest.Step // the answer when asked again
		want  tool.Status
		runs  []string
		asked int
	}{
		{name: "asked again and denied", then: tooltest.Deny("not there"), want: tool.StatusDenied, asked: 2},
		{name: "asked again and allowed", then: tooltest.AllowOnce(), want: tool.StatusOK, runs: []string{"write a x"}, asked: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f *fixture
			f = newFixture(t, tool.ApprovalOptions[struct{}]{}, link(&f), tt.then)
			res := f.call("1", "write_file", `{"path":"a","content":"x"}`)
			tooltest.WantStatus(t, res, tt.want)
			assert.Equal(t, tt.runs, f.runs())
			reqs := f.approver.Requests()
			require.Len(t, reqs, tt.asked)
			assert.Equal(t, tool.RequireScoped, reqs[1].Requirement.Mode, "asked again, shown the call as it is now")
		})
	}
	t.Run("a deny stands", func(t *testing.T) {
		var f *fixture
		f = newFixture(t, tool.ApprovalOptions[struct{}]{}, func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			f.setFile("a", "link:/etc/")
			return tool.Decision{Kind: tool.DecisionDeny, Reason: "no"}, nil
		})
		tooltest.WantStatus(t, f.call("1", "write_file", `{"path":"a","content":"x"}`), tool.StatusDenied)
		assert.Equal(t, 1, f.approver.Asked())
	})
}
