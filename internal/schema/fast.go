package schema

import (
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ok reports whether v is certainly valid against n. It returns false both
// for invalid values and for anything it cannot decide exactly.
func (n *Node) ok(v any) bool {
	if n == nil {
		return true
	}
	if !n.Fast {
		return false
	}
	if n.Bool != nil {
		return *n.Bool
	}
	if n.HasEnum && !inEnum(v, n.Enum) {
		return false
	}
	if n.HasCon && !sureEqual(v, n.Const) {
		return false
	}
	switch x := v.(type) {
	case nil:
		return n.Types == 0 || n.Types&tNull != 0
	case bool:
		return n.Types == 0 || n.Types&tBool != 0
	case string:
		if n.Types != 0 && n.Types&tString == 0 {
			return false
		}
		if n.MinLen > 0 || n.MaxLen >= 0 {
			c := utf8.RuneCountInString(x)
			if c < n.MinLen || (n.MaxLen >= 0 && c > n.MaxLen) {
				return false
			}
		}
		return n.Pattern == nil || matchString(n.Pattern, x)
	case json.Number:
		return n.numberOK(x)
	case map[string]any:
		return n.objectOK(x)
	case []any:
		if n.Types != 0 && n.Types&tArray == 0 {
			return false
		}
		if len(x) < n.MinItems || (n.MaxItems >= 0 && len(x) > n.MaxItems) {
			return false
		}
		for _, e := range x {
			if !n.Items.ok(e) {
				return false
			}
		}
		return true
	}
	return false
}

func (n *Node) objectOK(m map[string]any) bool {
	if n.Types != 0 && n.Types&tObject == 0 {
		return false
	}
	if len(m) < n.MinProps || (n.MaxProps >= 0 && len(m) > n.MaxProps) {
		return false
	}
	for _, r := range n.Required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for k, e := range m {
		if c, ok := n.Props[k]; ok {
			if !c.ok(e) {
				return false
			}
			continue
		}
		if n.AddlFalse {
			return false
		}
		if n.Addl != nil && !n.Addl.ok(e) {
			return false
		}
	}
	return true
}

func (n *Node) numberOK(x json.Number) bool {
	switch {
	case n.Types == 0 || n.Types&tNumber != 0:
	case n.Types&tInteger != 0 && isIntLiteral(x):
	default:
		return false // includes 5.0 for an integer: the authority decides
	}
	if n.Min == nil && n.Max == nil && n.ExMin == nil && n.ExMax == nil {
		return true
	}
	f, err := strconv.ParseFloat(string(x), 64)
	if err != nil && !isUnderflow(f, err) {
		return false
	}
	return atLeast(x, f, n.Min, false) && atLeast(x, f, n.ExMin, true) &&
		atMost(x, f, n.Max, false) && atMost(x, f, n.ExMax, true)
}

// Correctly rounded parsing is monotonic: x <= b implies float(x) <=
// float(b). So float(x) > float(b) proves x > b, and float(x) < float(b)
// proves x < b, whatever rounding did; only equal floats need the exact
// values, which are compared as rationals. Both literals are bounded
// (MaxNumberLength and MaxExponent for x, maxBoundLen and maxBoundExponent
// for b), so that costs little.

func atLeast(x json.Number, f float64, b *bound, strict bool) bool {
	switch {
	case b == nil || f > b.f:
		return true
	case f < b.f:
		return false
	}
	c, ok := exactCmp(x, b)
	return ok && (c > 0 || !strict && c == 0)
}

func atMost(x json.Number, f float64, b *bound, strict bool) bool {
	switch {
	case b == nil || f < b.f:
		return true
	case f > b.f:
		return false
	}
	c, ok := exactCmp(x, b)
	return ok && (c < 0 || !strict && c == 0)
}

// exactCmp compares the literal x with the bound exactly.
func exactCmp(x json.Number, b *bound) (int, bool) {
	r, ok := new(big.Rat).SetString(string(x))
	if !ok {
		return 0, false
	}
	return r.Cmp(b.exact), true
}

// isUnderflow reports whether ParseFloat's error only says the value is too
// small for a float64, which rounds it to zero: the comparison is still
// monotonic.
func isUnderflow(f float64, err error) bool {
	return f == 0 && errors.Is(err, strconv.ErrRange)
}

func isIntLiteral(x json.Number) bool {
	return !strings.ContainsAny(string(x), ".eE")
}

func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if sureEqual(v, e) {
			return true
		}
	}
	return false
}

// sureEqual reports whether two JSON scalars are certainly equal. Numbers
// are equal for sure only when written the same way; containers are never
// compared here.
func sureEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	}
	return false
}
