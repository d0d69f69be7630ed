package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
)

// Suite configures [Conformance]. The zero value checks every rule that
// needs no help from the test.
type Suite struct {
	// ValidArgs gives, per tool name, arguments the tool accepts. The
	// mutation, cancellation and goroutine rules need them; for a tool
	// without an entry the suite tries {} and arguments generated from the
	// schema ([GenerateArgs]), and skips those rules if all are refused.
	ValidArgs map[string]string
	// MaxDescription bounds description length; default 1024 characters
	// (the smallest limit among major providers).
	MaxDescription int
	// CancelWithin is how soon a call must end after its context is
	// cancelled; default 5s. The rule catches a tool that ignores its
	// context (it would run on, and be abandoned at its deadline), not a
	// slow one: the bound is generous so that a loaded machine running
	// tests in parallel never trips it.
	CancelWithin time.Duration
	// NoExecute runs only the rules that never run the tool: nothing gets
	// past preflight (a middleware stops every call that passes it), the
	// cancellation and goroutine rules are skipped. For tools that must not
	// run in a test, or cannot without a sandbox.
	NoExecute bool
}

// adversarial are arguments every tool must refuse as Invalid, never run
// on and never panic over: the classes a model (or an injection) produces.
var adversarial = []struct{ name, args string }{
	{"bare brace", `{`},
	{"cut off string", `{"a":"abc`},
	{"top-level array", `[]`},
	{"top-level number", `42`},
	{"object inside a string", `"{}"`},
	{"two documents", `{}{}`},
	{"trailing garbage", `{} x`},
	{"duplicate keys", `{"k":1,"k":2}`},
	{"keys differing by case", `{"k":1,"K":2}`},
	{"invalid UTF-8", "{\"k\":\"\xff\"}"},
	{"lone surrogate", `{"k":"\ud800"}`},
	{"deep nesting", `{"k":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`},
	{"absurd number", `{"k":1e999999}`},
	{"long digits", `{"k":` + strings.Repeat("7", 500) + `}`},
	{"unknown key with escapes", "{\"\\u001b[2Jtooltest_unknown\":1}"},
}

// Conformance runs one subtest per rule for each tool that needs no host
// state; a failure names the rule and why. Rules: names valid and unique;
// descriptions present and not too long; schemas register (compile, object
// root, no outside references), declare properties and reject unknown
// keys; adversarial arguments come back Invalid, never run, never panic;
// wrappers keep optional interfaces; arguments derived from valid ones by
// [Mutations] come back Invalid; a call ends soon after its context is
// cancelled; no goroutine is left running after a call.
//
// It runs the tools. To find arguments a tool accepts (when
// Suite.ValidArgs has none) it calls it with {} and with arguments
// generated from its schema, and the cancellation and goroutine rules call
// it with those: a tool that writes files or calls a service does so
// during the test. Give such tools a sandbox (a temporary directory, a fake
// client), or set Suite.NoExecute to run only the rules that never let a
// call past preflight.
func Conformance(t *testing.T, s Suite, tools ...tool.Definer) {
	t.Helper()
	ConformanceFor(t, s, struct{}{}, tools...)
}

