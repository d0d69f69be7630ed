package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

type session struct{ user string }

func TestAddTakesBothKinds(t *testing.T) {
	stateFree := tool.New(tool.Definition{Name: "ping", Description: "Answers pong."},
		func(context.Context, struct{}) (string, error) { return "pong", nil })
	withState := tool.NewFor(tool.Definition{Name: "whoami", Description: "Names the user."},
		func(_ context.Context, c *tool.Call[session], _ struct{}) (string, error) { return c.State.user, nil })
	r := tool.NewRegistry[session](nil)
	require.NoError(t, r.Add(stateFree, withState))
	assert.Equal(t, "pong", r.Call(context.Background(), session{}, tool.Request{Name: "ping"}).Text())
	assert.Equal(t, "ada", r.Call(context.Background(), session{"ada"}, tool.Request{Name: "whoami"}).Text())
}

func TestAddRefusesAToolForAnotherState(t *testing.T) {
	withState := tool.NewFor(tool.Definition{Name: "whoami", Description: "Names the user."},
		func(_ context.Context, c *tool.Call[session], _ struct{}) (string, error) { return c.State.user, nil })
	err := tool.NewRegistry[int](nil).Add(withState)
	var de *tool.DefinitionError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, "whoami", de.Tool)
	assert.Contains(t, err.Error(), "tool_test.session")
	assert.Contains(t, err.Error(), "this registry's state type is int")
}

type report struct {
	Path  string `json:"path"`
	Lines int    `json:"lines,omitempty"`
}

func TestDefinitionJSON(t *testing.T) {
	count := tool.New(tool.Definition{Name: "count", Title: "Count lines", Description: "Counts lines.", Safety: tool.SafetyReadOnly},
		func(context.Context, struct {
			Path string `json:"path"`
		}) (report, error) {
			return report{}, nil
		})
	def := count.Definition()
	require.NotEmpty(t, def.OutputSchema, "a struct result gets an output schema")
	assert.JSONEq(t, `{"type":"object","properties":{"path":{"type":"string"},"lines":{"type":"integer"}},"required":["path"],"additionalProperties":false}`, string(def.OutputSchema))

	b, err := json.Marshal(def)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	assert.ElementsMatch(t, []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}, keys(m))
	assert.JSONEq(t, `{"title":"Count lines","readOnlyHint":true,"openWorldHint":false}`, string(m["annotations"]))

	var back tool.Definition
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, tool.SafetyReadOnly, back.Safety)
	assert.Equal(t, def.Name, back.Name)
	assert.JSONEq(t, string(def.InputSchema), string(back.InputSchema))
}

func TestAnnotations(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		def  tool.Definition
		want tool.Annotations
	}{
		{tool.Definition{Safety: tool.SafetyReadOnly}, tool.Annotations{ReadOnly: &yes, OpenWorld: &no}},
		{tool.Definition{Safety: tool.SafetyMutating, Idempotent: true}, tool.Annotations{ReadOnly: &no, Destructive: &no, Idempotent: &yes, OpenWorld: &no}},
		{tool.Definition{Safety: tool.SafetyDestructive}, tool.Annotations{ReadOnly: &no, Destructive: &yes, Idempotent: &no, OpenWorld: &no}},
		{tool.Definition{Safety: tool.SafetyNetwork}, tool.Annotations{ReadOnly: &no, Destructive: &no, Idempotent: &no, OpenWorld: &yes}},
		{tool.Definition{}, tool.Annotations{Idempotent: &no}}, // unspecified: the client's worst-case defaults hold
	}
	for _, tt := range tests {
		t.Run(tt.def.Safety.String(), func(t *testing.T) {
			assert.Equal(t, tt.want, tt.def.Annotations())
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestOnChange(t *testing.T) {
	r := tool.NewRegistry[struct{}](nil)
	changes := 0
	cancel := r.OnChange(func() { changes++ })
	ping := func(name string) tool.AnyTool {
		return tool.New(tool.Definition{Name: name, Description: "Answers pong."}, func(context.Context, struct{}) (string, error) { return "pong", nil })
	}
	require.NoError(t, r.Add(ping("a")))
	require.Error(t, r.Add(ping("a")), "a refused Add changes nothing")
	r.OnChange(func() { panic("a broken watcher") })
	require.NoError(t, r.Add(ping("b"), ping("c")))
	assert.Equal(t, 2, changes)
	cancel()
	require.NoError(t, r.Add(ping("d")))
	assert.Equal(t, 2, changes)
}

func TestRequestObserver(t *testing.T) {
	rec, own := &kindRecorder{}, &kindRecorder{}
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: rec})
	r.MustAdd(tool.New(tool.Definition{Name: "work", Description: "Works."}, func(ctx context.Context, _ struct{}) (string, error) {
		tool.ReportProgress(ctx, tool.Progress{Message: "half", Done: 1, Total: 2})
		return "done", nil
	}))
	r.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "work", Observer: own})
	r.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "work"})
	assert.Equal(t, []string{"1 started", "1 progress", "1 finished"}, own.kinds())
	assert.Len(t, rec.kinds(), 6, "the registry's observer sees every call")
}

type kindRecorder struct {
	mu sync.Mutex
	ev []string
}

func (r *kindRecorder) Observe(e tool.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ev = append(r.ev, e.CallID+" "+e.Kind.String())
}

func (r *kindRecorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ev...)
}

func TestCallInfoFrom(t *testing.T) {
	var got tool.CallInfo
	var ok bool
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "who", Description: "Says who called."}, func(ctx context.Context, _ struct{}) (string, error) {
		got, ok = tool.CallInfoFrom(ctx)
		return "", nil
	}))
	r.Call(context.Background(), struct{}{}, tool.Request{ID: "call_7", Name: "who", Session: "conv-1"})
	require.True(t, ok)
	assert.Equal(t, tool.CallInfo{ID: "call_7", Name: "who", Session: "conv-1"}, got)
	_, ok = tool.CallInfoFrom(context.Background())
	assert.False(t, ok)
}
