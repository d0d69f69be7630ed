package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/tool"
)

type noArgs struct{}

type point struct {
	X int `json:"x"`
}

func TestExecutionOutcomes(t *testing.T) {
	defer goleak.VerifyNone(t)
	def := func(name string) tool.Definition { return tool.Definition{Name: name, Description: "test tool"} }
	tools := []tool.Definer{
		tool.New(def("panics"), func(context.Context, noArgs) (string, error) { panic("boom") }),
		tool.New(def("panics_nil"), func(context.Context, noArgs) (string, error) { panic(nil) }),
		tool.New(def("goexits"), func(context.Context, noArgs) (string, error) { runtime.Goexit(); return "", nil }),
		tool.NewRaw(tool.Definition{Name: "nil_result", Description: "x", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return nil, nil }),
		tool.New(def("typed_nil"), func(context.Context, noArgs) (*point, error) { return nil, nil }),
		tool.New(def("plain_error"), func(context.Context, noArgs) (string, error) { return "", errors.New("disk full") }),
		tool.New(def("guided_error"), func(context.Context, noArgs) (string, error) {
			return "", &tool.Error{Message: "no such file", Hint: "list the directory first", Warning: "paths are relative", MustFollow: []string{"use list_dir"}}
		}),
		tool.New(def("internal_error"), func(context.Context, noArgs) (string, error) {
			return "", tool.Internal(errors.New("db password rejected"))
		}),
		tool.New(def("text_out"), func(context.Context, noArgs) (string, error) { return "hello\x1b[2J", nil }),
		tool.New(def("struct_out"), func(context.Context, noArgs) (point, error) { return point{X: 3}, nil }),
		tool.New(def("result_out"), func(context.Context, noArgs) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.TextContent("custom")}, IsError: true}, nil
		}),
	}
	r := newRegistry(t, tools...)
	tests := []struct {
		tool       string
		status     tool.Status
		says       string
		structured string
	}{
		{"panics", tool.StatusPanicked, "crashed", ""},
		{"panics_nil", tool.StatusPanicked, "crashed", ""},
		{"goexits", tool.StatusPanicked, "crashed", ""},
		{"nil_result", tool.StatusFailed, "returned no result", ""},
		{"typed_nil", tool.StatusOK, "null", ""}, // null is text, not structured output
		{"plain_error", tool.StatusFailed, "Error: disk full", ""},
		{"guided_error", tool.StatusFailed, "Error: no such file\nHint: list the directory first\nWarning: paths are relative\nYou must: use list_dir", ""},
		{"internal_error", tool.StatusFailed, "failed internally", ""},
		{"text_out", tool.StatusOK, `hello\x1b[2J`, ""},
		{"struct_out", tool.StatusOK, `{"x":3}`, `{"x":3}`},
		{"result_out", tool.StatusFailed, "custom", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res := call(r, tt.tool, `{}`)
			assert.Equal(t, tt.status, res.Status, res.Text())
			assert.Equal(t, tt.status != tool.StatusOK, res.IsError)
			assert.Contains(t, res.Text(), tt.says)
			assert.Equal(t, tt.structured, string(res.Structured))
			assert.Equal(t, "call-1", res.CallID)
			assert.Equal(t, tt.tool, res.Tool)
			checkModelText(t, res)
		})
	}
	t.Run("panic stack in host view only", func(t *testing.T) {
		res := call(r, "panics", `{}`)
		var pe *tool.PanicError
		require.ErrorAs(t, res.Err, &pe)
		assert.Equal(t, "boom", pe.Value)
		assert.Contains(t, string(pe.Stack), "pipeline_test.go")
		assert.NotContains(t, res.Text(), "boom")
	})
	t.Run("goexit is reported", func(t *testing.T) {
		var pe *tool.PanicError
		require.ErrorAs(t, call(r, "goexits", `{}`).Err, &pe)
		assert.True(t, pe.Goexit)
	})
	t.Run("internal message hidden", func(t *testing.T) {
		res := call(r, "internal_error", `{}`)
		assert.NotContains(t, res.Text(), "password")
		assert.ErrorContains(t, res.Err, "db password rejected")
	})
	t.Run("next call works", func(t *testing.T) {
		assert.Equal(t, tool.StatusOK, call(r, "struct_out", `{}`).Status)
	})
	time.Sleep(60 * time.Millisecond) // let idle workers retire before the leak check
}

