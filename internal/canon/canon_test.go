package canon

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

func TestNumber(t *testing.T) {
	tests := map[string]string{
		"5": "5", "5.0": "5", "0.5e1": "5", "5E0": "5", "50e-1": "5", "1e2": "100", "-0": "0", "-0.0e5": "0", "0": "0",
		"1.50": "1.5", "0.25": "0.25", "-12.340": "-12.34", "1e20": "100000000000000000000", "1e21": "1e+21",
		"123456789012345678901234": "1.23456789012345678901234e+23", "0.000001": "0.000001", "0.0000001": "1e-7",
		"1e-400": "1e-400", "12345678901234567890": "12345678901234567890", "1.5e300": "1.5e+300", "-2.5E-3": "-0.0025",
	}
	for in, want := range tests {
		if got := Number(in); got != want {
			t.Errorf("Number(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestEncode(t *testing.T) {
	v, err := jsonparse.Parse([]byte(`{"b":[1.0,"<&>",null,true],"a":{"z":"\u2028\t","y":0.5e1},"é":"\u001f"}`), jsonparse.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"y":5,"z":"\u2028\t"},"b":[1,"<&>",null,true],"é":"\u001f"}`
	if got := string(Encode(v)); got != want {
		t.Fatalf("Encode = %s\nwant     %s", got, want)
	}
}

// FuzzEncode: the canonical form reads back as the same tree, numbers equal
// as exact values, and is a fixed point.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1.0,-0,5e-3,1E+2],"b":"x\u0000y","c":{"d":null}}`, `{"n":123456789.123456789e-30}`, `{"s":"\ud83d\ude00\u2029"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, perr := jsonparse.Parse(data, jsonparse.Limits{MaxBytes: 1 << 16, MaxDepth: 32, MaxNumberLen: 100, MaxExponent: 400})
		if perr != nil {
			return
		}
		out := Encode(v)
		if !json.Valid(out) {
			t.Fatalf("Encode(%s) = %s, not JSON", data, out)
		}
		back, perr := jsonparse.Parse(out, jsonparse.Limits{})
		if perr != nil {
			t.Fatalf("Encode(%s) = %s, which does not parse: %v", data, out, perr)
		}
		if !same(v, back) {
			t.Fatalf("Encode(%s) = %s reads back differently", data, out)
		}
		if again := Encode(back); !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point: %s then %s", out, again)
		}
	})
}

func same(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			if !same(e, y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, _ := new(big.Rat).SetString(string(x))
		ry, _ := new(big.Rat).SetString(string(y))
		return rx != nil && ry != nil && rx.Cmp(ry) == 0
	case string:
		y, ok := b.(string)
		return ok && (x == y || !validUTF8(x))
	}
	return a == b
}

func validUTF8(s string) bool {
	return bytes.Equal([]byte(s), bytes.ToValidUTF8([]byte(s), []byte("\ufffd")))
}
