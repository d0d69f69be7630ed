package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/tool"
)

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
		assert.Contains(t, string(pe.Stack), "run_test.go")
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
