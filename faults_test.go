package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// Faults in tools and in host code: every call returns on time, bounded,
// with nothing leaked, and nothing panics out of an entry point.

type panickyArgs struct {
	Path string `json:"path"`
}

func (a panickyArgs) Validate() error {
	if a.Path == "boom" {
		panic("a validator bug")
	}
	return nil
}

func TestCallBatchNeverPanics(t *testing.T) {
	classified := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "ls", Description: "Lists.", Safety: tool.SafetyMutating},
		func(context.Context, panickyArgs) (string, error) { return "listed", nil }),
		tool.ApprovalHooks[panickyArgs]{Classify: func(in panickyArgs) tool.Safety {
			if in.Path == "classify-boom" {
				panic("a classifier bug")
			}
			return tool.SafetyReadOnly
		}})
	r := newRegistry(t, classified)
	reqs := []tool.Request{
		{ID: "1", Name: "ls", Args: []byte(`{"path":"boom"}`)},
		{ID: "2", Name: "ls", Args: []byte(`{"path":"classify-boom"}`)},
		{ID: "3", Name: "ls", Args: []byte(`{"path":"."}`)},
	}
	var results []*tool.Result
	require.NotPanics(t, func() { results = r.CallBatch(context.Background(), struct{}{}, reqs, nil) })
	assert.Equal(t, tool.StatusPanicked, results[0].Status, results[0].Text())
	assert.Equal(t, tool.StatusOK, results[1].Status, "a classifier that panics only makes the call run alone")
	assert.Equal(t, tool.StatusOK, results[2].Status)
	for i, res := range results {
		assert.Equal(t, reqs[i].ID, res.CallID)
	}
}

// pastDeadline is a context whose deadline has passed but which has not
// been cancelled yet: what a loaded machine shows for a while when the
// timer that cancels a context fires late.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

func TestACallPastItsDeadlineNeverReportsOK(t *testing.T) {
	r := newRegistry(t, tool.New(tool.Definition{Name: "quick", Description: "Answers."},
		func(context.Context, struct{}) (string, error) { return "done", nil }))
	res := r.Call(pastDeadline{context.Background()}, struct{}{}, tool.Request{Name: "quick"})
	assert.Equal(t, tool.StatusTimedOut, res.Status, res.Text())
	assert.NotEqual(t, "done", res.Text())
}

func TestAToolsResultIsTheTools(t *testing.T) {
	shared := &tool.Result{Content: []tool.Content{tool.TextContent("the same answer")}}
	r := newRegistry(t, tool.NewRaw(tool.Definition{Name: "same", Description: "Answers the same.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return shared, nil }))
	var wg sync.WaitGroup
	results := make([]*tool.Result, 500)
	for i := range results {
		wg.Go(func() {
			results[i] = r.Call(context.Background(), struct{}{}, tool.Request{ID: fmt.Sprint(i), Name: "same"})
		})
	}
	wg.Wait()
	for i, res := range results {
		require.Equal(t, fmt.Sprint(i), res.CallID, "each call's result carries its own ID")
		assert.NotSame(t, shared, res)
	}
	assert.Empty(t, shared.CallID, "the tool's result was not written into")
}

func TestATypedNilErrorIsNoError(t *testing.T) {
	var noErr *tool.Error
	raw := tool.NewRaw(tool.Definition{Name: "raw", Description: "Raw.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("fine"), noErr })
	typed := tool.New(tool.Definition{Name: "typed", Description: "Typed."},
		func(context.Context, struct{}) (string, error) { return "fine", noErr })
	r := newRegistry(t, raw, typed)
	for _, name := range []string{"raw", "typed"} {
		res := call(r, name, `{}`)
		tooltest.WantOK(t, res)
		assert.Equal(t, "fine", res.Text())
	}
}

type spillFunc struct {
	put func(ctx context.Context) error
}

func (s spillFunc) Put(ctx context.Context, _ string, _ string, _ time.Time) error { return s.put(ctx) }
func (s spillFunc) Get(context.Context, string, int, int) (string, error) {
	return "", tool.ErrSpillGone
}

func TestFailuresAfterTheToolRanAreNotCrashes(t *testing.T) {
	big := strings.Repeat("line of output\n", 1000)
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	tests := map[string]func(ctx context.Context) error{
		"a store that panics": func(context.Context) error { panic("store bug") },
		"a store that hangs":  func(context.Context) error { <-never; return nil },
		"a store that errs":   func(context.Context) error { return errors.New("disk full") },
	}
	for name, put := range tests {
		t.Run(name, func(t *testing.T) {
			r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: spillFunc{put}, MaxOutputBytes: 2048, HookTimeout: 50 * time.Millisecond})
			require.NoError(t, r.Add(tool.New(tool.Definition{Name: "log", Description: "Prints a log."},
				func(context.Context, struct{}) (string, error) { return big, nil })))
			start := time.Now()
			res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "log", Session: "s"})
			tooltest.WantOK(t, res)
			assert.Contains(t, res.Text(), "bytes cut here", "the plain cut")
			assert.NotContains(t, res.Text(), "read_output", "no cursor to data that was not kept")
			assert.Less(t, time.Since(start), 10*time.Second)
		})
	}
}

func TestAStuckObserverDoesNotHangTheCall(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var seen []string
	obs := tool.ObserverFunc(func(e tool.Event) {
		if e.Kind == tool.EventStarted {
			<-release
		}
		mu.Lock()
		seen = append(seen, e.Kind.String())
		mu.Unlock()
	})
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: obs, ObserverTimeout: 50 * time.Millisecond})
	require.NoError(t, r.Add(tool.New(tool.Definition{Name: "work", Description: "Works."}, func(ctx context.Context, _ struct{}) (string, error) {
		tool.ReportProgress(ctx, tool.Progress{Message: "half"})
		return "done", nil
	})))
	start := time.Now()
	res := r.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "work"})
	tooltest.WantOK(t, res)
	assert.Less(t, time.Since(start), 10*time.Second, "the call returned although its observer was stuck")
	assert.Equal(t, int64(1), r.Stats().ObserverTimeouts)
	close(release)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == 3
	}, 10*time.Second, time.Millisecond)
	assert.Equal(t, []string{"started", "progress", "finished"}, seen, "once unstuck, the observer sees every event, in order")
}

