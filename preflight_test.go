package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestPreflightAccepts(t *testing.T) {
	r := newRegistry(t, newSearch())
	tests := []struct {
		name, args string
		want       searchArgs
	}{
		{"plain", `{"query":"x","limit":5}`, searchArgs{Query: "x", Limit: 5}},
		{"default filled", `{"query":"x"}`, searchArgs{Query: "x", Limit: 10}},
		{"integral float", `{"query":"x","limit":5.0}`, searchArgs{Query: "x", Limit: 5}},
		{"exponent integer", `{"query":"x","limit":1e2}`, searchArgs{Query: "x", Limit: 100}},
		{"whitespace around", " \n{\"query\":\"x\"}\t ", searchArgs{Query: "x", Limit: 10}},
		{"unicode", `{"query":"h\u00e9llo \ud83d\ude00"}`, searchArgs{Query: "héllo 😀", Limit: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for len(received) > 0 {
				<-received
			}
			res := call(r, "search", tt.args)
			require.Equal(t, tool.StatusOK, res.Status, res.Text())
			assert.Equal(t, tt.want, <-received)
		})
	}
}

func TestPreflightRejects(t *testing.T) {
	r := newRegistry(t, newSearch())
	tests := []struct {
		name    string
		args    string
		code    string
		pointer string
		says    []string // the model text must contain each
	}{
		{"absent", ``, "required", "/query", []string{`missing required key "query"`, "Expected shape"}},
		{"null", `null`, "required", "/query", []string{"missing required key"}},
		{"whitespace", "  \n ", "required", "/query", nil},
		{"empty object", `{}`, "required", "/query", nil},
		{"bare brace", `{`, "truncated", "", []string{"cut off", "Send the complete arguments again"}},
		{"cut string", `{"query":"/src/ma`, "truncated", "/query", []string{"cut off", "/query"}},
		{"cut after comma", `{"query":"x",`, "truncated", "", []string{"cut off"}},
		{"two documents", `{"query":"x"}{"query":"y"}`, "trailing_data", "", []string{"more than one JSON document"}},
		{"trailing garbage", `{"query":"x"} ok`, "trailing_data", "", []string{"unexpected text"}},
		{"string wrapped", `"{\"query\":\"x\"}"`, "string_wrapped_object", "", []string{"send the object itself, not a string"}},
		{"plain string", `"find x"`, "not_object", "", []string{"must be a JSON object"}},
		{"array", `[{"query":"x"}]`, "not_object", "", []string{"not an array"}},
		{"number", `42`, "not_object", "", []string{"not a integer"}},
		{"duplicate", `{"query":"x","query":"y"}`, "duplicate_key", "", []string{"appears twice"}},
		{"case variant", `{"query":"x","QUERY":"y"}`, "case_folded_key", "/QUERY", []string{`the key "QUERY" is not "query"`, "case-sensitive"}},
		{"case variant alone", `{"query":"x","Lang":"go"}`, "case_folded_key", "/Lang", []string{`send "lang"`}},
		{"number past float64", `{"query":"x","limit":2e308}`, "number_out_of_range", "/limit", []string{"64-bit float"}},
		{"unknown key", `{"query":"x","limt":5}`, "unknown_key", "/limt", []string{"allowed keys: query, limit, lang, path", `Did you mean "limit"?`}},
		{"wrong type string", `{"query":"x","limit":"5"}`, "type", "/limit", []string{"expected integer, got string \"5\"", "without quotes"}},
		{"fraction for integer", `{"query":"x","limit":1.5}`, "type", "/limit", []string{"expected integer"}},
		{"null for integer", `{"query":"x","limit":null}`, "type", "/limit", []string{"got null"}},
		{"below minimum", `{"query":"x","limit":0}`, "minimum", "/limit", []string{"at least 1"}},
		{"absurd number", `{"query":"x","limit":1e300}`, "maximum", "/limit", []string{"at most 100"}},
		{"long digits", `{"query":"x","limit":` + strings.Repeat("9", 150) + `}`, "number_too_long", "/limit", nil},
		{"huge exponent", `{"query":"x","limit":1e999999}`, "exponent_too_large", "/limit", nil},
		{"enum", `{"query":"x","lang":"pyhton"}`, "enum", "/lang", []string{`"go", "rust", "python"`, `Did you mean "python"?`}},
		{"pattern", `{"query":"x","path":"../etc"}`, "pattern", "/path", []string{"pattern"}},
		{"min length", `{"query":""}`, "min_length", "/query", nil},
		{"invalid utf8", "{\"query\":\"\xff\"}", "invalid_utf8", "/query", nil},
		{"lone surrogate", `{"query":"\ud800"}`, "lone_surrogate", "/query", nil},
		{"too deep", `{"query":"x","z":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "too_deep", "", nil},
		{"big string", `{"query":"` + strings.Repeat("a", 70000) + `"}`, "string_too_long", "/query", nil},
		{"huge document", `{"query":"` + strings.Repeat("a", 1<<20) + `"}`, "too_large", "", nil},
		{"attacker text", "{\"query\":\"x\",\"\\u001b[31mevil\\u0007\":1}", "unknown_key", "", []string{`\x1b[31mevil`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(r, "search", tt.args)
			require.Equal(t, tool.StatusInvalid, res.Status, res.Text())
			require.True(t, res.IsError)
			checkModelText(t, res)
			var ae *tool.ArgsError
			require.True(t, errors.As(res.Err, &ae), "Err is %T", res.Err)
			require.NotEmpty(t, ae.Problems)
			assert.Equal(t, tt.code, ae.Problems[0].Code, res.Text())
			if tt.pointer != "" {
				assert.Equal(t, tt.pointer, ae.Problems[0].Pointer)
			}
			assert.Equal(t, res.Text(), ae.Error())
			for _, s := range tt.says {
				assert.Contains(t, res.Text(), s)
			}
			assert.Less(t, len(res.Text()), 4096, "hint too long")
		})
	}
}

func TestPreflightErrorsStayBounded(t *testing.T) {
	r := newRegistry(t, newSearch())
	var b strings.Builder
	b.WriteString(`{"query":"x"`)
	for i := 0; i < 5000; i++ {
		b.WriteString(`,"k` + strings.Repeat("z", 40) + string(rune('a'+i%26)) + strings.Repeat("q", i%7) + `_` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	res := call(r, "search", b.String())
	require.Equal(t, tool.StatusInvalid, res.Status)
	var ae *tool.ArgsError
	require.ErrorAs(t, res.Err, &ae)
	assert.Equal(t, 5000, ae.Total)
	assert.Less(t, len(res.Text()), 4096)
	assert.Contains(t, res.Text(), "and 4992 more")
}

type checkedArgs struct {
	From int `json:"from"`
	To   int `json:"to"`
}

func (a *checkedArgs) Validate() error {
	if a.From > a.To {
		return &tool.Error{Message: "from must not be after to", Hint: "swap them"}
	}
	return nil
}

func TestTypedValidateMethodRunsInPreflight(t *testing.T) {
	ran := false
	rng := tool.New(tool.Definition{Name: "range", Description: "A range."}, func(_ context.Context, in checkedArgs) (string, error) {
		ran = true
		return "ok", nil
	})
	r := newRegistry(t, rng)
	res := call(r, "range", `{"from":5,"to":1}`)
	assert.Equal(t, tool.StatusInvalid, res.Status)
	assert.Contains(t, res.Text(), "from must not be after to (swap them)")
	assert.False(t, ran)
	assert.Equal(t, tool.StatusOK, call(r, "range", `{"from":1,"to":5}`).Status)
}

type rawWithCheck struct{ tool.AnyTool }

func (rawWithCheck) ValidateArgs(v any) error {
	if v.(map[string]any)["path"] == "/etc/passwd" {
		return errors.New("that path is off limits")
	}
	return nil
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
