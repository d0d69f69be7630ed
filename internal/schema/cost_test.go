package schema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// nested returns a schema whose every level is an anyOf of two branches
// leading into the same item, and a value nested that deep.
func nested(levels int) (schema, value string) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"a":{"$ref":"#/$defs/l0"}},"$defs":{`)
	for i := range levels {
		next := `{"$ref":"#/$defs/l` + strconv.Itoa(i+1) + `"}`
		if i == levels-1 {
			next = `{"type":"integer"}`
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"l` + strconv.Itoa(i) + `":{"anyOf":[{"type":"array","items":` + next + `},{"type":"array","items":` + next + `}]}`)
	}
	b.WriteString(`}}`)
	return b.String(), `{"a":` + strings.Repeat("[", levels) + `1` + strings.Repeat("]", levels) + `}`
}

func mustCompile(t testing.TB, s string) *Schema {
	t.Helper()
	c, err := Compile(json.RawMessage(s), jsonparse.Limits{})
	if err != nil {
		t.Fatalf("Compile(%s): %v", s, err)
	}
	return c
}

func decoded(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

var unlimited = Work{Checks: 1 << 40, PatternSteps: 1 << 40}

func TestWorkCountsTheAuthoritysChecks(t *testing.T) {
	deep, deepValue := nested(10)
	tests := []struct {
		name, schema, value string
		want                Work
	}{
		{"one check per value of a tree", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`,
			`{"a":"x","b":1}`, Work{Checks: 3}},
		{"a $ref is one more check", `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`,
			`{"a":"x"}`, Work{Checks: 3}},
		{"every anyOf branch counts", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]}}}`,
			`{"a":1}`, Work{Checks: 5}},
		{"additionalProperties applies to the undeclared keys", `{"type":"object","properties":{"a":{}},"additionalProperties":{"type":"integer"}}`,
			`{"a":1,"b":2,"c":3}`, Work{Checks: 4}},
		{"items apply to each item", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`,
			`{"a":[1,2,3,4]}`, Work{Checks: 6}},
		{"prefixItems, then items", `{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}}}`,
			`{"a":["x",2,3]}`, Work{Checks: 5}},
		{"contains applies to every item", `{"type":"object","properties":{"a":{"type":"array","contains":{"type":"integer"}}}}`,
			`{"a":[1,"x"]}`, Work{Checks: 4}},
		{"uniqueItems hashes every item", `{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`,
			`{"a":[1,2,3]}`, Work{Checks: 5}},
		{"propertyNames checks each key", `{"type":"object","propertyNames":{"maxLength":3}}`,
			`{"ab":1,"cd":2}`, Work{Checks: 3}},
		{"a pattern costs its program times the string", `{"type":"object","properties":{"a":{"type":"string","pattern":"^ab$"}}}`,
			`{"a":"abcd"}`, Work{Checks: 2, PatternSteps: 4 * patternInsts("^ab$")}},
		// A required list checks (and, when keys are missing, lists)
		// every name for each object: 640 names are 10 checks more.
		{"long required lists weigh on objects", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","required":[` + names(640) + `]}}}}`,
			`{"a":[{},{},{}]}`, Work{Checks: 2 + 3*11}},
		{"long required lists do not weigh on other values", `{"type":"object","properties":{"a":{"type":"array","items":{"required":[` + names(640) + `]}}}}`,
			`{"a":[1,2,3]}`, Work{Checks: 5}},
		{"long enums weigh on every value", `{"type":"object","properties":{"a":{"type":"array","items":{"enum":[` + names(128) + `]}}}}`,
			`{"a":[1,2]}`, Work{Checks: 2 + 2*3}},
		{"short lists are one check", `{"type":"object","required":["a"],"properties":{"a":{"enum":[1,2,3]}}}`,
			`{"a":1}`, Work{Checks: 2}},
		// The root; at "a" its $ref, the anyOf and both branches; at each
		// level k below, both branches' items, the anyOf and both branches
		// again, each reached by 2^(k-1) paths; and both integer schemas.
		{"nested alternatives multiply", deep, deepValue, Work{Checks: 1 + 4 + (1<<12 - 8) + 1<<10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			if got := s.Work(decoded(t, tt.value), unlimited); got != tt.want {
				t.Errorf("Work = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWorkStopsPastTheBudget(t *testing.T) {
	schema, value := nested(40) // 2^40 checks if counted to the end
	s := mustCompile(t, schema)
	budget := Work{Checks: 1000, PatternSteps: 1000}
	got := s.Work(decoded(t, value), budget)
	if got.Within(budget) {
		t.Fatalf("Work = %+v, within %+v", got, budget)
	}
	if got.Checks > 4*budget.Checks {
		t.Errorf("Work counted %d checks past a budget of %d: it should stop soon after", got.Checks, budget.Checks)
	}
}

func TestCostPredictsChecksPerValue(t *testing.T) {
	shared, _ := nested(30)
	tests := []struct {
		name, schema string
		depth        int
		min, max     int
	}{
		{"a tree", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`, 64, 1, 1},
		{"refs add one each", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"type":"string"}}}`, 64, 3, 3},
		{"alternatives into the same member multiply", shared, 64, 1 << 30, 1 << 40},
		{"only as deep as the arguments may nest", shared, 8, 1 << 8, 1 << 9},
		{"alternatives that differ by key stay flat", `{"type":"object","properties":{"e":{"$ref":"#/$defs/e"}},"$defs":{"e":{"anyOf":[
			{"type":"object","properties":{"and":{"type":"array","items":{"$ref":"#/$defs/e"}}}},
			{"type":"object","properties":{"or":{"type":"array","items":{"$ref":"#/$defs/e"}}}},
			{"type":"string"}]}}}`, 64, 4, 8},
		{"the metaschema, through its $dynamicRef", `{"type":"object","properties":{"s":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`, 64, 8, 32},
		{"a $dynamicRef of the tool's own counts every anchor it could mean", `{"type":"object","$defs":{
			"a":{"$dynamicAnchor":"n","type":"object","properties":{"x":{"$dynamicRef":"#n"}}},
			"b":{"$id":"b","$dynamicAnchor":"n","type":"object","properties":{"x":{"$dynamicRef":"#n"}}}},
			"properties":{"x":{"$ref":"#/$defs/a"}}}`, 16, 1 << 10, 1 << 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustCompile(t, tt.schema).Cost(tt.depth)
			if c.FanOut < tt.min || c.FanOut > tt.max || !c.FanOutComplete {
				t.Errorf("FanOut = %d (complete %v), want between %d and %d", c.FanOut, c.FanOutComplete, tt.min, tt.max)
			}
		})
	}
}

func TestCostExploresABoundedNumberOfStates(t *testing.T) {
	// 30 levels of 40 distinct keys, each level's keys leading to a state
	// of its own: more states than the walk explores (and under MaxObjects).
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"a":{"$ref":"#/$defs/l0"}},"$defs":{`)
	for i := range 30 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"l` + strconv.Itoa(i) + `":{"type":"object","properties":{`)
		for k := range 40 {
			if k > 0 {
				b.WriteString(",")
			}
			next := `{"$ref":"#/$defs/l` + strconv.Itoa(i+1) + `"}`
			if i == 29 {
				next = `{}`
			}
			b.WriteString(`"k` + strconv.Itoa(k) + `":{"anyOf":[` + next + `,{"type":"string","maxLength":` + strconv.Itoa(k) + `}]}`)
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`}}`)
	c := mustCompile(t, b.String()).Cost(64)
	if c.FanOut < 1 || c.FanOutComplete {
		t.Errorf("FanOut = %d, complete %v: want a count found in a walk cut short", c.FanOut, c.FanOutComplete)
	}
}

func FuzzWorkIsBounded(f *testing.F) {
	deep, deepValue := nested(12)
	f.Add(deep, deepValue)
	f.Add(`{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#"},{"type":"string"}]}}}`, `{"a":{"a":{"a":"x"}}}`)
	f.Add(`{"type":"object","patternProperties":{"^x":{"uniqueItems":true,"contains":{"type":"integer"}}}}`, `{"xa":[1,1,2]}`)
	f.Add(`{"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"unevaluatedProperties":{"type":"string"}}`, `{"ab":"c"}`)
	f.Add(`{"type":"object","properties":{"s":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`, `{"s":{"properties":{"a":{"anyOf":[{}]}}}}`)
	f.Fuzz(func(t *testing.T, schema, value string) {
		s, err := Compile(json.RawMessage(schema), jsonparse.Limits{})
		if err != nil {
			return
		}
		s.Cost(16)
		var v any
		if json.Unmarshal([]byte(value), &v) != nil {
			return
		}
		budget := Work{Checks: 5000, PatternSteps: 1 << 24}
		w := s.Work(v, budget)
		if w.Checks < 1 {
			t.Fatalf("Work = %+v: the root is always checked", w)
		}
		if wider := s.Work(v, unlimited); wider.Within(budget) != w.Within(budget) {
			t.Fatalf("Work within the budget %v, but counted without one %+v", w, wider)
		}
		if w.Within(budget) {
			_ = s.Validate(v) // bounded: must not panic or run away
		}
	})
}

// BenchmarkWork measures the count beside the validation it guards, on
// schemas the fast path leaves to the authority: the count should cost a
// small fraction of it.
func BenchmarkWork(b *testing.B) {
	var items []string
	for i := range 200 {
		items = append(items, `{"id":`+strconv.Itoa(i)+`,"tag":"t`+strconv.Itoa(i)+`","when":null}`)
	}
	cases := []struct{ name, schema, value string }{
		{"union items", `{"type":"object","properties":{"rows":{"type":"array","items":{"$ref":"#/$defs/row"}}},"$defs":{"row":{"type":"object",
			"properties":{"id":{"type":"integer"},"tag":{"anyOf":[{"type":"string"},{"type":"null"}]},"when":{"anyOf":[{"type":"string","format":"date"},{"type":"null"}]}}}}}`,
			`{"rows":[` + strings.Join(items, ",") + `]}`},
		{"metaschema", `{"type":"object","properties":{"s":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`,
			`{"s":{"type":"object","properties":{"a":{"type":"string","minLength":1},"b":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["a"]}}`},
	}
	for _, c := range cases {
		s := mustCompile(b, c.schema)
		v := decoded(b, c.value)
		b.Run(c.name+"/validate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Validate(v)
			}
		})
		b.Run(c.name+"/work", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Work(v, Work{Checks: 1 << 15, PatternSteps: 1 << 30})
			}
		})
	}
}

// names returns n distinct quoted names, comma-separated.
func names(n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = `"r` + strconv.Itoa(i) + `"`
	}
	return strings.Join(out, ",")
}
