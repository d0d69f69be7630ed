package dialect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// source is a Source whose definitions a test changes.
type source struct {
	mu       sync.Mutex
	defs     []tool.Definition
	hooks    map[int]func()
	next     int
	reads    int
	canceled int
}

func newSource(defs ...tool.Definition) *source {
	return &source{defs: defs, hooks: map[int]func(){}}
}

func (s *source) Definitions() []tool.Definition {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	return append([]tool.Definition(nil), s.defs...)
}

func (s *source) OnChange(fn func()) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.next
	s.next++
	s.hooks[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.hooks[id]; ok {
			delete(s.hooks, id)
			s.canceled++
		}
	}
}

func (s *source) set(defs ...tool.Definition) {
	s.mu.Lock()
	s.defs = defs
	hooks := make([]func(), 0, len(s.hooks))
	for _, h := range s.hooks {
		hooks = append(hooks, h)
	}
	s.mu.Unlock()
	for _, h := range hooks {
		h()
	}
}

func def(name, schema string) tool.Definition {
	return tool.Definition{Name: name, Description: "Does " + name + ".", InputSchema: json.RawMessage(schema)}
}

const (
	plain    = `{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"],"additionalProperties":false}`
	freeForm = `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`
)

// An unchanged source is read once; a change converts again only the tool
// that changed.
func TestExporterConvertsOnce(t *testing.T) {
	src := newSource(def("a", plain), def("b", plain))
	x := dialect.NewExporter(src, dialect.OpenAIStrict)
	first := x.Tools()
	require.Len(t, first, 2)
	for range 3 {
		again := x.Tools()
		assert.Equal(t, first, again)
	}
	assert.Equal(t, 1, src.reads, "an unchanged source is not read again")

	src.set(def("a", plain), def("b", freeForm), def("c", plain))
	got := x.Tools()
	require.Len(t, got, 3)
	assert.Equal(t, 2, src.reads)
	assert.Same(t, &first[0].Schema[0], &got[0].Schema[0], "a is not converted again")
	assert.Equal(t, dialect.OpenAI, got[1].Target, "b changed and is converted again")
	assert.Equal(t, dialect.OpenAIStrict, got[2].Target)

	// What Tools returns is the caller's.
	got[0].Name = "changed"
	assert.Equal(t, "a", x.Tools()[0].Name)
}

// Every warning names its tool, and the severities pick out what loses
// meaning.
func TestExporterWarnings(t *testing.T) {
	src := newSource(def("a", plain), def("b", freeForm))
	x := dialect.NewExporter(src, dialect.OpenAIStrict)
	var lines, lossy []string
	for _, w := range x.Warnings() {
		lines = append(lines, w.String())
		if w.Severity >= dialect.Lossy {
			lossy = append(lossy, w.Tool)
		}
	}
	assert.Equal(t, []string{
		`notice: a: openai-strict: /properties/q: minLength moved to the description: "At least 1 character."`,
		"lossy: b: openai-strict: /properties/env: sent as openai: it is a map with keys of its own (additionalProperties is a schema), and strict mode needs every key declared",
	}, lines)
	assert.Equal(t, []string{"b"}, lossy)
}

// The way back: the tool's own name, its own property names, and the
// nulls of a strict tool meaning absent.
func TestExporterRequest(t *testing.T) {
	src := newSource(def("2fa", `{"type":"object","properties":{"user name":{"type":"string"},"opts":{"type":"object","properties":{"a-b":{"type":"string"}}}}}`),
		def("_2fa", plain))
	gemini := dialect.NewExporter(src, dialect.Gemini)
	tools := gemini.Tools()
	require.Len(t, tools, 2)
	assert.Equal(t, "_2fa_2", tools[0].Name, "renamed, clashing with no other tool")
	assert.Equal(t, "2fa", tools[0].Tool)
	req := gemini.Request("c1", "_2fa_2", json.RawMessage(`{"user_name":"ann","opts":{"a-b":"x"}}`))
	assert.Equal(t, "2fa", req.Name)
	assert.JSONEq(t, `{"user name":"ann","opts":{"a-b":"x"}}`, string(req.Args))
	assert.False(t, req.NullMeansAbsent)
	assert.Equal(t, "_2fa", gemini.Request("c2", "_2fa", nil).Name, "a tool whose name was kept")
	assert.Equal(t, "nope", gemini.Request("c3", "nope", nil).Name, "an unknown name stays for the registry to answer")

	anth := dialect.NewExporter(newSource(def("t", `{"type":"object","properties":{"a b":{"type":"array","items":{"$ref":"#/$defs/I"}},"m":{"type":"object","additionalProperties":{"$ref":"#/$defs/I"}}},`+
		`"$defs":{"I":{"type":"object","properties":{"c d":{"type":"string"}}}}}`)), dialect.Anthropic)
	req = anth.Request("c", "t", json.RawMessage(`{"a_b":[{"c_d":"1"},{"c_d":"2","x":1}],"m":{"c_d":{"c_d":"3"}}}`))
	assert.JSONEq(t, `{"a b":[{"c d":"1"},{"c d":"2","x":1}],"m":{"c_d":{"c d":"3"}}}`, string(req.Args),
		"declared keys are renamed back, through items and references; a map's own keys are not")
	assert.Equal(t, `{`, string(anth.Request("c", "t", json.RawMessage(`{`)).Args), "arguments that are not JSON are handed on")

	strict := dialect.NewExporter(newSource(def("s", plain), def("f", freeForm)), dialect.OpenAIStrict)
	assert.True(t, strict.Request("1", "s", nil).NullMeansAbsent, "sent strict")
	assert.False(t, strict.Request("2", "f", nil).NullMeansAbsent, "sent non-strict")
}

