package tooltest

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// GenerateArgs returns arguments built from an input schema that aim to be
// valid: every required key, some optional ones, values inside the declared
// bounds (defaults and examples first). The same seed gives the same
// arguments. Constraints it cannot satisfy by construction (an unusual
// pattern, say) may make the result invalid: check it against the tool,
// as the conformance suite does.
func GenerateArgs(schema json.RawMessage, seed uint64) (string, error) {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return "", err
	}
	g := &generator{rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	b, err := json.Marshal(g.value(s, 0))
	return string(b), err
}

// Mutation is one way to break valid arguments, for testing that a tool
// refuses them.
type Mutation struct {
	Name string // what was broken, with the key's path
	Args string
}

// Mutations derives invalid arguments from valid ones (validArgs must be a
// JSON object the tool accepts) using the schema: each key with a wrong
// type and with null, each required key missing, an unknown key, numbers
// just past their bounds, integers with a fraction, strings past their
// length bounds and outside their enum, arrays past their item bounds. Every
// mutation must come back Invalid.
func Mutations(schema json.RawMessage, validArgs string) ([]Mutation, error) {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	var base map[string]any
	d := json.NewDecoder(strings.NewReader(validArgs))
	d.UseNumber()
	if err := d.Decode(&base); err != nil {
		return nil, err
	}
	var out []Mutation
	add := func(name string, obj map[string]any) {
		b, err := json.Marshal(obj)
		if err == nil {
			out = append(out, Mutation{Name: name, Args: string(b)})
		}
	}
	with := func(key string, v any) map[string]any {
		m := make(map[string]any, len(base)+1)
		for k, x := range base {
			m[k] = x
		}
		m[key] = v
		return m
	}
	out = append(out, Mutation{"unknown key", mustJSON(with("tooltest_unknown_key", 1))})
	props, _ := s["properties"].(map[string]any)
	for _, key := range slices.Sorted(maps.Keys(props)) {
		p, _ := props[key].(map[string]any)
		typ, _ := p["type"].(string) // only single types: a union may accept anything below
		if typ == "" {
			continue
		}
		where := "/" + key
		for _, wrong := range wrongTypes(typ) {
			add(where+": wrong type", with(key, wrong))
		}
		add(where+": null", with(key, nil))
		if n, ok := num(p["minimum"]); ok {
			add(where+": below minimum", with(key, json.Number(strconv.FormatFloat(n-1, 'f', -1, 64))))
		}
		if n, ok := num(p["maximum"]); ok {
			add(where+": above maximum", with(key, json.Number(strconv.FormatFloat(n+1, 'f', -1, 64))))
		}
		if typ == "integer" {
			add(where+": fraction", with(key, json.Number("1.5")))
		}
		if n, ok := num(p["maxLength"]); ok && n < 1<<16 {
			add(where+": too long", with(key, strings.Repeat("x", int(n)+1)))
		}
		if n, ok := num(p["minLength"]); ok && n > 0 {
			add(where+": too short", with(key, strings.Repeat("x", int(n)-1)))
		}
		if _, ok := p["enum"]; ok && typ == "string" {
			add(where+": outside enum", with(key, "tooltest-not-in-enum"))
		}
		if n, ok := num(p["maxItems"]); ok && n < 1<<12 {
			items := make([]any, int(n)+1)
			if it, ok := p["items"].(map[string]any); ok {
				g := &generator{rnd: rand.New(rand.NewPCG(1, 2))}
				for i := range items {
					items[i] = g.value(it, 1)
				}
			}
			add(where+": too many items", with(key, items))
		}
	}
	req, _ := s["required"].([]any)
	for _, r := range req {
		key, _ := r.(string)
		if _, ok := base[key]; !ok {
			continue
		}
		m := with("", nil)
		delete(m, "")
		delete(m, key)
		add("/"+key+": required key missing", m)
	}
	return out, nil
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func wrongTypes(typ string) []any {
	switch typ {
	case "string":
		return []any{json.Number("5"), true}
	case "integer", "number":
		return []any{"5", false}
	case "boolean":
		return []any{"true", json.Number("1")}
	case "array":
		return []any{map[string]any{}, "a"}
	case "object":
		return []any{[]any{}, "{}"}
	}
	return nil
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

type generator struct{ rnd *rand.Rand }

// value generates a value for schema s; depth bounds recursion.
func (g *generator) value(s map[string]any, depth int) any {
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[g.rnd.IntN(len(e))]
	}
	if d, ok := s["default"]; ok && g.rnd.IntN(2) == 0 {
		return d
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[g.rnd.IntN(len(ex))]
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[g.rnd.IntN(len(ts))].(string)
	}
	switch typ {
	case "object":
		return g.object(s, depth)
	case "array":
		lo, hi := 0, 3
		if n, ok := num(s["minItems"]); ok {
			lo = int(n)
		}
		if n, ok := num(s["maxItems"]); ok && int(n) < hi {
			hi = int(n)
		}
		hi = max(hi, lo)
		items, _ := s["items"].(map[string]any)
		out := make([]any, lo+g.rnd.IntN(hi-lo+1))
		for i := range out {
			out[i] = g.value(items, depth+1)
		}
		return out
	case "string":
		return g.str(s)
	case "integer":
		lo, hi := g.bounds(s, -100, 100)
		lo, hi = ceil(lo), floor(hi)
		if lo > hi {
			return json.Number(strconv.FormatFloat(lo, 'f', 0, 64))
		}
		return json.Number(strconv.FormatFloat(lo+float64(g.rnd.IntN(int(min(hi-lo, 1<<30))+1)), 'f', 0, 64))
	case "number":
		lo, hi := g.bounds(s, -100, 100)
		return json.Number(strconv.FormatFloat(lo+(hi-lo)*g.rnd.Float64(), 'f', -1, 64))
	case "boolean":
		return g.rnd.IntN(2) == 0
	case "null":
		return nil
	}
	return "x"
}

func (g *generator) object(s map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if k, ok := r.(string); ok {
				required[k] = true
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		p, _ := props[k].(map[string]any)
		if required[k] || depth < 4 && g.rnd.IntN(2) == 0 {
			out[k] = g.value(p, depth+1)
		}
	}
	return out
}

// bounds returns the inclusive range for a number, from minimum/maximum
// (exclusive ones nudged inward), around the given defaults.
func (g *generator) bounds(s map[string]any, lo, hi float64) (float64, float64) {
	minSet, maxSet := false, false
	if n, ok := num(s["minimum"]); ok {
		lo, minSet = n, true
	}
	if n, ok := num(s["exclusiveMinimum"]); ok {
		lo, minSet = n+1, true
	}
	if n, ok := num(s["maximum"]); ok {
		hi, maxSet = n, true
	}
	if n, ok := num(s["exclusiveMaximum"]); ok {
		hi, maxSet = n-1, true
	}
	switch {
	case minSet && !maxSet:
		hi = lo + 100
	case maxSet && !minSet:
		lo = hi - 100
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func ceil(f float64) float64 {
	if i := float64(int64(f)); i < f {
		return i + 1
	}
	return float64(int64(f))
}

func floor(f float64) float64 {
	if i := float64(int64(f)); i > f {
		return i - 1
	}
	return float64(int64(f))
}

var stringCandidates = []string{"a", "abc", "example", "a/b.go", "0", "x_1", "A-1", "hello world"}

func (g *generator) str(s map[string]any) string {
	lo, hi := 0, 12
	if n, ok := num(s["minLength"]); ok {
		lo = int(n)
	}
	if n, ok := num(s["maxLength"]); ok {
		hi = int(n)
	}
	fits := func(c string) bool {
		n := len([]rune(c))
		return n >= lo && n <= hi
	}
	if p, ok := s["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err == nil {
			for _, c := range stringCandidates {
				if re.MatchString(c) && fits(c) {
					return c
				}
			}
		}
	}
	c := stringCandidates[g.rnd.IntN(len(stringCandidates))]
	if fits(c) {
		return c
	}
	return strings.Repeat("a", max(lo, min(hi, 1)))
}
