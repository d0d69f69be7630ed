package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// Validate and approve exactly what runs: the arguments a tool runs with
// are the arguments that were validated and approved, in every tier.

// rawRecorder is a raw tool that keeps the bytes it was handed.
type rawRecorder struct {
	mu  sync.Mutex
	got []string
}

func (r *rawRecorder) tool(name, schema string) tool.AnyTool {
	return tool.NewRaw(tool.Definition{Name: name, Description: "Records its arguments.", InputSchema: json.RawMessage(schema)},
		func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.got = append(r.got, string(args))
			return tool.TextResult("ok"), nil
		})
}

func (r *rawRecorder) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.got) == 0 {
		return ""
	}
	return r.got[len(r.got)-1]
}

func TestBoundsAreExactThroughThePipeline(t *testing.T) {
	rec := &rawRecorder{}
	r := newRegistry(t, rec.tool("b", `{"type":"object","properties":{"x":{"type":"number","minimum":1.0000000000000001}}}`))
	res := call(r, "b", `{"x":1}`)
	assert.Equal(t, tool.StatusInvalid, res.Status, res.Text())
	assert.Empty(t, rec.last(), "the tool did not run")
}

func TestDefaultsAreAnnotations(t *testing.T) {
	t.Run("a default never satisfies required", func(t *testing.T) {
		rec := &rawRecorder{}
		r := newRegistry(t, rec.tool("ls", `{"type":"object","properties":{"path":{"type":"string","default":"."}},"required":["path"]}`))
		res := call(r, "ls", `{}`)
		require.Equal(t, tool.StatusInvalid, res.Status, res.Text())
		assert.Contains(t, res.Text(), `missing required key "path"`)
		assert.Empty(t, rec.last())
	})
	t.Run("defaults are filled after validation", func(t *testing.T) {
		rec := &rawRecorder{}
		r := newRegistry(t, rec.tool("ls", `{"type":"object","properties":{"path":{"type":"string"},"depth":{"type":"integer","default":1}},"required":["path"]}`))
		tooltest.WantOK(t, call(r, "ls", `{"path":"src"}`))
		assert.Equal(t, `{"depth":1,"path":"src"}`, rec.last())
	})
	t.Run("a default its own schema refuses is refused at registration", func(t *testing.T) {
		for _, schema := range []string{
			`{"type":"object","properties":{"s":{"type":"string","default":null}}}`,
			`{"type":"object","properties":{"e":{"enum":["a","b"],"default":"c"}}}`,
			`{"type":"object","properties":{"n":{"type":"integer","maximum":10,"default":11}}}`,
		} {
			err := tool.NewRegistry[struct{}](nil).Add((&rawRecorder{}).tool("d", schema))
			var de *tool.DefinitionError
			require.True(t, errors.As(err, &de), "%s: %v", schema, err)
			assert.Contains(t, err.Error(), "does not satisfy its own schema", schema)
		}
	})
}

func TestEveryTierRunsTheValidatedValue(t *testing.T) {
	const schema = `{"type":"object","properties":{"target":{"type":"string"},"dry_run":{"type":"boolean","default":true},
		"n":{"type":"integer"},"ratio":{"type":"number"}},"required":["target"],"additionalProperties":false}`
	tests := []struct{ sent, want string }{
		{`{"target":"prod"}`, `{"dry_run":true,"target":"prod"}`},
		{`{"target":"prod","dry_run":false}`, `{"dry_run":false,"target":"prod"}`},
		{`{"n":0.5e1,"target":"x"}`, `{"dry_run":true,"n":5,"target":"x"}`},
		{`{"n":1E2,"ratio":2.50,"target":"x"}`, `{"dry_run":true,"n":100,"ratio":2.5,"target":"x"}`},
		{"{ \"target\" : \"a<b>&c\" }", `{"dry_run":true,"target":"a<b>&c"}`},
	}
	for _, tt := range tests {
		t.Run(tt.sent, func(t *testing.T) {
			rec := &rawRecorder{}
			approver := tooltest.NewApprover(tooltest.AllowOnce())
			r := newRegistry(t, rec.tool("deploy", schema))
			r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.PolicyFunc(func(tool.PolicyInput) tool.Verdict { return tool.VerdictAsk }), Approver: approver}))
			tooltest.WantOK(t, call(r, "deploy", tt.sent))
			assert.Equal(t, tt.want, rec.last(), "the raw tool is handed the canonical validated value")
			assert.Equal(t, tt.want, string(approver.Requests()[0].Args), "the approver saw the same bytes")
		})
	}
	t.Run("blank arguments reach a raw tool as {}", func(t *testing.T) {
		rec := &rawRecorder{}
		r := newRegistry(t, rec.tool("noargs", `{"type":"object","properties":{}}`))
		for _, blank := range []string{``, `  `, `null`} {
			tooltest.WantOK(t, call(r, "noargs", blank))
			assert.Equal(t, `{}`, rec.last())
		}
	})
}