// ConformanceFor is [Conformance] for tools that take host state: every
// call is given state.
func ConformanceFor[C any](t *testing.T, s Suite, state C, tools ...tool.Definer) {
	t.Helper()
	if s.MaxDescription == 0 {
		s.MaxDescription = 1024
	}
	if s.CancelWithin == 0 {
		s.CancelWithin = 5 * time.Second
	}
	t.Run("names are valid and unique", func(t *testing.T) {
		seen := map[string]bool{}
		for _, tl := range tools {
			n := tl.Definition().Name
			if !tool.ValidName(n) {
				t.Errorf("%q is not a valid tool name (1 to 64 of a-z, A-Z, 0-9, _ and -)", n)
			}
			if seen[n] {
				t.Errorf("%q is used by more than one tool", n)
			}
			seen[n] = true
		}
	})
	for _, tl := range tools {
		tl := tl
		def := tl.Definition()
		t.Run(def.Name, func(t *testing.T) {
			// A long grace: a tool that ignores cancellation must not be
			// hidden by the registry giving up on it.
			reg := tool.NewRegistry[C](&tool.RegistryOptions{Grace: time.Hour})
			regErr := reg.Add(tl)
			if s.NoExecute {
				reg.Use(func(tool.Handler[C]) tool.Handler[C] {
					return func(context.Context, *tool.Call[C]) *tool.Result {
						return &tool.Result{Status: tool.StatusDenied, IsError: true, Content: []tool.Content{tool.TextContent("not run: Suite.NoExecute")}}
					}
				})
			}
			call := func(args string) *tool.Result {
				return reg.Call(context.Background(), state, tool.Request{ID: nextID(), Name: def.Name, Args: json.RawMessage(args)})
			}
			t.Run("description is present and not too long", func(t *testing.T) {
				if strings.TrimSpace(def.Description) == "" {
					t.Fatal("the description is empty; the model uses it to decide when to call the tool")
				}
				if n := len([]rune(def.Description)); n > s.MaxDescription {
					t.Fatalf("the description is %d characters, over %d", n, s.MaxDescription)
				}
			})
			t.Run("schema registers", func(t *testing.T) {
				if regErr != nil {
					t.Fatalf("Registry.Add refuses the tool: %v", regErr)
				}
			})
			if regErr != nil {
				return
			}
			t.Run("schema declares properties", func(t *testing.T) {
				var sch map[string]json.RawMessage
				if err := json.Unmarshal(def.InputSchema, &sch); err != nil {
					t.Fatalf("input schema is not a JSON object: %v", err)
				}
				if _, ok := sch["properties"]; !ok {
					t.Fatal(`input schema has no "properties"; some providers reject it (use "properties": {} for no arguments)`)
				}
			})
			t.Run("schema rejects unknown keys", func(t *testing.T) {
				res := call(`{"tooltest_unknown_key":1}`)
				if res.Status != tool.StatusInvalid {
					t.Fatalf(`a call with an unknown key was not refused (set "additionalProperties": false):%s`, "\n"+ModelView(res))
				}
			})
			t.Run("adversarial arguments are refused", func(t *testing.T) {
				for _, a := range adversarial {
					res := call(a.args)
					var ae *tool.ArgsError
					if res.Status != tool.StatusInvalid || !errors.As(res.Err, &ae) || len(ae.Problems) == 0 {
						t.Errorf("%s: want an Invalid result with problems, got\n%s", a.name, ModelView(res))
					}
					if strings.ContainsRune(res.Text(), 0x1b) {
						t.Errorf("%s: the model text echoes a raw escape character", a.name)
					}
				}
			})
			t.Run("wrappers keep optional interfaces", func(t *testing.T) {
				if lost := droppedInterfaces(tl); lost != "" {
					t.Fatalf("the tool wraps another without Unwrap() any, hiding its %s; implement tool.Wrapper", lost)
				}
			})
			accepts := func(args string) bool { return call(args).Status != tool.StatusInvalid }
			args, ok := s.ValidArgs[def.Name]
			if !ok {
				args = acceptedArgs(accepts, def)
			}
			t.Run("mutated arguments are refused", func(t *testing.T) {
				if !accepts(args) {
					t.Skipf("no valid arguments to mutate: set Suite.ValidArgs[%q]", def.Name)
				}
				muts, err := Mutations(def.InputSchema, args)
				if err != nil {
					t.Fatalf("cannot derive mutations: %v", err)
				}
				for _, m := range muts {
					res := call(m.Args)
					var ae *tool.ArgsError
					if res.Status != tool.StatusInvalid || !errors.As(res.Err, &ae) || len(ae.Problems) == 0 {
						t.Errorf("%s: %s\nwant an Invalid result with problems, got\n%s", m.Name, m.Args, ModelView(res))
					}
				}
			})
			t.Run("call ends soon after cancellation", func(t *testing.T) {
				if s.NoExecute {
					t.Skip("Suite.NoExecute: the tool is not run")
				}
				if !accepts(args) {
					t.Skipf("no valid arguments: set Suite.ValidArgs[%q]", def.Name)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan *tool.Result, 1)
				go func() {
					done <- reg.Call(ctx, state, tool.Request{ID: nextID(), Name: def.Name, Args: json.RawMessage(args)})
				}()
				time.Sleep(10 * time.Millisecond)
				cancel()
				select {
				case <-done:
				case <-time.After(s.CancelWithin):
					t.Fatalf("the call did not end within %v of its context being cancelled; pass ctx to everything that blocks", s.CancelWithin)
				}
			})
			t.Run("no goroutine left after a call", func(t *testing.T) {
				if s.NoExecute {
					t.Skip("Suite.NoExecute: the tool is not run")
				}
				if !accepts(args) {
					t.Skipf("no valid arguments: set Suite.ValidArgs[%q]", def.Name)
				}
				before := goroutines()
				call(args)
				if extra := settle(before, 2*time.Second); len(extra) > 0 {
					t.Fatalf("%d goroutine(s) started by the call are still running:\n%s", len(extra), strings.Join(extra, "\n\n"))
				}
			})
		})
	}
}

