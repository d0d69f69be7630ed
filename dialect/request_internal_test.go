package dialect

import (
	"math"
	"strconv"
	"testing"
)

// FuzzMayHoldLarge holds CheckPrecision's fast path to what it may skip:
// a document it says holds no large number holds none.
func FuzzMayHoldLarge(f *testing.F) {
	for _, seed := range []string{`{"id":9007199254740991}`, `{"id":9007199254740992}`, `{"id":-9007199254740993}`,
		`{"ids":[1,1e300]}`, `{"x":1.5E+16}`, `{"x":0.0000000000000001}`, `{"x":12345678901234.5e3}`, `[1e0]`, `{"s":"v1e"}`,
		`{"x":-0.5}`, `{"x":900719925474099.9}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if mayHoldLarge(b) {
			return
		}
		v, err := parse(b)
		if err != nil {
			return
		}
		if lit, ok := large(v, 0); ok {
			t.Fatalf("mayHoldLarge(%s) = false, and it holds %s", b, lit)
		}
	})
}

// large finds a number of magnitude 2^53 or more.
func large(v *node, depth int) (string, bool) {
	if depth > maxDepth {
		return "", false
	}
	switch v.kind {
	case kNumber:
		f, err := strconv.ParseFloat(v.s, 64)
		return v.s, err != nil || math.Abs(f) >= 1<<53
	case kArray:
		for _, e := range v.arr {
			if lit, ok := large(e, depth+1); ok {
				return lit, ok
			}
		}
	case kObject:
		for _, e := range v.vals {
			if lit, ok := large(e, depth+1); ok {
				return lit, ok
			}
		}
	}
	return "", false
}