// A tool no form of the target can express is left out, and said so.
func TestExporterLeavesOut(t *testing.T) {
	x := dialect.NewExporter(newSource(def("ok", plain), def("expr", `{"type":"object","properties":{"e":{"$ref":"#/$defs/E"}},`+
		`"$defs":{"E":{"anyOf":[{"type":"number"},{"type":"array","items":{"$ref":"#/$defs/E"}}]}}}`)), dialect.Gemini)
	tools := x.Tools()
	require.Len(t, tools, 1)
	assert.Equal(t, "ok", tools[0].Name)
	var severe []string
	for _, w := range x.Warnings() {
		if w.Severity == dialect.Severe {
			severe = append(severe, w.String())
		}
	}
	require.Len(t, severe, 1)
	assert.Contains(t, severe[0], "severe: expr: gemini: (root): left out: dialect: the target cannot express the schema")
}

// OpenAI takes 128 functions per request and Gemini 512, and refuse a
// request with more: the tools past the limit are left out, each with a
// Severe warning, and a tool left out for its schema takes no place.
func TestExporterToolCountLimits(t *testing.T) {
	tests := []struct {
		target       dialect.Target
		tools, sent  int
		unexpressed  bool // a tool Gemini cannot express comes first
		firstLeftOut string
	}{
		{dialect.OpenAI, 128, 128, false, ""},
		{dialect.OpenAI, 129, 128, false, "t128"},
		{dialect.OpenAIStrict, 200, 128, false, "t128"},
		{dialect.Anthropic, 200, 200, false, ""},
		{dialect.AnthropicStrict, 200, 200, false, ""},
		{dialect.Gemini, 512, 512, false, ""},
		{dialect.Gemini, 513, 512, false, "t512"},
		{dialect.Gemini, 513, 512, true, "t512"},
		{dialect.GeminiJSON, 600, 512, false, "t512"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%d", tt.target, tt.tools), func(t *testing.T) {
			var defs []tool.Definition
			if tt.unexpressed {
				defs = append(defs, def("expr", `{"type":"object","properties":{"e":{"$ref":"#/$defs/E"}},`+
					`"$defs":{"E":{"anyOf":[{"type":"number"},{"type":"array","items":{"$ref":"#/$defs/E"}}]}}}`))
			}
			for i := range tt.tools {
				defs = append(defs, def(fmt.Sprintf("t%d", i), plain))
			}
			x := dialect.NewExporter(newSource(defs...), tt.target)
			assert.Len(t, x.Tools(), tt.sent)
			var leftOut []string
			for _, w := range x.Warnings() {
				if w.Severity == dialect.Severe && w.Tool != "expr" {
					assert.Equal(t, dialect.LeftOut, w.Action)
					assert.Contains(t, w.Note, "at most")
					leftOut = append(leftOut, w.Tool)
				}
			}
			assert.Len(t, leftOut, tt.tools-tt.sent)
			if tt.firstLeftOut != "" {
				require.NotEmpty(t, leftOut)
				assert.Equal(t, tt.firstLeftOut, leftOut[0])
			}
		})
	}
}