func TestQueuedPartialsAreBoundedInBytes(t *testing.T) {
	release := make(chan struct{})
	var delivered, droppedSeen atomic.Int64
	obs := tool.ObserverFunc(func(e tool.Event) {
		if e.Kind == tool.EventStarted {
			<-release
		}
		if e.Kind == tool.EventPartial {
			delivered.Add(int64(len(e.Content[0].Text)))
		}
		droppedSeen.Add(int64(e.Dropped))
	})
	chunk := strings.Repeat("x", 64<<10)
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: obs, ObserverTimeout: time.Hour})
	require.NoError(t, r.Add(tool.New(tool.Definition{Name: "stream", Description: "Streams."}, func(ctx context.Context, _ struct{}) (string, error) {
		for range 100 { // 6.4 MiB while the observer is stuck
			tool.ReportPartial(ctx, tool.TextContent(chunk))
		}
		close(release)
		return "done", nil
	})))
	tooltest.WantOK(t, r.Call(context.Background(), struct{}{}, tool.Request{Name: "stream"}))
	assert.LessOrEqual(t, delivered.Load(), int64(1<<20), "at most 1 MiB of partial content waits for an observer")
	assert.Equal(t, 100-delivered.Load()/int64(len(chunk)), droppedSeen.Load(), "each dropped event is counted")
	assert.Equal(t, droppedSeen.Load(), r.Stats().EventsDropped)
}

func TestTheCapBoundsTheWholeModelView(t *testing.T) {
	blocks := func(n int, s string) tool.AnyTool {
		return tool.NewRaw(tool.Definition{Name: fmt.Sprintf("blocks%d", n), Description: "Blocks.", InputSchema: json.RawMessage(`{"type":"object"}`), MaxOutputBytes: 4096},
			func(context.Context, json.RawMessage) (*tool.Result, error) {
				res := &tool.Result{}
				for range n {
					res.Content = append(res.Content, tool.TextContent(s))
				}
				return res, nil
			})
	}
	image := tool.NewRaw(tool.Definition{Name: "image", Description: "Draws.", InputSchema: json.RawMessage(`{"type":"object"}`), MaxOutputBytes: 4096},
		func(context.Context, json.RawMessage) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.TextContent("chart:"), tool.ImageContent(make([]byte, 8000), "image/png"), tool.TextContent("after")}}, nil
		})
	r := newRegistry(t, blocks(100_000, ""), blocks(5000, "x"), image)
	for _, name := range []string{"blocks100000", "blocks5000", "image"} {
		t.Run(name, func(t *testing.T) {
			res := call(r, name, `{}`)
			tooltest.WantOK(t, res)
			wire, err := json.Marshal(res)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(wire), 4096+256, "the JSON of the model view stays near the cap")
			assert.LessOrEqual(t, len(res.Text()), 4096)
			assert.Contains(t, res.Text(), "left out")
			assert.Positive(t, res.Truncated)
		})
	}
}

