package tool_test

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
)

type fuzzArgs struct {
	S   string            `json:"s,omitempty" jsonschema:"maxLength=50"`
	I   int32             `json:"i,omitempty" jsonschema:"minimum=-1000,maximum=1000"`
	U   uint8             `json:"u,omitempty"`
	F   float64           `json:"f,omitempty"`
	B   bool              `json:"b,omitempty"`
	P   *int              `json:"p,omitempty"`
	L   []string          `json:"l,omitempty"`
	M   map[string]int    `json:"m,omitempty"`
	N   json.Number       `json:"n,omitempty"`
	Any any               `json:"any,omitempty"`
	E   string            `json:"e,omitempty" jsonschema:"enum=a,enum=b"`
	O   *struct{ X int }  `json:"o,omitempty"`
	Q   map[string]string `json:"q,omitempty"`
}

// FuzzPreflight feeds model-written arguments through the whole pipeline:
// it never panics, every result is one of OK / Invalid with a readable
// model view, and what the validator saw is exactly what the tool got.
func FuzzPreflight(f *testing.F) {
	for _, s := range []string{`{}`, `{"s":"x","i":5.0,"u":255,"f":1e-300,"b":true,"p":null,"l":["a"],"m":{"k":1e2},"n":12345678901234567890,"any":{"z":[1,"x",null]},"e":"a","o":{"X":1},"q":{"a":"b"}}`,
		`{"i":1e3}`, `{"i":1001}`, `{"u":256}`, `{"u":-1}`, `{"i":1.5}`, `{"s":"\u0000"}`, `{"o":null}`, `{"m":{"a":1.0}}`, `{`, `[]`, `"{}"`, `{"x":1}`, `{"S":"x"}`} {
		f.Add([]byte(s))
	}
	var seen any
	var got fuzzArgs
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "f", Description: "fuzz"}, func(_ context.Context, in fuzzArgs) (string, error) {
		got = in
		return "ok", nil
	}))
	r.Use(func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
		return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
			seen, _ = c.Value()
			return next(ctx, c)
		}
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		seen, got = nil, fuzzArgs{}
		res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "f", Args: data})
		checkModelText(t, res)
		switch res.Status {
		case tool.StatusInvalid:
			require.NotEmpty(t, res.Text(), "invalid without a message")
			return
		case tool.StatusOK:
		default:
			require.Failf(t, "unexpected status", "status %v for %q: %s", res.Status, data, res.Text())
		}
		// What the tool got, written back as JSON, must equal what the
		// validator saw, value for value.
		b, err := json.Marshal(got)
		require.NoError(t, err)
		var back map[string]any
		dec := json.NewDecoder(bytesReader(b))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&back))
		for k, v := range seen.(map[string]any) {
			require.True(t, sameJSON(v, back[k]), "key %q: validator saw %#v, tool got %#v (args %q)", k, v, back[k], data)
		}
	})
}

// sameJSON compares two decoded JSON values, numbers by exact value; a
// missing value on the tool's side matches a zero or null one (omitempty).
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return b == nil && isZero(x)
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		if !ok1 || !ok2 {
			return false
		}
		if rx.Cmp(ry) == 0 {
			return true
		}
		// float64 fields hold the nearest double.
		fx, _ := rx.Float64()
		fy, _ := ry.Float64()
		return fx == fy
	case map[string]any:
		y, _ := b.(map[string]any)
		if len(x) == 0 {
			return len(y) == 0
		}
		for k, v := range x {
			if !sameJSON(v, y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, _ := b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		return x == b || x == "" && b == nil
	case bool:
		return x == b || !x && b == nil
	case nil:
		return b == nil
	}
	return false
}

// isZero reports whether n is zero, or rounds to zero as a float64 (1e-370
// fills a float64 field with 0, which omitempty then leaves out).
func isZero(n json.Number) bool {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return false
	}
	f, _ := r.Float64()
	return f == 0
}