func TestCancellation(t *testing.T) {
	started := make(chan struct{})
	slow := tool.New(tool.Definition{Name: "slow", Description: "waits"}, func(ctx context.Context, _ noArgs) (string, error) {
		close(started)
		<-ctx.Done()
		return "finished anyway", nil // a tool that ignores the cancellation in its result
	})
	r := newRegistry(t, slow)

	t.Run("before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := r.Call(ctx, struct{}{}, tool.Request{Name: "slow", Args: []byte(`{}`)})
		assert.Equal(t, tool.StatusCanceled, res.Status)
		assert.Contains(t, res.Text(), "before it started")
	})
	t.Run("during the call never reports success", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() { <-started; cancel(errors.New("user pressed stop")) }()
		res := r.Call(ctx, struct{}{}, tool.Request{Name: "slow", Args: []byte(`{}`)})
		assert.Equal(t, tool.StatusCanceled, res.Status)
		assert.True(t, res.IsError)
		assert.NotContains(t, res.Text(), "user pressed stop", "the host's cause is host data")
		assert.EqualError(t, res.Err, "user pressed stop", "the host view has it")
		assert.NotContains(t, res.Text(), "finished anyway")
	})
	t.Run("deadline is a timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
		defer cancel()
		<-ctx.Done()
		res := r.Call(ctx, struct{}{}, tool.Request{Name: "slow", Args: []byte(`{}`)})
		assert.Equal(t, tool.StatusTimedOut, res.Status)
	})
}

func TestUnknownTool(t *testing.T) {
	r := newRegistry(t, newSearch(), tool.New(tool.Definition{Name: "read_file", Description: "x"}, func(context.Context, noArgs) (string, error) { return "", nil }))
	tests := []struct{ name, suggest string }{
		{"Search", "search"},
		{"serch", "search"},
		{"s\u0435arch", "search"}, // Cyrillic e
		{"read-file", "read_file"},
		{"readfile", "read_file"},
		{"", ""},
		{strings.Repeat("x", 10000), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name[:min(len(tt.name), 20)], func(t *testing.T) {
			res := call(r, tt.name, `{}`)
			assert.Equal(t, tool.StatusUnknownTool, res.Status)
			assert.ErrorIs(t, res.Err, tool.ErrUnknownTool)
			if tt.suggest != "" {
				assert.Contains(t, res.Text(), `Did you mean "`+tt.suggest+`"`)
			}
			assert.Contains(t, res.Text(), "Available tools: read_file, search.")
			checkModelText(t, res)
			assert.Less(t, len(res.Text()), 1024)
		})
	}
}

func TestRegistryAddRejects(t *testing.T) {
	good := tool.Definition{Name: "ok", Description: "fine"}
	rawDef := func(name, schema string) tool.AnyTool {
		return tool.NewRaw(tool.Definition{Name: name, Description: "raw", InputSchema: json.RawMessage(schema)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return nil, nil })
	}
	type withChan struct {
		C chan int `json:"c"`
	}
	type node struct {
		Kids []node `json:"kids"`
	}
	tests := []struct {
		name  string
		tools []tool.Definer
		says  []string
	}{
		{"bad name", []tool.Definer{tool.New(tool.Definition{Name: "has space", Description: "x"}, func(context.Context, noArgs) (string, error) { return "", nil })}, []string{"invalid name"}},
		{"long name", []tool.Definer{tool.New(tool.Definition{Name: strings.Repeat("a", 65), Description: "x"}, func(context.Context, noArgs) (string, error) { return "", nil })}, []string{"invalid name"}},
		{"empty description", []tool.Definer{tool.New(tool.Definition{Name: "x"}, func(context.Context, noArgs) (string, error) { return "", nil })}, []string{"description is empty"}},
		{"duplicate in call", []tool.Definer{newSearch(), newSearch()}, []string{"appears twice"}},
		{"chan field", []tool.Definer{tool.New(good, func(context.Context, withChan) (string, error) { return "", nil })}, []string{"chan cannot be a tool argument"}},
		{"recursive", []tool.Definer{tool.New(good, func(context.Context, node) (string, error) { return "", nil })}, []string{"recursive"}},
		{"non-struct args", []tool.Definer{tool.New(good, func(context.Context, int) (string, error) { return "", nil })}, []string{"not a struct"}},
		{"schema not object", []tool.Definer{rawDef("r", `{"type":"string"}`)}, []string{`"type": "object"`}},
		{"schema not json", []tool.Definer{rawDef("r", `{"type":`)}, []string{"not valid JSON"}},
		{"schema bad keyword", []tool.Definer{rawDef("r", `{"type":"object","properties":{"a":{"minimum":"x"}}}`)}, []string{"does not compile"}},
		{"external ref file", []tool.Definer{rawDef("r", `{"type":"object","properties":{"a":{"$ref":"other.json"}}}`)}, []string{"outside itself"}},
		{"external ref url", []tool.Definer{rawDef("r", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)}, []string{"outside itself"}},
		{"raw without schema", []tool.Definer{tool.NewRaw(tool.Definition{Name: "r", Description: "x"}, nil)}, []string{"needs Definition.InputSchema"}},
		{"nil tool", []tool.Definer{nil}, []string{"nil"}},
		{"every problem named", []tool.Definer{rawDef("bad name", `{"type":"string"}`), tool.New(tool.Definition{Name: "y"}, func(context.Context, noArgs) (string, error) { return "", nil })}, []string{"invalid name", `"type": "object"`, "description is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tool.NewRegistry[struct{}](nil)
			err := r.Add(tt.tools...)
			require.Error(t, err)
			for _, s := range tt.says {
				assert.Contains(t, err.Error(), s)
			}
			var de *tool.DefinitionError
			assert.ErrorAs(t, err, &de)
			assert.Empty(t, r.Definitions(), "nothing is added when anything is wrong")
		})
	}
	t.Run("duplicate across calls", func(t *testing.T) {
		r := newRegistry(t, newSearch())
		assert.ErrorContains(t, r.Add(newSearch()), "already registered")
	})
	t.Run("MustAdd panics with prefix", func(t *testing.T) {
		r := tool.NewRegistry[struct{}](nil)
		assert.PanicsWithValue(t, `tool: tool "x": the description is empty; the model needs it to know when to call the tool`, func() {
			r.MustAdd(tool.New(tool.Definition{Name: "x"}, func(context.Context, noArgs) (string, error) { return "", nil }))
		})
	})
}