func TestNothingValidatedFailsToDecode(t *testing.T) {
	type args struct {
		F   float64 `json:"f,omitempty"`
		F32 float32 `json:"f32,omitempty"`
		I8  int8    `json:"i8,omitempty"`
		U   uint    `json:"u,omitempty"`
		I   int64   `json:"i,omitempty"`
	}
	var got args
	r := newRegistry(t, tool.New(tool.Definition{Name: "n", Description: "Numbers."}, func(_ context.Context, in args) (string, error) {
		got = in
		return "ok", nil
	}))
	tests := []struct {
		args   string
		status tool.Status
		says   string
	}{
		{`{"f":1e309}`, tool.StatusInvalid, "64-bit float"},
		{`{"f":1e-400}`, tool.StatusOK, "ok"},
		{`{"f32":1e39}`, tool.StatusInvalid, "at most"},
		{`{"i8":128}`, tool.StatusInvalid, "at most 127"},
		{`{"u":-1}`, tool.StatusInvalid, "at least 0"},
		{`{"i":1e300}`, tool.StatusInvalid, "this field holds integers from"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got = args{}
			res := call(r, "n", tt.args)
			require.Equal(t, tt.status, res.Status, res.Text())
			assert.Contains(t, res.Text(), tt.says)
		})
	}
	got = args{F: 1}
	tooltest.WantOK(t, call(r, "n", `{"f":1e-400}`))
	assert.Zero(t, got.F, "a number too small for a float64 is zero, not an error")
}

