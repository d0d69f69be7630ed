package schema

import (
	"encoding/json"
	"errors"
	"math/big"
	"slices"
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
		return n.Pattern == nil || n.Pattern.MatchString(x)
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
	if c, ok := n.intBounds(x); ok {
		return c
	}
	f, err := strconv.ParseFloat(string(x), 64)
	if err != nil && !isUnderflow(f, err) {
		return false
	}
	return atLeast(x, f, n.Min, false) && atLeast(x, f, n.ExMin, true) &&
		atMost(x, f, n.Max, false) && atMost(x, f, n.ExMax, true)
}

// intBounds compares an integer literal with bounds that are all integers,
// exactly and without parsing floats; ok is false when that does not apply.
func (n *Node) intBounds(x json.Number) (valid, ok bool) {
	if !isIntLiteral(x) {
		return false, false
	}
	for _, b := range [...]*bound{n.Min, n.Max, n.ExMin, n.ExMax} {
		if b != nil && !b.isInt {
			return false, false
		}
	}
	i, err := strconv.ParseInt(string(x), 10, 64)
	if err != nil {
		return false, false
	}
	return (n.Min == nil || i >= n.Min.i) && (n.Max == nil || i <= n.Max.i) &&
		(n.ExMin == nil || i > n.ExMin.i) && (n.ExMax == nil || i < n.ExMax.i), true
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

// Scalar checks for decoders that read values straight into Go fields (the
// typed tools' plans): they answer as ok would for the same JSON value,
// without building it.

// StringOK reports whether the string s is certainly valid here.
func (n *Node) StringOK(s string) bool {
	if !n.Fast || n.Bool != nil && !*n.Bool {
		return false
	}
	if n.Bool != nil {
		return true
	}
	if n.HasEnum && !slices.ContainsFunc(n.Enum, func(e any) bool { x, ok := e.(string); return ok && x == s }) {
		return false
	}
	if n.HasCon {
		if c, ok := n.Const.(string); !ok || c != s {
			return false
		}
	}
	if n.Types != 0 && n.Types&tString == 0 {
		return false
	}
	if n.MinLen > 0 || n.MaxLen >= 0 {
		c := utf8.RuneCountInString(s)
		if c < n.MinLen || (n.MaxLen >= 0 && c > n.MaxLen) {
			return false
		}
	}
	return n.Pattern == nil || n.Pattern.MatchString(s)
}

// NumberOK reports whether the number literal lit is certainly valid here.
func (n *Node) NumberOK(lit string) bool {
	if !n.Fast || n.Bool != nil && !*n.Bool {
		return false
	}
	if n.Bool != nil {
		return true
	}
	x := json.Number(lit)
	if n.HasEnum && !inEnum(x, n.Enum) || n.HasCon && !sureEqual(x, n.Const) {
		return false
	}
	return n.numberOK(x)
}

// BoolOK reports whether the boolean b is certainly valid here.
func (n *Node) BoolOK(b bool) bool {
	if !n.Fast || n.Bool != nil && !*n.Bool {
		return false
	}
	if n.Bool != nil {
		return true
	}
	if n.HasEnum && !slices.ContainsFunc(n.Enum, func(e any) bool { x, ok := e.(bool); return ok && x == b }) {
		return false
	}
	if n.HasCon {
		if c, ok := n.Const.(bool); !ok || c != b {
			return false
		}
	}
	return n.Types == 0 || n.Types&tBool != 0
}

// AllowsObject and AllowsArray report whether the node's types let an
// object (an array) be valid, leaving the other keywords aside.
func (n *Node) AllowsObject() bool { return n.Bool == nil && (n.Types == 0 || n.Types&tObject != 0) }
func (n *Node) AllowsArray() bool  { return n.Bool == nil && (n.Types == 0 || n.Types&tArray != 0) }

// Constrained reports whether the node has an enum or a const, which a
// decoder of containers does not check.
func (n *Node) Constrained() bool { return n.HasEnum || n.HasCon }