func TestMalformedContentNeverReachesTheModel(t *testing.T) {
	tests := []struct {
		name string
		res  *tool.Result
		says string
	}{
		{"structured that is not UTF-8", &tool.Result{Content: []tool.Content{tool.TextContent("ok")}, Structured: json.RawMessage("{\"a\":\"\xff\"}")}, "not valid UTF-8 JSON"},
		{"structured that is not JSON", &tool.Result{Content: []tool.Content{tool.TextContent("ok")}, Structured: json.RawMessage(`{"a":`)}, "not valid UTF-8 JSON"},
		{"an image with a bogus type", &tool.Result{Content: []tool.Content{tool.ImageContent([]byte{1}, "text/html; x")}}, "not an image type"},
		{"an image with no bytes", &tool.Result{Content: []tool.Content{tool.ImageContent(nil, "image/png")}}, "no data"},
		{"a link with spaces", &tool.Result{Content: []tool.Content{tool.ResourceLinkContent("file:///a b", "a", "")}}, "is not a URI"},
		{"a link with a bidi override", &tool.Result{Content: []tool.Content{tool.ResourceLinkContent("https://example.com/\u202egnp.exe", "x", "")}}, "is not a URI"},
		{"an unknown type", &tool.Result{Content: []tool.Content{{Type: "html", Text: "<b>"}}}, "is not one a model can be sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistry(t, tool.NewRaw(tool.Definition{Name: "t", Description: "T.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, json.RawMessage) (*tool.Result, error) { return tt.res, nil }))
			res := call(r, "t", `{}`)
			assert.Contains(t, res.Text(), tt.says)
			b, err := json.Marshal(res)
			require.NoError(t, err)
			assert.True(t, json.Valid(b), "%s", b)
		})
	}
}

func TestInvisibleCharactersInTheModelView(t *testing.T) {
	hidden := "see the README\U000E0049\U000E0067\U000E006E\u202Eevil\u200B"
	tl := tool.New(tool.Definition{Name: "t", Description: "T."}, func(context.Context, struct{}) (string, error) { return hidden, nil })
	res := call(newRegistry(t, tl), "t", `{}`)
	assert.Equal(t, `see the README\U000e0049\U000e0067\U000e006e\u202eevil\u200b`, res.Text(), "escaped by default")
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{KeepInvisible: true})
	require.NoError(t, r.Add(tl))
	assert.Equal(t, hidden, call(r, "t", `{}`).Text(), "kept when the host says so")
	type out struct {
		Note string `json:"note"`
	}
	structured := tool.New(tool.Definition{Name: "s", Description: "S."}, func(context.Context, struct{}) (out, error) { return out{hidden}, nil })
	res = call(newRegistry(t, structured), "s", `{}`)
	assert.Equal(t, `{"note":"see the README\udb40\udc49\udb40\udc67\udb40\udc6e\u202eevil\u200b"}`, string(res.Structured),
		"structured output escaped as JSON, the same value")
	var got out
	require.NoError(t, json.Unmarshal(res.Structured, &got))
	assert.Equal(t, hidden, got.Note, "the same value to a decoder")
	r = tool.NewRegistry[struct{}](&tool.RegistryOptions{KeepInvisible: true})
	require.NoError(t, r.Add(structured))
	assert.Contains(t, string(call(r, "s", `{}`).Structured), hidden, "kept when the host says so")
	assert.Equal(t, "family: 👩\u200d👧", call(newRegistry(t, tool.New(tool.Definition{Name: "e", Description: "E."},
		func(context.Context, struct{}) (string, error) { return "family: 👩\u200d👧", nil })), "e", `{}`).Text(), "joiners emoji need are kept")
}

// blockingMemory is an ApprovalStore whose Allowed does not return until
// the test ends.
type blockingMemory struct {
	tool.ApprovalStore
	never chan struct{}
}

