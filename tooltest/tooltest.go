// Package tooltest is the harness for unit-testing tools, as net/http/httptest
// is for handlers: call a tool with the JSON a model would write, assert on
// what the model would be sent back, keep golden copies of definitions, and
// run a conformance suite of the rules every tool must keep.
//
// It uses only the public API of package tool and works with any
// testing.TB; helpers fail the test (t.Fatalf) rather than return errors.
package tooltest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolbelt-go/tool"
)

// Options configures [Run], [RunFor] and [NewConversation]. A nil *Options
// means the defaults.
type Options struct {
	// Context is the context the calls are made with; nil means
	// context.Background.
	Context context.Context
	// Session is the calls' Request.Session. Empty means none for [Run]
	// and [RunFor], and a session of its own for a [Conversation].
	Session string
	// Registry configures the registry that [Run] and [RunFor] build (a
	// spill store, limits, an observer); nil means the defaults.
	Registry *tool.RegistryOptions
}

// orDefaults returns the options with their defaults filled in.
func (o *Options) orDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.Context == nil {
		v.Context = context.Background()
	}
	return v
}

var callSeq atomic.Uint64

// nextID gives every call this package makes an ID of its own, so that a
// Recorder tells their events apart.
func nextID() string { return "tooltest-" + strconv.FormatUint(callSeq.Add(1), 10) }

// Run calls a tool that needs no host state through the full registry
// pipeline (preflight included) with args as a model would write them, and
// returns the result. Each call gets a call ID of its own. The registry is
// new for each call: to follow a cursor or read cut output back, use a
// [Conversation].
func Run(t testing.TB, tl tool.Definer, args string, opts *Options) *tool.Result {
	t.Helper()
	return RunFor(t, tl, struct{}{}, args, opts)
}

// RunFor calls a tool that uses host state, with state, through the full
// pipeline.
func RunFor[C any](t testing.TB, tl tool.Definer, state C, args string, opts *Options) *tool.Result {
	t.Helper()
	o := opts.orDefaults()
	r := tool.NewRegistry[C](o.Registry)
	if err := r.Add(tl); err != nil {
		t.Fatalf("tooltest: the tool cannot be registered: %v", err)
	}
	return r.Call(o.Context, state, tool.Request{ID: nextID(), Name: tl.Definition().Name, Args: json.RawMessage(args), Session: o.Session})
}

// ModelView renders what the model is sent, for failure messages.
func ModelView(res *tool.Result) string {
	if res == nil {
		return "<nil result>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "status=%s is_error=%v", res.Status, res.IsError)
	if res.Err != nil {
		fmt.Fprintf(&b, " err=%q", res.Err.Error())
	}
	b.WriteString("\n--- model text ---\n")
	b.WriteString(res.Text())
	if len(res.Structured) > 0 {
		b.WriteString("\n--- structured ---\n")
		b.Write(res.Structured)
	}
	return b.String()
}

// WantOK fails the test unless the call succeeded.
func WantOK(t testing.TB, res *tool.Result) {
	t.Helper()
	if res == nil || res.Status != tool.StatusOK || res.IsError {
		t.Fatalf("tooltest: want a successful call, got\n%s", ModelView(res))
	}
}

// WantStatus fails the test unless the result has the status.
func WantStatus(t testing.TB, res *tool.Result, want tool.Status) {
	t.Helper()
	if res == nil || res.Status != want {
		t.Fatalf("tooltest: want status %s, got\n%s", want, ModelView(res))
	}
}

// WantText fails the test unless the model text is exactly want.
func WantText(t testing.TB, res *tool.Result, want string) {
	t.Helper()
	if res.Text() != want {
		t.Fatalf("tooltest: want model text\n%s\ngot\n%s", want, ModelView(res))
	}
}

// WantTextContains fails the test unless the model text contains every
// part.
func WantTextContains(t testing.TB, res *tool.Result, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(res.Text(), p) {
			t.Fatalf("tooltest: want model text containing %q, got\n%s", p, ModelView(res))
		}
	}
}

// Decode decodes the result's structured output into a T.
func Decode[T any](t testing.TB, res *tool.Result) T {
	t.Helper()
	var v T
	if len(res.Structured) == 0 {
		t.Fatalf("tooltest: the result has no structured output\n%s", ModelView(res))
	}
	if err := json.Unmarshal(res.Structured, &v); err != nil {
		t.Fatalf("tooltest: structured output does not decode into %T: %v\n%s", v, err, ModelView(res))
	}
	return v
}