// Anthropic limits strict tools per request: past the limits, the tools
// that come later go non-strict, each saying why.
func TestExporterAnthropicStrictLimits(t *testing.T) {
	var defs []tool.Definition
	for i := range 22 {
		defs = append(defs, def(fmt.Sprintf("t%02d", i), plain))
	}
	x := dialect.NewExporter(newSource(defs...), dialect.AnthropicStrict)
	tools := x.Tools()
	require.Len(t, tools, 22)
	for i, e := range tools {
		want := dialect.AnthropicStrict
		if i >= 20 {
			want = dialect.Anthropic
		}
		assert.Equal(t, want, e.Target, e.Name)
	}
	assert.Contains(t, tools[20].Warnings[0].String(), "lossy: t20: anthropic-strict: (root): sent as anthropic: Anthropic allows 20 strict tools per request")

	optional := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"}}}`
	defs = defs[:0]
	for i := range 6 {
		defs = append(defs, def(fmt.Sprintf("o%d", i), optional))
	}
	tools = dialect.NewExporter(newSource(defs...), dialect.AnthropicStrict).Tools()
	for i, e := range tools {
		if i < 4 {
			assert.True(t, e.Target.Strict(), e.Name)
		} else {
			assert.False(t, e.Target.Strict(), e.Name)
			assert.Contains(t, e.Warnings[0].Note, "24 optional parameters")
		}
	}
}

// The exporter needs no closing: once it is garbage, its hook leaves the
// source.
func TestExporterUnhooksWhenUnused(t *testing.T) {
	src := newSource(def("a", plain))
	func() {
		x := dialect.NewExporter(src, dialect.OpenAI)
		require.Len(t, x.Tools(), 1)
	}()
	for i := 0; i < 50 && src.canceledCount() == 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	assert.Equal(t, 1, src.canceledCount())
}

func (s *source) canceledCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.canceled
}

// A registry is a Source: the exporter follows what is added to it.
func TestExporterFollowsARegistry(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "one", Description: "One."}, func(context.Context, struct{}) (string, error) { return "", nil }))
	x := dialect.NewExporter(reg, dialect.Gemini)
	require.Len(t, x.Tools(), 1)
	assert.Nil(t, x.Tools()[0].Schema, "no parameters: none sent")
	reg.MustAdd(tool.New(tool.Definition{Name: "two", Description: "Two."}, func(context.Context, struct{ N int }) (string, error) { return "", nil }))
	assert.Len(t, x.Tools(), 2)
}

// Gemini carries numbers as float64: an integer past 2^53 may have changed
// on the way, and the call must not run as if it had not.
func TestCheckPrecision(t *testing.T) {
	x := dialect.NewExporter(newSource(def("t", `{"type":"object","properties":{"id":{"type":"integer"},"x":{"type":"number"},`+
		`"ids":{"type":"array","items":{"type":"integer"}},"any":{}}}`)), dialect.Gemini)
	tests := []struct {
		args string
		bad  string
	}{
		{`{"id":9007199254740991}`, ""},
		{`{"id":9007199254740992}`, "/id"},
		{`{"id":-9007199254740993}`, "/id"},
		{`{"ids":[1,1e300]}`, "/ids/1"},
		{`{"x":9007199254740993}`, ""},
		{`{"any":9007199254740993}`, ""},
		{`{"id":1.5}`, ""},
	}
	for _, tt := range tests {
		err := x.CheckPrecision(tool.Request{Name: "t", Args: json.RawMessage(tt.args)})
		if tt.bad == "" {
			assert.NoError(t, err, tt.args)
			continue
		}
		require.Error(t, err, tt.args)
		assert.True(t, strings.Contains(err.Error(), " at "+tt.bad+" "), err.Error())
	}
	assert.NoError(t, x.CheckPrecision(tool.Request{Name: "unknown", Args: json.RawMessage(`{"id":1e300}`)}))
}

// A turn when nothing changed costs one copy of the exported slice: the
// benchmark in bench/ compares its time with that copy's.
func TestExporterUnchangedCostsOneCopy(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	x := dialect.NewExporter(newSource(def("a", plain), def("b", freeForm)), dialect.OpenAIStrict)
	x.Tools()
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { x.Tools() }))
}

var precisionSink error

// BenchmarkCheckPrecision checks a Gemini call's arguments: the common call
// (no number near 2^53) against one that holds such a number, which takes
// the full check, as every call did before (the schema and the arguments
// parsed each time), in the same run.
func BenchmarkCheckPrecision(b *testing.B) {
	x := dialect.NewExporter(newSource(def("search", `{"type":"object","properties":{"query":{"type":"string"},"path":{"type":"string"},`+
		`"lang":{"type":"string","enum":["go","rust"]},"limit":{"type":"integer"},"offset":{"type":"integer"},"case_sensitive":{"type":"boolean"}}}`)), dialect.Gemini)
	for _, tc := range []struct{ name, args string }{
		{"common", `{"case_sensitive":true,"lang":"go","limit":50,"offset":0,"path":"internal/registry","query":"func NewRegistry"}`},
		{"large number (full check)", `{"case_sensitive":true,"lang":"go","limit":9007199254740993,"offset":0,"path":"internal/registry","query":"func NewRegistry"}`},
	} {
		req := tool.Request{Name: "search", Args: json.RawMessage(tc.args)}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				precisionSink = x.CheckPrecision(req)
			}
		})
	}
}
