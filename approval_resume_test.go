package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/tooltest"
)

// deferred makes a write_file call in session "conv" that the approver
// defers, and returns its pending approval.
func deferred(t *testing.T, f *fixture, args string) *tool.PendingApproval {
	t.Helper()
	res := f.call("1", "write_file", args)
	tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
	require.NotNil(t, res.Pending)
	assert.True(t, res.IsError, "the model is told the call did not run")
	assert.Contains(t, res.Text(), "has not run yet")
	assert.ErrorIs(t, res.Err, tool.ErrAwaitingApproval)
	assert.Equal(t, "write_file", res.Pending.Request.Tool)
	assert.Empty(t, f.runs(), "nothing ran")
	return res.Pending
}

func (f *fixture) resume(session, args string, p *tool.PendingApproval, d tool.Decision) *tool.Result {
	return f.resumeCtx(context.Background(), session, args, p, d)
}

func (f *fixture) resumeCtx(ctx context.Context, session, args string, p *tool.PendingApproval, d tool.Decision) *tool.Result {
	return f.reg.Call(ctx, struct{}{}, tool.Request{ID: "2", Name: "write_file", Args: []byte(args), Session: session,
		Approval: &tool.ApprovalAnswer{State: p.State, Decision: d}})
}

func TestDeferredApproval(t *testing.T) {
	const args = `{"path":"a","content":"x"}`
	allow := tool.Decision{Kind: tool.DecisionAllowOnce}

	t.Run("answered later, it runs once", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Defer())
		p := deferred(t, f, args)
		assert.Equal(t, "Write a file", p.Request.DisplayName)
		assert.JSONEq(t, args, string(p.Request.Args))
		tooltest.WantOK(t, f.resume("conv", args, p, allow))
		assert.Equal(t, []string{"write a x"}, f.runs())
		assert.Equal(t, 1, f.approver.Asked(), "the answer came with the call, the approver was not asked again")
		kinds := f.rec.Kinds("1")
		assert.Equal(t, "started approval_requested approval_decided finished", kinds)
	})
	t.Run("another replica with the same keyring and memory", func(t *testing.T) {
		keys, err := keyring.FromSecret([]byte("a shared secret of at least 32 bytes!"))
		require.NoError(t, err)
		mem := tool.NewMemoryApprovalStore(0)
		replica := func() (*tool.Registry[struct{}], *int) {
			runs := new(int)
			r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys})
			r.MustAdd(tool.New(tool.Definition{Name: "deploy", Description: "Deploys.", Safety: tool.SafetyMutating},
				func(context.Context, struct{}) (string, error) { *runs++; return "deployed", nil }))
			r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooltest.NewApprover(tooltest.Defer()), Store: mem}))
			return r, runs
		}
		a, aRuns := replica()
		b, bRuns := replica()
		res := a.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s"})
		tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
		answer := &tool.ApprovalAnswer{State: res.Pending.State, Decision: allow}
		tooltest.WantOK(t, b.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s", Approval: answer}))
		tooltest.WantStatus(t, a.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s", Approval: answer}), tool.StatusDenied)
		assert.Equal(t, 0, *aRuns)
		assert.Equal(t, 1, *bRuns)
	})
	t.Run("a replica with a shorter Timeout keeps the claim as long as the state lasts", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			keys, err := keyring.FromSecret([]byte("a shared secret of at least 32 bytes!"))
			require.NoError(t, err)
			mem := tool.NewMemoryApprovalStore(0)
			var runs atomic.Int32
			replica := func(timeout time.Duration) *tool.Registry[struct{}] {
				r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys})
				r.MustAdd(tool.New(tool.Definition{Name: "deploy", Description: "Deploys.", Safety: tool.SafetyMutating},
					func(context.Context, struct{}) (string, error) { runs.Add(1); return "deployed", nil }))
				r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooltest.NewApprover(tooltest.Defer()), Store: mem, Timeout: timeout}))
				return r
			}
			a, b := replica(time.Hour), replica(time.Minute) // a configuration being rolled out, say
			res := a.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s"})
			tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
			answer := &tool.ApprovalAnswer{State: res.Pending.State, Decision: allow}
			tooltest.WantOK(t, b.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s", Approval: answer}))
			time.Sleep(3 * time.Minute) // past B's Timeout and a minute, within the state's hour
			res = a.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s", Approval: answer})
			tooltest.WantStatus(t, res, tool.StatusDenied)
			assert.ErrorIs(t, res.Err, tool.ErrApprovalState)
			assert.Equal(t, int32(1), runs.Load(), "an answer used once ran twice")
		})
	})
}