func TestSelfContainedSchemasRegister(t *testing.T) {
	for name, schema := range map[string]string{
		"$id inside":  `{"type":"object","properties":{"a":{"$ref":"item.json"}},"$defs":{"i":{"$id":"item.json","type":"string","maxLength":3}}}`,
		"metaschema":  `{"type":"object","properties":{"schema":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`,
		"$anchor":     `{"type":"object","properties":{"a":{"$ref":"#short"}},"$defs":{"s":{"$anchor":"short","type":"string","maxLength":3}}}`,
		"absolute id": `{"$id":"https://example.com/tool.json","type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string","maxLength":3}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := newRegistry(t, (&rawRecorder{}).tool("s", schema))
			if strings.Contains(schema, "metaschema") || name == "metaschema" {
				tooltest.WantOK(t, call(r, "s", `{"schema":{"type":"string"}}`))
				assert.Equal(t, tool.StatusInvalid, call(r, "s", `{"schema":{"type":"nope"}}`).Status)
				return
			}
			tooltest.WantOK(t, call(r, "s", `{"a":"abc"}`))
			assert.Equal(t, tool.StatusInvalid, call(r, "s", `{"a":"abcd"}`).Status)
		})
	}
}

func TestSchemasThatCannotPassAreRefused(t *testing.T) {
	for name, schema := range map[string]string{
		"a $ref loop":                `{"type":"object","$ref":"#"}`,
		"recursion with no base":     `{"type":"object","properties":{"a":{"$ref":"#"}},"required":["a"]}`,
		"minimum above maximum":      `{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":0}}}`,
		"minLength above maxLength":  `{"type":"object","properties":{"a":{"type":"string","minLength":3,"maxLength":1}}}`,
		"an empty enum":              `{"type":"object","properties":{"a":{"enum":[]}}}`,
		"a required forbidden key":   `{"type":"object","required":["a"],"additionalProperties":false}`,
		"an unreachable loop":        `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/x"}}}`,
		"every branch impossible":    `{"type":"object","properties":{"a":{"type":"object","oneOf":[false,false]}},"required":["a"]}`,
		"enum outside its own type":  `{"type":"object","properties":{"a":{"type":"integer","enum":["one"]}}}`,
		"no integer between bounds":  `{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2}}}`,
		"const outside its own type": `{"type":"object","properties":{"a":{"type":"string","const":1}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			err := tool.NewRegistry[struct{}](nil).Add((&rawRecorder{}).tool("x", schema))
			var de *tool.DefinitionError
			require.True(t, errors.As(err, &de), "registered: %s", schema)
		})
	}
}

func TestPreflightIsBoundedInTime(t *testing.T) {
	costly := `{"type":"object","properties":{"s":{"type":"array","items":{"type":"string","pattern":"[a-z]{1,1000}@x\\.com"}}}}`
	t.Run("a costly pattern is refused at registration", func(t *testing.T) {
		err := tool.NewRegistry[struct{}](nil).Add((&rawRecorder{}).tool("c", costly))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "instructions")
		assert.Contains(t, err.Error(), "AllowCostlySchemas")
	})
	t.Run("or registered with a warning when allowed", func(t *testing.T) {
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{AllowCostlySchemas: true})
		require.NoError(t, r.Add((&rawRecorder{}).tool("c", costly)))
		require.Len(t, r.Warnings(), 1)
		assert.Equal(t, "c", r.Warnings()[0].Tool)
	})
	t.Run("a smaller limit makes it affordable", func(t *testing.T) {
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Limits: tool.Limits{MaxBytes: 16 << 10}})
		require.NoError(t, r.Add((&rawRecorder{}).tool("c", costly)))
	})
	t.Run("preflight stops when the call's context is done", func(t *testing.T) {
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{AllowCostlySchemas: true})
		rec := &rawRecorder{}
		// The pattern is new to the process each run: a pattern compiled
		// once is matched far faster afterwards, and the run must be slow.
		pattern := fmt.Sprintf(`[a-z]{1,300}@x\\.com|q%dq`, time.Now().UnixNano())
		require.NoError(t, r.Add(rec.tool("c", `{"type":"object","properties":{"s":{"type":"array","items":{"type":"string","pattern":"`+pattern+`"}}}}`)))
		long := strings.Repeat("abcdefgh", 4<<10) // 32 KiB per string
		args := `{"s":["` + long + `","` + long + `","` + long + `"]}`
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		start := time.Now()
		res := r.Call(ctx, struct{}{}, tool.Request{Name: "c", Args: []byte(args)})
		assert.Equal(t, tool.StatusTimedOut, res.Status, res.Text())
		assert.Less(t, time.Since(start), 10*time.Second, "the call ended with its context, not with the validation")
		assert.Empty(t, rec.last())
		assert.LessOrEqual(t, r.Stats().HooksAbandoned, int64(1), "a validation left running is counted (none if the call ended before it started)")
		require.Eventually(t, func() bool { return r.Stats().HooksRunning == 0 }, 30*time.Second, 10*time.Millisecond,
			"and it finishes: its cost is bounded")
	})
}

func TestTheSealCoversTheBytesThatRun(t *testing.T) {
	rec := &rawRecorder{}
	r := newRegistry(t, rec.tool("rm", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`))
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooltest.NewApprover(tooltest.AllowOnce())}))
	r.Use(func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
		return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
			c.SetArgs(json.RawMessage(`{"path":"/"}`)) // after approval, behind the approver's back
			return next(ctx, c)
		}
	})
	res := call(r, "rm", `{"path":"build/"}`)
	require.Equal(t, tool.StatusDenied, res.Status, res.Text())
	assert.ErrorIs(t, res.Err, tool.ErrArgsChanged)
	assert.Empty(t, rec.last(), "what was not approved did not run")
}