func TestDefinitions(t *testing.T) {
	mk := func(name string, hidden bool) tool.AnyTool {
		return tool.New(tool.Definition{Name: name, Description: "d", Hidden: hidden}, func(context.Context, noArgs) (string, error) { return "", nil })
	}
	r := newRegistry(t, mk("zeta", false), mk("alpha", false), mk("secret", true))
	defs := r.Definitions()
	require.Len(t, defs, 2)
	assert.Equal(t, "alpha", defs[0].Name)
	assert.Equal(t, "zeta", defs[1].Name)
	assert.JSONEq(t, `{"type":"object","properties":{},"additionalProperties":false}`, string(defs[0].InputSchema))
	assert.Equal(t, tool.StatusOK, call(r, "secret", `{}`).Status, "hidden tools stay callable")
	defs[0].Name = "changed"
	assert.Equal(t, "alpha", r.Definitions()[0].Name, "callers cannot change the cached list")
}

func TestSchemaFromTags(t *testing.T) {
	s, err := tool.SchemaOf[searchArgs]()
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"type":"object","additionalProperties":false,"required":["query"],
		"properties":{
			"query":{"type":"string","minLength":1,"description":"what to find"},
			"limit":{"type":"integer","minimum":1,"maximum":100,"default":10},
			"lang":{"type":"string","enum":["go","rust","python"]},
			"path":{"type":"string","pattern":"^[a-z/]*$"}}}`, string(s))
}

func TestMiddlewareOrder(t *testing.T) {
	var order []string
	mw := func(name string) tool.Middleware[struct{}] {
		return func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
			return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
				_, validated := c.Value()
				order = append(order, name+":in:"+map[bool]string{true: "validated", false: "raw"}[validated])
				res := next(ctx, c)
				order = append(order, name+":out")
				return res
			}
		}
	}
	r := newRegistry(t, newSearch())
	r.Use(mw("a"), mw("b"))
	r.Use(mw("c"))
	require.Equal(t, tool.StatusOK, call(r, "search", `{"query":"x"}`).Status)
	assert.Equal(t, []string{"a:in:validated", "b:in:validated", "c:in:validated", "c:out", "b:out", "a:out"}, order)

	order = nil
	assert.Equal(t, tool.StatusInvalid, call(r, "search", `{}`).Status)
	assert.Empty(t, order, "middlewares never see invalid arguments")
}

func TestSetArgsIsValidatedAgain(t *testing.T) {
	edit := func(args string) tool.Middleware[struct{}] {
		return func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
			return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
				c.SetArgs(json.RawMessage(args))
				return next(ctx, c)
			}
		}
	}
	r := newRegistry(t, newSearch())
	r.Use(edit(`{"query":"edited","limit":7}`))
	for len(received) > 0 {
		<-received
	}
	require.Equal(t, tool.StatusOK, call(r, "search", `{"query":"x"}`).Status)
	assert.Equal(t, searchArgs{Query: "edited", Limit: 7}, <-received)

	r2 := newRegistry(t, newSearch())
	r2.Use(edit(`{"limit":"bad"}`))
	assert.Equal(t, tool.StatusInvalid, call(r2, "search", `{"query":"x"}`).Status)
}

func TestMiddlewarePanicIsRecovered(t *testing.T) {
	r := newRegistry(t, newSearch())
	r.Use(func(tool.Handler[struct{}]) tool.Handler[struct{}] {
		return func(context.Context, *tool.Call[struct{}]) *tool.Result { panic("middleware bug") }
	})
	assert.Equal(t, tool.StatusPanicked, call(r, "search", `{"query":"x"}`).Status)
}

func TestWrapKeepsOptionalInterfaces(t *testing.T) {
	inner := rawWithCheck{tool.NewRaw(tool.Definition{Name: "read", Description: "reads", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("read"), nil })}
	adapted := tool.Adapt[struct{}](inner)
	wrapped := tool.Wrap(adapted, func(next tool.Handler[struct{}]) tool.Handler[struct{}] { return next })
	for name, tl := range map[string]any{"adapted": adapted, "wrapped": wrapped} {
		_, ok := tool.As[tool.ArgsValidator](tl)
		assert.True(t, ok, "%s lost ArgsValidator", name)
	}
	r := tool.NewRegistry[struct{}](nil)
	require.NoError(t, r.Add(wrapped))
	res := call(r, "read", `{"path":"/etc/passwd"}`)
	assert.Equal(t, tool.StatusInvalid, res.Status)
	assert.Contains(t, res.Text(), "off limits")
	assert.Equal(t, tool.StatusOK, call(r, "read", `{"path":"/tmp/x"}`).Status)
}

func TestWrapStandalone(t *testing.T) {
	var seen []string
	w := tool.Wrap(tool.Adapt[struct{}](newSearch()), func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
		return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
			seen = append(seen, c.Name)
			return next(ctx, c)
		}
	})
	call := func(args string) *tool.Call[struct{}] {
		c := &tool.Call[struct{}]{Name: "search"}
		c.SetArgs(json.RawMessage(args))
		return c
	}
	res, err := w.Run(context.Background(), call(`{"query":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, tool.StatusOK, res.Status)
	res, err = w.Run(context.Background(), call(`{"query":1}`))
	require.NoError(t, err)
	assert.Equal(t, tool.StatusInvalid, res.Status)
	assert.Equal(t, []string{"search"}, seen, "middlewares run after preflight")
}