// resumeCase is one way a resumed call can end. outcome names its item in
// the list of ApprovalAnswer's doc ("before: " for what happens before the
// answer is looked at, said in the doc's prose).
type resumeCase struct {
	outcome string
	// resume makes the resumed call, given the fixture and the pending
	// approval of write_file({"path":"a","content":"x"}) in session "conv".
	resume  func(t *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result
	opts    func(o *tool.ApprovalOptions[struct{}], policyDenies *atomic.Bool)
	want    tool.Status
	wantErr []error
	says    string   // in what the model reads, and in the doc's item unless the tool ran
	also    string   // in what the model reads
	runs    []string // what ran, in order
}

func resumeCases() []resumeCase {
	const args = `{"path":"a","content":"x"}`
	answer := func(d tool.Decision) func(*testing.T, *fixture, *tool.PendingApproval) *tool.Result {
		return func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			return f.resume("conv", args, p, d)
		}
	}
	allow := tool.Decision{Kind: tool.DecisionAllowOnce}
	edit := func(a string) tool.Decision { return tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(a)} }
	return []resumeCase{
		{outcome: "Allowed", resume: answer(allow), want: tool.StatusOK, says: "written", runs: []string{"write a x"}},
		{outcome: "Allowed", resume: func(t *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			tooltest.WantOK(t, f.resume("conv", args, p, tool.Decision{Kind: tool.DecisionAllowAlways}))
			return f.call("3", "write_file", `{"path":"b","content":"y"}`) // remembered: not asked again
		}, want: tool.StatusOK, says: "written", runs: []string{"write a x", "write b y"}},
		{outcome: "Edited", resume: answer(edit(`{"path":"b","content":"y"}`)), want: tool.StatusOK, says: "written", runs: []string{"write b y"}},
		{outcome: "Edit refused", resume: answer(edit(`{"path":"","content":"y"}`)), want: tool.StatusInvalid,
			wantErr: []error{new(tool.ArgsError)}, says: "the edit is not valid"},
		{outcome: "Edit denied", opts: func(o *tool.ApprovalOptions[struct{}], _ *atomic.Bool) {
			o.Policy = tool.PolicyFunc(func(in tool.PolicyInput) tool.Verdict {
				if in.Requirement.Mode == tool.RequireScoped {
					return tool.VerdictDeny // writes outside the workspace
				}
				return tool.AskForWritesPolicy().Decide(in)
			})
		}, resume: answer(edit(`{"path":"/etc/passwd","content":"y"}`)), want: tool.StatusDenied,
			wantErr: []error{tool.ErrDenied}, says: "the edited call was not allowed to run"},
		{outcome: "Changed", opts: func(o *tool.ApprovalOptions[struct{}], _ *atomic.Bool) {
			o.Approver = tooltest.NewApprover(tooltest.Defer(), tooltest.Deny("not outside the workspace"))
		}, resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			f.setFile("a", "link:/etc/") // while the person read, the path became a link that leads outside
			return f.resume("conv", args, p, allow)
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrDenied}, says: "the user said: ", also: "not outside the workspace"},
		{outcome: "Changed", opts: func(o *tool.ApprovalOptions[struct{}], _ *atomic.Bool) {
			o.Approver = tooltest.NewApprover(tooltest.Defer(), tooltest.Deny("not outside the workspace"))
		}, resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			f.setFile("a", "link:/etc/")
			return f.resume("conv", args, p, edit(`{"path":"a","content":"edited"}`))
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrDenied}, says: "the user said: ", also: "not outside the workspace"},
		{outcome: "Other answerer", resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			return f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "write_file", Args: []byte(args), Session: "conv",
				Approval: &tool.ApprovalAnswer{State: p.State, Decision: allow, Answerer: "mcp"}})
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState, tool.ErrOtherAnswerer}, says: "its approval answer came from someone other than the one asked"},
		{outcome: "Denied", resume: answer(tool.Decision{Kind: tool.DecisionDeny, Reason: "not that file"}), want: tool.StatusDenied,
			wantErr: []error{tool.ErrDenied}, says: "the user said: ", also: "not that file"},
		{outcome: "Denied", resume: answer(tool.Decision{Kind: tool.DecisionDefer}), want: tool.StatusDenied,
			wantErr: []error{tool.ErrDenied}, says: "the user said: ", also: "no reason given"},
		{outcome: "Replayed", resume: func(t *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			tooltest.WantOK(t, f.resume("conv", args, p, allow))
			return f.resume("conv", args, p, allow)
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState}, says: "its approval answer was already used", runs: []string{"write a x"}},
		{outcome: "Expired", resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			time.Sleep(11 * time.Minute) // past ApprovalOptions.Timeout, 10 minutes by default
			return f.resume("conv", args, p, allow)
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState, keyring.ErrExpired}, says: "its approval answer came too late"},
		{outcome: "Other arguments", resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			return f.resume("conv", `{"path":"b","content":"x"}`, p, allow)
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState, keyring.ErrOtherDigest}, says: "its approval answer was given for other arguments"},
		{outcome: "Unusable", resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			return f.resume("bob", args, p, allow)
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState, keyring.ErrOtherSession}, says: "its approval answer cannot be used"},
		{outcome: "Unusable", resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			p.State = p.State[:len(p.State)-2] + "AA"
			return f.resume("conv", args, p, allow)
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState, keyring.ErrBadSignature}, says: "its approval answer cannot be used"},
		{outcome: "Unusable", resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			p.State = "AQIDBA" // not a state (a page cursor would be refused alike)
			return f.resume("conv", args, p, allow)
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState}, says: "its approval answer cannot be used"},
		{outcome: "Unchecked", opts: func(o *tool.ApprovalOptions[struct{}], _ *atomic.Bool) {
			o.Store = claimFails{tool.NewMemoryApprovalStore(0)}
		}, resume: answer(allow), want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState}, says: "its approval answer could not be checked"},
		{outcome: "Store lost", opts: func(o *tool.ApprovalOptions[struct{}], _ *atomic.Bool) {
			o.Store = claimLost{tool.NewMemoryApprovalStore(0)}
		}, resume: answer(allow), want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState, tool.ErrStoreLostData}, says: "the store of approval answers may have lost what it held"},
		{outcome: "Cancelled", opts: func(o *tool.ApprovalOptions[struct{}], _ *atomic.Bool) {
			o.Store = claimWaits{tool.NewMemoryApprovalStore(0)}
		}, resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			ctx, cancel := context.WithCancel(context.Background())
			go func() { time.Sleep(time.Millisecond); cancel() }() // while the claim waits
			return f.resumeCtx(ctx, "conv", args, p, allow)
		}, want: tool.StatusCanceled, wantErr: []error{context.Canceled}, says: "was cancelled while it waited for approval"},
		{outcome: "before: invalid arguments", resume: func(_ *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			return f.resume("conv", `{"path":"a"`, p, allow)
		}, want: tool.StatusInvalid, wantErr: []error{new(tool.ArgsError)}, says: "were cut off"},
		{outcome: "before: a dry run claims nothing", resume: func(t *testing.T, f *fixture, p *tool.PendingApproval) *tool.Result {
			dry := f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "write_file", Args: []byte(args), Session: "conv",
				DryRun: true, Approval: &tool.ApprovalAnswer{State: p.State, Decision: allow}})
			tooltest.WantStatus(t, dry, tool.StatusDryRun)
			return f.resume("conv", args, p, allow) // the state is still good
		}, want: tool.StatusOK, says: "written", runs: []string{"write a x"}},
		{outcome: "before: the policy now denies", opts: func(o *tool.ApprovalOptions[struct{}], denies *atomic.Bool) {
			o.Policy = tool.PolicyFunc(func(in tool.PolicyInput) tool.Verdict {
				if denies.Load() {
					return tool.VerdictDeny
				}
				return tool.AskForWritesPolicy().Decide(in)
			})
		}, resume: answer(allow), want: tool.StatusDenied, wantErr: []error{tool.ErrDenied}, says: "the session's policy does not allow"},
	}
}

