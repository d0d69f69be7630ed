package dialect_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	"github.com/toolbelt-go/tool/tooltest"
)

// The round trip, for random schemas of every shape the issue names
// (unions whose branches disagree on a key, defaults in items and
// definitions, roots a provider refuses, names a provider refuses,
// integer keywords written 2.0, tuples closed with items false, $ref with
// siblings, recursion through required nullable keys), through every
// target:
//
//   - the exporter either sends a schema that passes the target's checker
//     or leaves the tool out with a Severe warning;
//   - for values the tool's own schema accepts, the call a model makes to
//     mean that value under what it was sent (the strict form's nulls,
//     the renamed keys) reaches the tool as that value;
//   - a mutated call the tool's schema refuses is refused.
//
// The validator is santhosh-tekuri/jsonschema, used directly: independent
// of the registry's fast path and of the converter's own checker.
func TestRoundTrip(t *testing.T) {
	schemas := 150
	if testing.Short() || raceEnabled {
		schemas = 30
	}
	st := roundTripStats{mutate: true}
	for seed := range uint64(schemas) {
		roundTrip(t, seed, &st)
	}
	t.Logf("%d schemas × %d targets = %d checks: %d sent, %d left out with a warning; %d calls meant valid reached the tool as meant, %d calls breaking a constraint said in words refused, %d mutated calls refused, %d integers refused for precision",
		st.schemas, len(targets), st.schemas*len(targets), st.sent, st.leftOut, st.valid, st.invalid, st.mutated, st.precision)
	require.Greater(t, st.valid, schemas*len(targets), "too few valid calls were compared")
}

// FuzzRoundTrip explores more seeds of the same.
func FuzzRoundTrip(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		roundTrip(t, seed, &roundTripStats{}) // without mutations, which TestRoundTrip covers
	})
}

type roundTripStats struct {
	mutate                                                     bool // also send mutated calls
	schemas, sent, leftOut, valid, invalid, mutated, precision int
}

func roundTrip(t *testing.T, seed uint64, st *roundTripStats) {
	g := &schemaGen{rnd: rand.New(rand.NewPCG(seed, seed*31+7))}
	roundTripSchema(t, g.toolName(), g.root(), seed, st)
}

// Every tool of the examples and of the library, through the same round
// trip.
func TestRoundTripExamplesAndLibrary(t *testing.T) {
	st := roundTripStats{mutate: true}
	sources := exampleDefinitions(t)
	sources["library"] = libraryDefinitions(t)
	for _, defs := range sources {
		for i, d := range defs {
			roundTripSchema(t, d.Name, d.InputSchema, uint64(i), &st)
		}
	}
	t.Logf("%d tools × %d targets = %d checks: %d sent, %d left out with a warning; %d calls reached the tool as meant, %d mutated calls refused",
		st.schemas, len(targets), st.schemas*len(targets), st.sent, st.leftOut, st.valid, st.mutated)
	require.Equal(t, st.schemas*len(targets), st.sent, "every tool of the examples and the library is sent to every target")
	require.Greater(t, st.valid, st.schemas*len(targets))
}

