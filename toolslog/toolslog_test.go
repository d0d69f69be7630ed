package toolslog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/toolslog"
	"github.com/toolbelt-go/tool/tooltest"
)

// records is a JSON handler's output, one map per record.
type records struct{ buf bytes.Buffer }

func (r *records) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(&r.buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (r *records) all(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		out = append(out, m)
	}
	return out
}

type echoArgs struct {
	Text  string `json:"text"`
	Times int    `json:"times,omitempty" jsonschema:"default=1"`
}

// registry has tools for each way a call ends.
func registry(opts *tool.RegistryOptions, mws ...tool.Middleware[struct{}]) *tool.Registry[struct{}] {
	r := tool.NewRegistry[struct{}](opts)
	r.MustAdd(
		tool.New(tool.Definition{Name: "echo", Description: "Echoes.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in echoArgs) (string, error) { return strings.Repeat(in.Text, in.Times), nil }),
		tool.New(tool.Definition{Name: "fail", Description: "Fails.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) {
				return "", errors.New("disk full: " + strings.Repeat("x", 100_000))
			}),
		tool.New(tool.Definition{Name: "crash", Description: "Panics.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) { panic("boom") }),
		tool.New(tool.Definition{Name: "write", Description: "Writes.", Safety: tool.SafetyMutating},
			func(context.Context, struct{}) (string, error) { return "ok", nil }),
	)
	r.Use(mws...)
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooltest.NewApprover(tooltest.Deny("not now"))}))
	return r
}

func call(r *tool.Registry[struct{}], name, args string) *tool.Result {
	return r.Call(context.Background(), struct{}{}, tool.Request{ID: "call-" + name, Name: name, Args: []byte(args), Session: "conv-1"})
}

func TestEachCallIsLoggedAtTheLevelOfItsStatus(t *testing.T) {
	tests := []struct {
		name, tool, args  string
		status, level     string
		middleware, error bool // seen by the middleware; has an error
	}{
		{"success", "echo", `{"text":"hi"}`, "ok", "INFO", true, false},
		{"tool error", "fail", `{}`, "failed", "WARN", true, true},
		{"panic", "crash", `{}`, "panicked", "ERROR", true, true},
		{"denied", "write", `{}`, "denied", "INFO", true, true},
		{"invalid arguments", "echo", `{"text":5}`, "invalid", "WARN", false, true},
		{"unknown tool", "ech0", `{}`, "unknown_tool", "WARN", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mw, obs records
			r := registry(&tool.RegistryOptions{Observer: toolslog.Observer(obs.logger(), nil)}, toolslog.Middleware[struct{}](mw.logger(), nil))
			res := call(r, tt.tool, tt.args)
			require.Equal(t, tt.status, res.Status.String())

			o := obs.all(t)
			require.Len(t, o, 1, "the observer logs every call, once")
			m := mw.all(t)
			if !tt.middleware {
				assert.Empty(t, m, "preflight refused the call before the middlewares")
			} else {
				require.Len(t, m, 1, "the middleware logs the calls that reach it, once")
				o = append(o, m[0])
			}
			for _, rec := range o {
				assert.Equal(t, "tool call", rec["msg"])
				assert.Equal(t, tt.level, rec["level"])
				assert.Equal(t, tt.tool, rec["tool"])
				assert.Equal(t, "call-"+tt.tool, rec["call_id"])
				assert.Equal(t, tt.status, rec["status"])
				assert.Contains(t, rec, "duration")
				assert.NotContains(t, rec, "args", "arguments are logged only when asked for")
				if tt.error {
					assert.NotEmpty(t, rec["error"])
					assert.LessOrEqual(t, len(rec["error"].(string)), 2048, "error text is bounded")
				} else {
					assert.NotContains(t, rec, "error")
				}
			}
			if tt.middleware {
				assert.Equal(t, "conv-1", m[0]["session"])
			}
			if tt.status == "panicked" {
				assert.Contains(t, o[0]["stack"], "goroutine", "the host gets the stack")
			}
		})
	}
}

func TestArgumentsOnlyWhenAskedAndBounded(t *testing.T) {
	var logs records
	r := registry(nil, toolslog.Middleware[struct{}](logs.logger(), &toolslog.Options{Arguments: true, MaxArgumentBytes: 100}))
	tooltest.WantOK(t, call(r, "echo", `{"text":"secret-ish"}`))
	tooltest.WantOK(t, call(r, "echo", `{"text":"`+strings.Repeat("é", 500)+`"}`))
	recs := logs.all(t)
	require.Len(t, recs, 2)
	assert.Equal(t, `{"text":"secret-ish","times":1}`, recs[0]["args"], "as validated: canonical, defaults filled in")
	assert.LessOrEqual(t, len(recs[1]["args"].(string)), 100)
}

func TestRefusedArgumentsAreNotQuotedUnlessAsked(t *testing.T) {
	const secret = "hunter2-secret"
	for _, withArgs := range []bool{false, true} {
		var logs records
		r := registry(&tool.RegistryOptions{Observer: toolslog.Observer(logs.logger(), &toolslog.Options{Arguments: withArgs})})
		tooltest.WantStatus(t, call(r, "echo", `{"text":"a","times":"`+secret+`"}`), tool.StatusInvalid)
		recs := logs.all(t)
		require.Len(t, recs, 1)
		if withArgs {
			assert.Contains(t, recs[0]["error"], secret, "the whole validation message, which quotes the value")
		} else {
			assert.Equal(t, "invalid arguments: /times type", recs[0]["error"], "where and what kind, no values")
			assert.NotContains(t, logs.buf.String(), secret)
		}
	}
}

// ctxHandler records a value the call's context carries, as a handler that
// adds trace IDs would.
type ctxHandler struct {
	slog.Handler
	seen *[]any
}

type ctxKey struct{}

func (h ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	*h.seen = append(*h.seen, ctx.Value(ctxKey{}))
	return nil
}

func TestMiddlewareLogsWithTheCallsContext(t *testing.T) {
	var seen []any
	l := slog.New(ctxHandler{Handler: slog.NewTextHandler(&bytes.Buffer{}, nil), seen: &seen})
	r := registry(nil, toolslog.Middleware[struct{}](l, nil))
	ctx := context.WithValue(context.Background(), ctxKey{}, "trace-123")
	r.Call(ctx, struct{}{}, tool.Request{ID: "1", Name: "echo", Args: []byte(`{"text":"x"}`)})
	assert.Equal(t, []any{"trace-123"}, seen)
}

func TestAbandonedCallsAreErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs records
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: toolslog.Observer(logs.logger(), nil)})
		block := make(chan struct{})
		defer close(block)
		r.MustAdd(tool.New(tool.Definition{Name: "stuck", Description: "Ignores its context.", Timeout: time.Second},
			func(context.Context, struct{}) (string, error) { <-block; return "", nil }))
		res := r.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "stuck"})
		require.ErrorIs(t, res.Err, tool.ErrAbandoned)
		recs := logs.all(t)
		require.Len(t, recs, 1)
		assert.Equal(t, "ERROR", recs[0]["level"])
		assert.Equal(t, "timed_out", recs[0]["status"])
	})
}

func TestDisabledLevelsCostNothing(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelError}))
	r := registry(&tool.RegistryOptions{Observer: toolslog.Observer(l, nil)}, toolslog.Middleware[struct{}](l, &toolslog.Options{
		Level: func(*tool.Result) slog.Level { return slog.LevelDebug },
	}))
	call(r, "echo", `{"text":"x"}`)
	assert.Empty(t, buf.String(), "an Info record under an Error handler, and a Debug one")
}