// claimFails is a store whose claims fail.
type claimFails struct{ tool.ApprovalStore }

func (claimFails) Claim(context.Context, string, string, time.Time) (bool, error) {
	return false, errors.New("the store is down")
}

// claimLost is a store that may have lost its claims (a Redis restarted
// without persistence).
type claimLost struct{ tool.ApprovalStore }

func (claimLost) Claim(context.Context, string, string, time.Time) (bool, error) {
	return false, fmt.Errorf("redis restarted: %w", tool.ErrStoreLostData)
}

// claimWaits is a store whose claims wait for the call's context.
type claimWaits struct{ tool.ApprovalStore }

func (claimWaits) Claim(ctx context.Context, _, _ string, _ time.Time) (bool, error) {
	<-ctx.Done()
	return false, ctx.Err()
}

// TestResumedApprovalOutcomes makes every outcome of a resumed call that
// ApprovalAnswer's doc lists, and checks what the doc says of it: its
// status, its cause, what the model reads, and that nothing else ran.
func TestResumedApprovalOutcomes(t *testing.T) {
	const args = `{"path":"a","content":"x"}`
	doc := approvalAnswerDoc(t)
	for i, tt := range resumeCases() {
		t.Run(strconv.Itoa(i)+"_"+tt.outcome, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var denies atomic.Bool
				opts := tool.ApprovalOptions[struct{}]{}
				if tt.opts != nil {
					tt.opts(&opts, &denies)
				}
				f := newFixture(t, opts, tooltest.Defer())
				p := deferred(t, f, args)
				denies.Store(true)
				res := tt.resume(t, f, p)
				tooltest.WantStatus(t, res, tt.want)
				for _, e := range tt.wantErr {
					if ae, ok := e.(*tool.ArgsError); ok {
						assert.ErrorAs(t, res.Err, &ae)
						continue
					}
					assert.ErrorIs(t, res.Err, e)
				}
				assert.Contains(t, res.Text(), tt.says)
				assert.Contains(t, res.Text(), tt.also)
				if res.Status != tool.StatusOK && !strings.HasPrefix(tt.outcome, "before: ") {
					assert.Contains(t, res.Text(), "did not run")
				}
				assert.Equal(t, tt.runs, f.runs())

				if strings.HasPrefix(tt.outcome, "before: ") {
					return
				}
				item, ok := doc[tt.outcome]
				require.True(t, ok, "ApprovalAnswer's doc lists no outcome %q", tt.outcome)
				assert.Contains(t, item, statusName(tt.want), "the doc of %q gives another status", tt.outcome)
				if len(tt.runs) == 0 {
					assert.Contains(t, item, tt.says, "the doc of %q does not say what the model reads", tt.outcome)
				}
			})
		})
	}
	t.Run("every outcome the doc lists is made", func(t *testing.T) {
		made := map[string]bool{}
		for _, tt := range resumeCases() {
			made[tt.outcome] = true
		}
		for outcome := range doc {
			assert.True(t, made[outcome], "ApprovalAnswer's doc lists %q, which no case makes", outcome)
		}
	})
}