// nestedAlternatives is a schema whose every level is an anyOf of two
// branches that both lead into the same item: a value nested d deep is
// checked 2^d times by a validator that does not remember what it checked.
func nestedAlternatives(levels int) string {
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
		b.WriteString(`"l` + strconv.Itoa(i) + `":{"anyOf":[{"type":"array","items":` + next + `},{"type":"array","items":` + next + `,"minItems":1}]}`)
	}
	b.WriteString(`}}`)
	return b.String()
}

func nestedArgs(levels int) string {
	return `{"a":` + strings.Repeat("[", levels) + `"x"` + strings.Repeat("]", levels) + `}`
}

func TestPreflightIsBoundedInMemory(t *testing.T) {
	t.Run("nested alternatives are refused at registration", func(t *testing.T) {
		err := tool.NewRegistry[struct{}](nil).Add((&rawRecorder{}).tool("n", nestedAlternatives(24)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "over a million subschema checks can fall on one value")
		assert.Contains(t, err.Error(), "AllowCostlySchemas")
	})
	t.Run("a small call past the bound is refused, not validated", func(t *testing.T) {
		// Unbounded, this 57-byte call took tens of gigabytes.
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{AllowCostlySchemas: true})
		rec := &rawRecorder{}
		require.NoError(t, r.Add(rec.tool("n", nestedAlternatives(24))))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res := call(r, "n", nestedArgs(24))
		runtime.ReadMemStats(&after)
		require.Equal(t, tool.StatusInvalid, res.Status, res.Text())
		assert.Contains(t, res.Text(), "too costly to check")
		assert.Empty(t, rec.last(), "the tool did not run")
		var ae *tool.ArgsError
		require.ErrorAs(t, res.Err, &ae)
		assert.Equal(t, "too_costly", ae.Problems[0].Code)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "validation allocated within its bound")
	})
	t.Run("MaxSchemaChecks raises the bound", func(t *testing.T) {
		schema := nestedAlternatives(12) // about 8,000 checks for a call 12 deep
		small := tool.NewRegistry[struct{}](&tool.RegistryOptions{AllowCostlySchemas: true, Limits: tool.Limits{MaxSchemaChecks: 1000}})
		require.NoError(t, small.Add((&rawRecorder{}).tool("n", schema)))
		assert.Contains(t, call(small, "n", nestedArgs(12)).Text(), "too costly")

		large := tool.NewRegistry[struct{}](&tool.RegistryOptions{AllowCostlySchemas: true, Limits: tool.Limits{MaxSchemaChecks: 1 << 15}})
		rec := &rawRecorder{}
		require.NoError(t, large.Add(rec.tool("n", schema)))
		res := call(large, "n", `{"a":`+strings.Repeat("[", 12)+`7`+strings.Repeat("]", 12)+`}`)
		assert.Equal(t, tool.StatusOK, res.Status, res.Text())
	})
	t.Run("alternatives that differ by key register and validate deep calls", func(t *testing.T) {
		// A filter language: each operator is its own key, so only one
		// branch leads into each member and the checks stay linear.
		expr := `{"type":"object","properties":{"where":{"$ref":"#/$defs/e"}},"required":["where"],"$defs":{"e":{"anyOf":[
			{"type":"object","properties":{"eq":{"type":"array","items":{"type":"string"}}},"required":["eq"],"additionalProperties":false},
			{"type":"object","properties":{"and":{"type":"array","items":{"$ref":"#/$defs/e"}}},"required":["and"],"additionalProperties":false},
			{"type":"object","properties":{"or":{"type":"array","items":{"$ref":"#/$defs/e"}}},"required":["or"],"additionalProperties":false},
			{"type":"object","properties":{"not":{"$ref":"#/$defs/e"}},"required":["not"],"additionalProperties":false}]}}}`
		r := tool.NewRegistry[struct{}](nil)
		rec := &rawRecorder{}
		require.NoError(t, r.Add(rec.tool("q", expr)))
		assert.Empty(t, r.Warnings())
		deep := `{"eq":["a","b"]}`
		for i := range 30 {
			if i%2 == 0 {
				deep = `{"not":` + deep + `}`
			} else {
				deep = `{"and":[` + deep + `,{"eq":["c","d"]}]}`
			}
		}
		res := call(r, "q", `{"where":`+deep+`}`)
		assert.Equal(t, tool.StatusOK, res.Status, res.Text())
	})
}