// roundTripSchema checks one tool's schema through every target.
func roundTripSchema(t *testing.T, name string, raw json.RawMessage, seed uint64, st *roundTripStats) {
	var received json.RawMessage
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{AllowCostlySchemas: true})
	err := reg.Add(tool.NewRaw(tool.Definition{Name: name, Description: "A tool.", InputSchema: raw},
		func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			received = args
			return tool.TextResult("ok"), nil
		}))
	if err != nil {
		return // a schema the registry refuses (no value satisfies it): nothing to export
	}
	st.schemas++
	original := compile(t, raw)
	var values []any
	for i := range 12 {
		v := (&valueGen{rnd: rand.New(rand.NewPCG(seed, uint64(i))), root: decodeMap(t, raw)}).value(decodeMap(t, raw), 0)
		if original.Validate(v) == nil {
			values = append(values, v)
		}
	}
	for _, target := range targets {
		x := dialect.NewExporter(reg, target)
		tools := x.Tools()
		if len(tools) == 0 {
			st.leftOut++
			if !slices.ContainsFunc(x.Warnings(), func(w dialect.Warning) bool { return w.Severity == dialect.Severe }) {
				t.Fatalf("seed %d, %v: the tool was left out without a Severe warning: %v\n%s", seed, target, x.Warnings(), raw)
			}
			continue
		}
		st.sent++
		e := tools[0]
		if e.Schema != nil {
			if v := dialect.Check(e.Schema, e.Target); len(v) > 0 {
				t.Fatalf("seed %d, %v (as %v): %v\nin:  %s\nout: %s", seed, target, e.Target, v, raw, e.Schema)
			}
		}
		c, err := dialect.Convert(raw, e.Target)
		require.NoError(t, err)
		sent := sentValidator(t, e)
		for _, v := range values {
			args, ok := asSent(v, e, c.Renamed)
			if !ok || sent.Validate(args) != nil {
				continue // not a call the model can make under what it was sent
			}
			b, _ := json.Marshal(args)
			if e.Target == dialect.Gemini || e.Target == dialect.GeminiJSON {
				b = throughFloats(b) // Gemini's API carries numbers as float64
			}
			req := x.Request("call", e.Name, b)
			require.Equal(t, name, req.Name)
			if (e.Target == dialect.Gemini || e.Target == dialect.GeminiJSON) && x.CheckPrecision(req) != nil {
				st.precision++
				continue
			}
			received = nil
			res := reg.Call(context.Background(), struct{}{}, req)
			if res.Status != tool.StatusOK {
				t.Fatalf("seed %d, %v (as %v): a call meant as a value the tool accepts was refused:\nmeant: %s\nsent:  %s\n%s\nin:  %s\nout: %s",
					seed, target, e.Target, mustJSON(v), b, res.Text(), raw, e.Schema)
			}
			got := decodeAny(t, received)
			if err := original.Validate(got); err != nil {
				t.Fatalf("seed %d, %v: the tool got a value its schema refuses: %s: %v", seed, target, received, err)
			}
			if !within(v, got) {
				t.Fatalf("seed %d, %v (as %v): the tool got another value than meant:\nmeant: %s\ngot:   %s\nsent:  %s\nin:  %s\nout: %s",
					seed, target, e.Target, mustJSON(v), received, b, raw, e.Schema)
			}
			st.valid++
			if !st.mutate {
				continue
			}
			// What the tool's schema refuses is refused, whatever the
			// target: mutations of the value as meant, renamed for the
			// provider (the strict nulls aside, which mean absent).
			muts, err := tooltest.Mutations(raw, mustJSON(v))
			require.NoError(t, err)
			for _, m := range muts {
				mv := decodeAny(t, []byte(m.Args))
				if original.Validate(mv) == nil || e.Target == dialect.OpenAIStrict && (strings.Contains(m.Name, "null") || strings.Contains(m.Name, "missing")) {
					continue
				}
				margs, ok := asSent(mv, e, c.Renamed)
				if !ok {
					continue
				}
				mb, _ := json.Marshal(margs)
				res := reg.Call(context.Background(), struct{}{}, x.Request("m", e.Name, mb))
				if res.Status != tool.StatusInvalid {
					t.Fatalf("seed %d, %v: a mutated call (%s) was not refused: %s → %s", seed, target, m.Name, mb, res.Status)
				}
				st.mutated++
			}
		}
		// Values a model may send under the sent schema that the tool's own
		// schema refuses (a constraint said only in words) are refused.
		for i := range 4 {
			vg := &valueGen{rnd: rand.New(rand.NewPCG(seed, 1000+uint64(i))), root: decodeMap(t, e.Schema), gemini: e.Target == dialect.Gemini}
			if e.Schema == nil {
				break
			}
			args := vg.value(decodeMap(t, e.Schema), 0)
			if sent.Validate(args) != nil {
				continue
			}
			b, _ := json.Marshal(args)
			received = nil
			res := reg.Call(context.Background(), struct{}{}, x.Request("s", e.Name, b))
			if res.Status != tool.StatusOK {
				st.invalid++ // a constraint said in words, broken
				continue
			}
			if err := original.Validate(decodeAny(t, received)); err != nil {
				t.Fatalf("seed %d, %v: the tool ran with a value its schema refuses: %s: %v", seed, target, received, err)
			}
		}
	}
}

// asSent is the call a model makes under the exported tool e to mean the
// value v: property names as sent, and under OpenAI's strict form every
// declared key present, null for those v leaves out.
func asSent(v any, e dialect.Exported, renamed map[string]string) (any, bool) {
	inv := map[string]string{}
	for sent, orig := range renamed {
		inv[orig] = sent
	}
	var out any
	if e.Target == dialect.Gemini || e.Target == dialect.GeminiJSON {
		// Gemini's rule is for parameter names: the root's keys only.
		out = deepCopyJSON(v)
		if m, ok := out.(map[string]any); ok {
			renamedRoot := make(map[string]any, len(m))
			for k, e := range m {
				if s, ok := inv[k]; ok {
					k = s
				}
				renamedRoot[k] = e
			}
			out = renamedRoot
		}
	} else {
		out = renameAll(deepCopyJSON(v), inv)
	}
	if e.Target == dialect.OpenAIStrict {
		var strict map[string]any
		if json.Unmarshal(e.Schema, &strict) != nil {
			return nil, false
		}
		fillNulls(strict, strict, out)
	}
	return out, true
}