// statusName is the Go name of s, as the doc writes it.
func statusName(s tool.Status) string {
	if s == tool.StatusOK {
		return "StatusOK"
	}
	name := ""
	for _, w := range strings.Split(s.String(), "_") {
		name += strings.ToUpper(w[:1]) + w[1:]
	}
	return "Status" + name
}

// approvalAnswerDoc reads the list of outcomes in ApprovalAnswer's doc
// comment: each item's name (before the first colon) and its text.
func approvalAnswerDoc(t *testing.T) map[string]string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "approval_resume.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var text string
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE && g.Specs[0].(*ast.TypeSpec).Name.Name == "ApprovalAnswer" {
			text = g.Doc.Text()
		}
	}
	require.NotEmpty(t, text, "no doc comment on ApprovalAnswer")
	items := map[string]string{}
	var name string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "- "):
			var rest string
			name, rest, _ = strings.Cut(strings.TrimPrefix(trimmed, "- "), ":")
			items[name] = rest
		case name != "" && trimmed != "" && strings.HasPrefix(line, " "):
			items[name] += " " + trimmed
		default:
			name = ""
		}
	}
	require.NotEmpty(t, items, "ApprovalAnswer's doc lists no outcomes")
	return items
}

// A resumed answer is used by a call that runs: one let through by
// approval that did not start (its tool busy, a later middleware refusing
// it) gives its claim back, so that the same answer resumes the call when
// it is made again. A deny is used at once.
func TestResumedAnswerOfACallThatDidNotStart(t *testing.T) {
	allow := tool.Decision{Kind: tool.DecisionAllowOnce}
	tests := []struct {
		name   string
		store  func() tool.ApprovalStore
		block  bool // a middleware after approval refuses the first resumed call
		remake bool // a middleware after approval returns a result of its own making (a redaction)
		busy   bool // the tool is at its limit for the first resumed call
		d      tool.Decision
		then   tool.Status // the same answer, sent again
		runs   int32
	}{
		{name: "the tool was busy", busy: true, d: allow, then: tool.StatusOK, runs: 1},
		{name: "a later middleware refused it", block: true, d: allow, then: tool.StatusOK, runs: 1},
		{name: "an edit: the tool was busy", busy: true, d: tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(`{"x":"b"}`)}, then: tool.StatusOK, runs: 1},
		{name: "a deny is used at once", block: true, d: tool.Decision{Kind: tool.DecisionDeny}, then: tool.StatusDenied},
		{name: "a call that ran, its result remade by a later middleware, used it", remake: true, d: allow, then: tool.StatusDenied, runs: 1},
		{name: "a store that cannot give back keeps it", store: func() tool.ApprovalStore { return noRelease{tool.NewMemoryApprovalStore(0)} },
			block: true, d: allow, then: tool.StatusDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int32
			var blocking atomic.Bool
			release, started := make(chan struct{}), make(chan struct{}, 1)
			reg := tool.NewRegistry[struct{}](nil)
			reg.MustAdd(tool.New(tool.Definition{Name: "w", Description: "Writes.", Safety: tool.SafetyMutating, CallLimits: []tool.CallLimit{{Concurrent: 1}}},
				func(_ context.Context, in struct {
					X string `json:"x"`
				}) (string, error) {
					if in.X == "hold" {
						started <- struct{}{}
						<-release
						return "held", nil
					}
					runs.Add(1)
					return "wrote " + in.X, nil
				}))
			opts := &tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(func(_ context.Context, r tool.ApprovalRequest) (tool.Decision, error) {
				if string(r.Args) == `{"x":"hold"}` {
					return allow, nil
				}
				return tool.Decision{Kind: tool.DecisionDefer}, nil
			})}
			if tt.store != nil {
				opts.Store = tt.store()
			}
			reg.Use(tool.Approval(opts), func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
				return func(ctx context.Context, call *tool.Call[struct{}]) *tool.Result {
					if blocking.Load() {
						return &tool.Result{Status: tool.StatusLimited, Err: errors.New("maintenance"), Content: []tool.Content{tool.TextContent("Not now: it did not run.")}}
					}
					res := next(ctx, call)
					if tt.remake {
						return &tool.Result{Status: res.Status, Err: res.Err, IsError: res.IsError, Content: []tool.Content{tool.TextContent("[redacted]")}}
					}
					return res
				}
			})
			ctx := context.Background()
			req := tool.Request{ID: "1", Name: "w", Args: []byte(`{"x":"a"}`), Session: "conv"}
			p := reg.Call(ctx, struct{}{}, req).Pending
			require.NotNil(t, p)
			held := make(chan struct{})
			if tt.busy {
				go func() {
					defer close(held)
					reg.Call(ctx, struct{}{}, tool.Request{ID: "h", Name: "w", Args: []byte(`{"x":"hold"}`), Session: "conv"})
				}()
				<-started
			} else {
				close(held)
			}
			blocking.Store(tt.block)
			req.Approval = &tool.ApprovalAnswer{State: p.State, Decision: tt.d}
			res := reg.Call(ctx, struct{}{}, req)
			if tt.remake {
				tooltest.WantOK(t, res)
			} else {
				assert.NotEqual(t, tool.StatusOK, res.Status)
				assert.Zero(t, runs.Load())
			}
			close(release)
			<-held
			blocking.Store(false)
			res = reg.Call(ctx, struct{}{}, req)
			tooltest.WantStatus(t, res, tt.then)
			assert.Equal(t, tt.runs, runs.Load())
			if tt.runs > 0 && !tt.remake {
				res = reg.Call(ctx, struct{}{}, tool.Request{ID: "2", Name: "w", Args: req.Args, Session: "conv", Approval: req.Approval})
				tooltest.WantStatus(t, res, tool.StatusDenied)
				assert.ErrorIs(t, res.Err, tool.ErrApprovalState, "used once it ran")
				assert.Equal(t, tt.runs, runs.Load())
			}
		})
	}
}

// noRelease is an approval store that cannot give a claim back.
type noRelease struct{ s *tool.MemoryApprovalStore }

func (n noRelease) Allowed(ctx context.Context, session, key string) (bool, error) {
	return n.s.Allowed(ctx, session, key)
}

func (n noRelease) Remember(ctx context.Context, session, key string, expires time.Time) error {
	return n.s.Remember(ctx, session, key, expires)
}

func (n noRelease) Claim(ctx context.Context, session, id string, expires time.Time) (bool, error) {
	return n.s.Claim(ctx, session, id, expires)
}