func (m blockingMemory) Allowed(context.Context, string, string) (bool, error) {
	<-m.never
	return false, nil
}

func TestHostHooksCannotHangACall(t *testing.T) {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	hooked := func(h tool.ApprovalHooks[shellArgs]) tool.AnyTool {
		return tool.WithApprovalHooks(tool.New(tool.Definition{Name: "sh", Description: "Runs.", Safety: tool.SafetyMutating},
			func(context.Context, shellArgs) (string, error) { return "ran", nil }), h)
	}
	tests := []struct {
		name  string
		tool  tool.AnyTool
		mem   tool.ApprovalStore
		check func(t *testing.T, req tool.ApprovalRequest)
	}{
		{"a Describe that blocks: the basic preview", hooked(tool.ApprovalHooks[shellArgs]{Describe: func(context.Context, shellArgs) (tool.Preview, error) {
			<-never
			return tool.Preview{}, nil
		}}), nil, func(t *testing.T, req tool.ApprovalRequest) { assert.True(t, req.Preview.Basic) }},
		{"a Classify that blocks: the worst class", hooked(tool.ApprovalHooks[shellArgs]{Classify: func(shellArgs) tool.Safety {
			<-never
			return tool.SafetyReadOnly
		}}), nil, func(t *testing.T, req tool.ApprovalRequest) { assert.Equal(t, tool.SafetyDestructive, req.Safety) }},
		{"a Require that blocks: asked every time", hooked(tool.ApprovalHooks[shellArgs]{Require: func(shellArgs) tool.Requirement {
			<-never
			return tool.Requirement{}
		}}), nil, func(t *testing.T, req tool.ApprovalRequest) {
			assert.Equal(t, tool.RequireAskAlways, req.Requirement.Mode)
		}},
		{"a memory that blocks: not remembered", hooked(tool.ApprovalHooks[shellArgs]{}), blockingMemory{tool.NewMemoryApprovalStore(0), never}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			approver := tooltest.NewApprover(tooltest.AllowOnce())
			r := tool.NewRegistry[struct{}](&tool.RegistryOptions{HookTimeout: 20 * time.Millisecond})
			require.NoError(t, r.Add(tt.tool))
			r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver, Store: tt.mem}))
			start := time.Now()
			res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "sh", Args: []byte(`{"command":"make"}`), Session: "s"})
			tooltest.WantOK(t, res)
			assert.Less(t, time.Since(start), 10*time.Second)
			require.Equal(t, 1, approver.Asked(), "the approver was asked, with the hook's fallback")
			if tt.check != nil {
				tt.check(t, approver.Requests()[0])
			}
			assert.Equal(t, int64(1), r.Stats().HooksRunning, "the hook left running is counted")
		})
	}
	t.Run("an approver that ignores its context", func(t *testing.T) {
		r := tool.NewRegistry[struct{}](nil)
		require.NoError(t, r.Add(hooked(tool.ApprovalHooks[shellArgs]{})))
		unblock := make(chan struct{})
		r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Timeout: 20 * time.Millisecond,
			Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
				<-unblock
				return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
			})}))
		res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "sh", Args: []byte(`{"command":"make"}`)})
		tooltest.WantStatus(t, res, tool.StatusDenied)
		assert.ErrorIs(t, res.Err, tool.ErrApprovalTimeout)
		assert.Equal(t, tool.Stats{HooksAbandoned: 1, HooksRunning: 1}, r.Stats())
		close(unblock)
		require.Eventually(t, func() bool { return r.Stats().HooksRunning == 0 }, 10*time.Second, time.Millisecond)
	})
}

func TestTheBasicPreviewIsMadeVisible(t *testing.T) {
	approver := tooltest.NewApprover(tooltest.AllowOnce())
	r := newRegistry(t, tool.New(tool.Definition{Name: "deploy", Title: "Deploy\u202e\u200bgnirts", Description: "Deploys.", Safety: tool.SafetyMutating},
		func(context.Context, struct{}) (string, error) { return "ok", nil }))
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver}))
	tooltest.WantOK(t, call(r, "deploy", `{}`))
	req := approver.Requests()[0]
	assert.True(t, req.Preview.Basic)
	assert.Equal(t, `Deploy\u202e\u200bgnirts`, req.Preview.Title)
	assert.Equal(t, `Deploy\u202e\u200bgnirts`, req.DisplayName)
}