func renameAll(v any, inv map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := inv[k]; ok {
				k = s
			}
			out[k] = renameAll(e, inv)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = renameAll(e, inv)
		}
	}
	return v
}

// within reports whether got is want with, at most, keys added to its
// objects (the defaults the registry filled in).
func within(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, e := range w {
			if ge, ok := g[k]; !ok || !within(e, ge) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !within(w[i], g[i]) {
				return false
			}
		}
		return true
	case json.Number:
		gn, ok := got.(json.Number)
		if !ok {
			return false
		}
		a, _ := strconv.ParseFloat(string(w), 64)
		b, _ := strconv.ParseFloat(string(gn), 64)
		return a == b
	}
	return reflect.DeepEqual(want, got)
}

// sentValidator compiles what the model was sent, as JSON Schema (the
// Schema object of Gemini translated: its type names, nullable).
func sentValidator(t *testing.T, e dialect.Exported) *jsonschema.Schema {
	schema := e.Schema
	if schema == nil {
		schema = json.RawMessage(`{"type":"object","additionalProperties":false}`)
	}
	if e.Target == dialect.Gemini {
		var m any
		require.NoError(t, json.Unmarshal(schema, &m))
		schema, _ = json.Marshal(fromSchemaObject(m))
	}
	return compile(t, schema)
}

// fromSchemaObject turns Gemini's Schema object into the JSON Schema it
// stands for.
func fromSchemaObject(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			switch k {
			case "type":
				out["type"] = strings.ToLower(e.(string))
			case "nullable", "propertyOrdering", "format", "example":
			case "properties":
				props := map[string]any{}
				for name, p := range e.(map[string]any) {
					props[name] = fromSchemaObject(p)
				}
				out[k] = props
			case "items":
				out[k] = fromSchemaObject(e)
			case "anyOf":
				var list []any
				for _, b := range e.([]any) {
					list = append(list, fromSchemaObject(b))
				}
				out[k] = list
			default:
				out[k] = e
			}
		}
		if n, _ := x["nullable"].(bool); n {
			if t, ok := out["type"].(string); ok {
				out["type"] = []any{t, "null"}
			}
			if a, ok := out["anyOf"].([]any); ok {
				out["anyOf"] = append(a, map[string]any{"type": "null"})
			}
			if e, ok := out["enum"].([]any); ok {
				out["enum"] = append(e, nil)
			}
		}
		return out
	}
	return v
}

func compile(t *testing.T, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(schema)))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource("mem:///s.json", doc))
	s, err := c.Compile("mem:///s.json")
	require.NoError(t, err, "%s", schema)
	return s
}

func decodeAny(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	require.NoError(t, err, "%s", b)
	return v
}

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	if b == nil {
		return map[string]any{}
	}
	m, _ := decodeAny(t, b).(map[string]any)
	return m
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func deepCopyJSON(v any) any {
	var out any
	d := json.NewDecoder(strings.NewReader(mustJSON(v)))
	d.UseNumber()
	_ = d.Decode(&out)
	return out
}

// throughFloats is what the arguments look like after Gemini's API and the
// Go SDK: numbers as float64, encoded again.
func throughFloats(b []byte) []byte {
	var v any
	_ = json.Unmarshal(b, &v)
	out, _ := json.Marshal(v)
	return out
}

// schemaGen makes random tool schemas of the shapes the providers trip on.
type schemaGen struct {
	rnd  *rand.Rand
	defs map[string]any
}

var oddNames = []string{"user name", "filter[id]", "$ref", "día", "2fa", "a-b", "a.b", "x", "items", "type"}

func (g *schemaGen) toolName() string {
	if g.rnd.IntN(6) == 0 {
		return "2" + strconv.Itoa(g.rnd.IntN(100)) // a name Gemini refuses
	}
	return "t" + strconv.Itoa(g.rnd.IntN(1000))
}

func (g *schemaGen) name(i int) string {
	if g.rnd.IntN(3) == 0 {
		return oddNames[g.rnd.IntN(len(oddNames))]
	}
	return "p" + strconv.Itoa(i)
}