// acceptedArgs finds arguments the tool accepts: {} or generated ones.
func acceptedArgs(accepts func(string) bool, def tool.Definition) string {
	if accepts("{}") {
		return "{}"
	}
	for seed := range uint64(20) {
		if a, err := GenerateArgs(def.InputSchema, seed); err == nil && accepts(a) {
			return a
		}
	}
	return "{}"
}

// optionalInterfaces are the interfaces the pipeline discovers on a tool.
var optionalInterfaces = []reflect.Type{
	reflect.TypeFor[tool.ArgsValidator](),
	reflect.TypeFor[tool.Classifier](),
	reflect.TypeFor[tool.Requirer](),
	reflect.TypeFor[tool.Describer](),
	reflect.TypeFor[tool.DefinitionChecker](),
}

// droppedInterfaces finds a struct that holds another tool in a field
// (typically by embedding the tool.AnyTool interface, which promotes only
// Definition and Run) without exposing it through Unwrap, while the inner
// tool has an optional interface the outer one lacks.
func droppedInterfaces(t any) string {
	if _, ok := t.(tool.Wrapper); ok {
		return ""
	}
	v := reflect.ValueOf(t)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		f := v.Field(i)
		if f.Kind() == reflect.Interface && f.IsNil() || !f.CanInterface() {
			continue
		}
		inner := f.Interface()
		if _, isTool := inner.(interface{ Definition() tool.Definition }); !isTool {
			continue
		}
		for _, it := range optionalInterfaces {
			innerHas := hasVia(inner, it)
			outerHas := reflect.TypeOf(t).Implements(it)
			if innerHas && !outerHas {
				return it.String()
			}
		}
	}
	return ""
}

func hasVia(t any, it reflect.Type) bool {
	for i := 0; t != nil && i < 64; i++ {
		if reflect.TypeOf(t).Implements(it) {
			return true
		}
		w, ok := t.(tool.Wrapper)
		if !ok {
			return false
		}
		t = w.Unwrap()
	}
	return false
}

// goroutines returns the stacks of all goroutines, keyed by goroutine id.
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		id, _, _ := strings.Cut(g, " [")
		out[id] = g
	}
	return out
}

// settle waits up to d for goroutines not in before to end (the library's
// own idle workers retire within 50ms) and returns the stacks of those
// still running.
func settle(before map[string]string, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		var extra []string
		for id, stack := range goroutines() {
			if _, old := before[id]; !old && !strings.Contains(stack, "tooltest.goroutines") {
				extra = append(extra, stack)
			}
		}
		if len(extra) == 0 || time.Now().After(deadline) {
			return extra
		}
		time.Sleep(20 * time.Millisecond)
	}
}