func TestTypedToolStandalone(t *testing.T) {
	s := newSearch()
	res, err := s.Run(context.Background(), json.RawMessage(`{"query":"x","limt":1}`))
	require.NoError(t, err)
	assert.Equal(t, tool.StatusInvalid, res.Status)
	res, err = s.Run(context.Background(), json.RawMessage(`{"query":"x"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"query":"x","limit":10}`, string(res.Structured))
}

type stateArgs struct {
	Name string `json:"name"`
}

func TestNewForReceivesState(t *testing.T) {
	type session struct{ User string }
	greet := tool.NewFor(tool.Definition{Name: "greet", Description: "greets"}, func(_ context.Context, c *tool.Call[*session], in stateArgs) (string, error) {
		return "hello " + in.Name + " from " + c.State.User, nil
	})
	r := tool.NewRegistry[*session](nil)
	r.MustAdd(greet)
	res := r.Call(context.Background(), &session{User: "ana"}, tool.Request{Name: "greet", Args: []byte(`{"name":"bo"}`)})
	assert.Equal(t, "hello bo from ana", res.Text())
}

func TestConcurrentCalls(t *testing.T) {
	r := newRegistry(t, newSearch())
	done := make(chan *tool.Result)
	for i := 0; i < 50; i++ {
		go func() {
			if i%2 == 0 {
				done <- call(r, "search", `{"query":"x"}`)
			} else {
				done <- call(r, "search", `{"query":1}`)
			}
		}()
	}
	counts := map[tool.Status]int{}
	for i := 0; i < 50; i++ {
		counts[(<-done).Status]++
	}
	assert.Equal(t, map[tool.Status]int{tool.StatusOK: 25, tool.StatusInvalid: 25}, counts)
}

// A tool that calls runtime.Goexit must not leave later calls without a
// worker, whichever worker ran it.
func TestGoexitLeavesTheNextCallsRunning(t *testing.T) {
	r := newRegistry(t,
		tool.New(tool.Definition{Name: "exit", Description: "Exits its goroutine."}, func(context.Context, noArgs) (string, error) {
			runtime.Goexit()
			return "", nil
		}),
		tool.New(tool.Definition{Name: "ok", Description: "Answers."}, func(context.Context, noArgs) (string, error) { return "fine", nil }))
	for range 50 {
		assert.Equal(t, tool.StatusPanicked, call(r, "exit", `{}`).Status)
		res := call(r, "ok", `{}`)
		require.Equal(t, tool.StatusOK, res.Status)
		require.Equal(t, "fine", res.Text())
	}
}