func (g *schemaGen) root() json.RawMessage {
	g.defs = map[string]any{}
	s := g.object(0)
	switch g.rnd.IntN(8) {
	case 0: // a root anyOf of required groups
		props := s["properties"].(map[string]any)
		var names []string
		for k := range props {
			names = append(names, k)
		}
		slices.Sort(names)
		if len(names) >= 2 {
			delete(s, "required")
			s["anyOf"] = []any{map[string]any{"required": []any{names[0]}}, map[string]any{"required": []any{names[1]}}}
		}
	case 1: // a root allOf that merges
		s["allOf"] = []any{map[string]any{"properties": map[string]any{"extra": map[string]any{"type": "string"}}}}
		if s["additionalProperties"] == false {
			delete(s, "additionalProperties")
		}
	case 2: // a root not
		s["not"] = map[string]any{"required": []any{"forbidden"}}
	}
	if len(g.defs) > 0 {
		s["$defs"] = g.defs
	}
	b, _ := json.Marshal(s)
	return b
}

func (g *schemaGen) object(depth int) map[string]any {
	props := map[string]any{}
	var required []any
	n := 1 + g.rnd.IntN(4)
	for i := range n {
		name := g.name(i)
		if _, dup := props[name]; dup {
			continue
		}
		props[name] = g.value(depth + 1)
		if g.rnd.IntN(2) == 0 {
			required = append(required, name)
		} else if g.rnd.IntN(3) == 0 {
			if d, ok := g.defaultFor(props[name].(map[string]any)); ok {
				props[name].(map[string]any)["default"] = d
			}
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	switch g.rnd.IntN(4) {
	case 0, 1:
		s["additionalProperties"] = false
	case 2:
		if depth > 0 {
			s["additionalProperties"] = map[string]any{"type": "string"}
		}
	}
	return s
}

// defaultFor makes a default the subschema accepts, for the simple ones.
func (g *schemaGen) defaultFor(s map[string]any) (any, bool) {
	switch s["type"] {
	case "string":
		if e, ok := s["enum"].([]any); ok {
			return e[0], true
		}
		if _, ok := s["pattern"]; ok {
			return nil, false
		}
		return "dflt", true
	case "integer":
		return 7, true
	case "boolean":
		return true, true
	}
	return nil, false
}

func (g *schemaGen) value(depth int) map[string]any {
	if depth > 3 {
		return g.leaf()
	}
	switch g.rnd.IntN(12) {
	case 0:
		return g.object(depth)
	case 1: // an array of objects whose items have defaults
		item := g.object(depth + 1)
		for k, p := range item["properties"].(map[string]any) {
			if d, ok := g.defaultFor(p.(map[string]any)); ok && !slices.Contains(asList(item["required"]), k) {
				p.(map[string]any)["default"] = d
			}
		}
		return map[string]any{"type": "array", "items": item, "minItems": json.Number("1.0")}
	case 2: // a tuple closed by items false
		return map[string]any{"type": "array", "prefixItems": []any{g.leaf(), g.leaf()}, "items": false, "minItems": 2}
	case 3: // a union whose branches disagree on a key
		a := map[string]any{"type": "object", "properties": map[string]any{"r": map[string]any{"type": "number"}}, "required": []any{"r"}, "additionalProperties": false}
		b := map[string]any{"type": "object", "properties": map[string]any{"r": map[string]any{"type": "number"}, "w": map[string]any{"type": "number"}}, "required": []any{"w"}, "additionalProperties": false}
		return map[string]any{"anyOf": []any{a, b}}
	case 4: // a reference to a definition, with a description beside it
		name := "D" + strconv.Itoa(len(g.defs))
		d := g.object(depth + 1)
		for k, p := range d["properties"].(map[string]any) {
			if dv, ok := g.defaultFor(p.(map[string]any)); ok && !slices.Contains(asList(d["required"]), k) {
				p.(map[string]any)["default"] = dv
			}
		}
		g.defs[name] = d
		r := map[string]any{"$ref": "#/$defs/" + name}
		if g.rnd.IntN(2) == 0 {
			r["description"] = "A " + name + "."
		}
		return r
	case 5: // recursion through a key, required and nullable or optional
		name := "N" + strconv.Itoa(len(g.defs))
		next := map[string]any{"anyOf": []any{map[string]any{"$ref": "#/$defs/" + name}, map[string]any{"type": "null"}}}
		req := []any{"v"}
		if g.rnd.IntN(2) == 0 {
			req = append(req, "next")
		}
		g.defs[name] = map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}, "next": next}, "required": req}
		return map[string]any{"$ref": "#/$defs/" + name}
	case 6: // a map
		return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}}
	case 7:
		return map[string]any{"type": "array", "items": g.leaf(), "maxItems": 3}
	case 8:
		if g.rnd.IntN(4) == 0 { // recursion through no property: Gemini has no form for it
			name := "E" + strconv.Itoa(len(g.defs))
			g.defs[name] = map[string]any{"anyOf": []any{map[string]any{"type": "number"}, map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/" + name}}}}
			return map[string]any{"$ref": "#/$defs/" + name}
		}
	}
	return g.leaf()
}

func asList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func (g *schemaGen) leaf() map[string]any {
	switch g.rnd.IntN(9) {
	case 0:
		return map[string]any{"type": "string", "minLength": 1, "maxLength": json.Number("8.0")}
	case 1:
		return map[string]any{"type": "string", "enum": []any{"a", "b"}}
	case 2:
		return map[string]any{"type": "string", "pattern": "^[a-z]+$", "format": "email"}
	case 3:
		return map[string]any{"type": "integer", "exclusiveMinimum": 0, "maximum": json.Number("1e3")}
	case 4:
		return map[string]any{"type": "integer"} // big integers come here
	case 5:
		return map[string]any{"type": "number", "multipleOf": 0.5}
	case 6:
		return map[string]any{"type": "boolean"}
	case 7:
		return map[string]any{"type": []any{"string", "null"}}
	}
	return map[string]any{"const": "fixed"}
}

// valueGen makes values for a schema, aiming to be valid.
type valueGen struct {
	rnd    *rand.Rand
	root   map[string]any
	gemini bool // the schema is Gemini's Schema object
}

func (g *valueGen) value(s map[string]any, depth int) any {
	if depth > 6 {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		defs, _ := g.root["$defs"].(map[string]any)
		d, _ := defs[name].(map[string]any)
		if d == nil {
			return nil
		}
		return g.value(d, depth+1)
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[g.rnd.IntN(len(e))]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if a, ok := s[k].([]any); ok && len(a) > 0 {
			b, _ := a[g.rnd.IntN(len(a))].(map[string]any)
			return g.value(b, depth+1)
		}
	}
	typ := s["type"]
	if l, ok := typ.([]any); ok {
		typ = l[g.rnd.IntN(len(l))]
	}
	if n, _ := s["nullable"].(bool); n && g.rnd.IntN(3) == 0 {
		return nil
	}
	ts, _ := typ.(string)
	switch strings.ToLower(ts) {
	case "null":
		return nil
	case "boolean":
		return g.rnd.IntN(2) == 0
	case "string":
		if p, ok := s["pattern"].(string); ok && p == "^[a-z]+$" {
			return "abc"
		}
		return []string{"a", "hello", "x y"}[g.rnd.IntN(3)]
	case "integer":
		if g.rnd.IntN(10) == 0 {
			return json.Number("9007199254740993")
		}
		return json.Number(strconv.Itoa(1 + g.rnd.IntN(20)))
	case "number":
		return json.Number([]string{"0.5", "2", "3.5"}[g.rnd.IntN(3)])
	case "array":
		if p, ok := s["prefixItems"].([]any); ok {
			var out []any
			for _, it := range p {
				m, _ := it.(map[string]any)
				out = append(out, g.value(m, depth+1))
			}
			return out
		}
		it, _ := s["items"].(map[string]any)
		n := 1 + g.rnd.IntN(3)
		out := make([]any, 0, n)
		for range n {
			out = append(out, g.value(it, depth+1))
		}
		return out
	case "object", "":
		return g.object(s, depth)
	}
	return nil
}

func (g *valueGen) object(s map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required := asList(s["required"])
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if slices.Contains(required, k) || g.rnd.IntN(2) == 0 {
			p, _ := props[k].(map[string]any)
			out[k] = g.value(p, depth+1)
		}
	}
	if a, ok := s["anyOf"].([]any); ok && len(props) > 0 {
		b, _ := a[g.rnd.IntN(len(a))].(map[string]any)
		for _, k := range asList(b["required"]) {
			if p, ok := props[k].(map[string]any); ok {
				out[k] = g.value(p, depth+1)
			}
		}
	}
	if addl, ok := s["additionalProperties"].(map[string]any); ok && g.rnd.IntN(2) == 0 {
		out["m0"] = g.value(addl, depth+1)
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, b := range all {
			bm, _ := b.(map[string]any)
			for k, v := range g.object(bm, depth) {
				out[k] = v
			}
		}
	}
	return out
}
