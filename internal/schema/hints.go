package schema

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/canon"
	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// At returns the node that describes the value at the instance location
// tokens, following properties, additionalProperties and items. It returns
// nil where the schema says nothing the hint writer can use.
func (s *Schema) At(tokens []string) *Node {
	n := s.root
	for _, t := range tokens {
		if n == nil {
			return nil
		}
		switch {
		case n.Props[t] != nil:
			n = n.Props[t]
		case n.Items != nil && isIndex(t):
			n = n.Items
		case n.Addl != nil:
			n = n.Addl
		default:
			return nil
		}
	}
	return n
}

// CompareLocations orders two instance locations as the schema declares
// them: at each level, properties in the order of the schema, then keys
// it does not declare by name, array items by index; a location comes
// before those under it.
func (s *Schema) CompareLocations(a, b []string) int {
	n := s.root
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return compareTokens(n, a[i], b[i])
		}
		n = s.step(n, a[i])
	}
	return cmp.Compare(len(a), len(b))
}

// step is one token of At.
func (s *Schema) step(n *Node, t string) *Node {
	switch {
	case n == nil:
		return nil
	case n.Props[t] != nil:
		return n.Props[t]
	case n.Items != nil && isIndex(t):
		return n.Items
	}
	return n.Addl
}

func compareTokens(n *Node, a, b string) int {
	ia, ib := -1, -1
	if n != nil {
		ia, ib = propIndex(n, a), propIndex(n, b)
	}
	switch {
	case ia >= 0 && ib >= 0:
		return cmp.Compare(ia, ib)
	case ia >= 0:
		return -1
	case ib >= 0:
		return 1
	}
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	if ea == nil && eb == nil {
		return cmp.Compare(na, nb)
	}
	return strings.Compare(a, b)
}

// propIndex is the position of k in n.PropOrder, -1 when n does not
// declare it: a map lookup, since sorting thousands of problems compares
// them many times.
func propIndex(n *Node, k string) int {
	if i, ok := n.propIndex[k]; ok {
		return i
	}
	return -1
}

func isIndex(t string) bool {
	_, err := strconv.Atoi(t)
	return err == nil
}

// Skeleton writes a corrected example of the arguments for the model: every
// required property plus those of shape that the schema knows, each with a
// placeholder drawn from the schema (default, example, first allowed
// value, or the type). Properties appear in the schema's order. The result
// is at most maxBytes long; it is empty when the schema gives nothing to
// show.
//
// It also reports whether the example is, as a JSON value, sent: the same
// keys, and values that are equal once canonical (1.0 and 1 are one
// number). A hint leaves out an example that would only repeat what
// failed; the comparison is made as the example is written, and stops at
// the first difference. A nil sent is repeated by nothing.
func (s *Schema) Skeleton(shape, sent any, maxBytes int) (string, bool) {
	s.leavesOnce.Do(func() { fillLeaves(s.root, 0) })
	var b strings.Builder
	b.Grow(min(maxBytes, 256))
	same := writeSkeleton(&b, s.root, shape, sent, sent != nil, 0)
	out := b.String()
	if len(out) > maxBytes {
		return "", false
	}
	return out, same
}

// writeSkeleton writes the skeleton of n for shape. While same holds, it
// also compares what it writes with v, and it returns whether all it wrote
// is v.
func writeSkeleton(b *strings.Builder, n *Node, shape, v any, same bool, depth int) bool {
	if n == nil || depth > skeletonDepth {
		b.WriteString("null")
		return same && v == nil
	}
	if !isSkeletonObject(n) {
		b.WriteString(n.skeletonLeaf)
		return same && sameJSON(v, n.skeletonValue, n.skeletonCanon)
	}
	shapeObj, _ := shape.(map[string]any)
	var vObj map[string]any
	if same {
		vObj, same = v.(map[string]any)
	}
	b.WriteByte('{')
	written := 0
	for i, k := range n.PropOrder {
		sub, wasSent := shapeObj[k]
		if !wasSent && !contains(n.Required, k) {
			continue
		}
		if written > 0 {
			b.WriteString(", ")
		}
		written++
		b.WriteString(n.skeletonKeys[i])
		b.WriteString(": ")
		var got any
		if same {
			got, same = vObj[k]
		}
		same = writeSkeleton(b, n.Props[k], sub, got, same, depth+1)
	}
	b.WriteByte('}')
	return same && written == len(vObj)
}

// notJSON is a skeleton leaf's value when its text does not read back
// (past the parser's limits): equal to nothing.
type notJSON struct{}

// sameJSON reports whether v, a value of an argument tree, is want, whose
// canonical JSON is wantCanon. Strings, booleans and null are compared as
// they are; numbers and containers by their canonical JSON.
func sameJSON(v, want any, wantCanon string) bool {
	switch x := v.(type) {
	case string:
		w, ok := want.(string)
		return ok && w == x
	case bool:
		w, ok := want.(bool)
		return ok && w == x
	case nil:
		return want == nil
	}
	if _, ok := want.(notJSON); ok {
		return false
	}
	return string(canon.Encode(v)) == wantCanon
}

// skeletonDepth is how deep Skeleton goes; below, it writes null.
const skeletonDepth = 4

// isSkeletonObject reports whether Skeleton writes n key by key, from
// what was sent; otherwise it writes n.skeletonLeaf, the same for every
// call.
func isSkeletonObject(n *Node) bool {
	return !n.HasDefault && len(n.Examples) == 0 && !(n.HasEnum && len(n.Enum) > 0) && !n.HasCon &&
		(n.Types&tObject != 0 || n.Props != nil)
}

// fillLeaves sets skeletonLeaf on n and the nodes under it that Skeleton
// can reach, once per schema: a recursive schema is cut at skeletonDepth
// like Skeleton itself.
func fillLeaves(n *Node, depth int) {
	if n == nil || depth > skeletonDepth {
		return
	}
	if isSkeletonObject(n) {
		n.skeletonKeys = make([]string, len(n.PropOrder))
		for i, k := range n.PropOrder {
			n.skeletonKeys[i] = string(canon.AppendString(nil, k))
		}
		for _, p := range n.Props {
			fillLeaves(p, depth+1)
		}
		return
	}
	var b strings.Builder
	switch {
	case n.HasDefault:
		writeJSON(&b, n.Default)
	case len(n.Examples) > 0:
		writeJSON(&b, n.Examples[0])
	case n.HasEnum && len(n.Enum) > 0:
		writeJSON(&b, n.Enum[0])
	case n.HasCon:
		writeJSON(&b, n.Const)
	case n.Types&tArray != 0:
		if n.MinItems > 0 || n.Items != nil {
			fillLeaves(n.Items, depth+1)
			b.WriteByte('[')
			var items strings.Builder
			writeSkeleton(&items, n.Items, nil, nil, false, depth+1)
			b.WriteString(items.String())
			b.WriteByte(']')
		} else {
			b.WriteString("[]")
		}
	case n.Types&tString != 0:
		b.WriteString(`"<string>"`)
	case n.Types&tInteger != 0, n.Types&tNumber != 0:
		b.WriteString(numberPlaceholder(n))
	case n.Types&tBool != 0:
		b.WriteString("false")
	default:
		b.WriteString("null")
	}
	n.skeletonLeaf = b.String()
	n.skeletonValue, n.skeletonCanon = notJSON{}, ""
	if v, err := jsonparse.Parse([]byte(n.skeletonLeaf), jsonparse.Limits{}); err == nil {
		n.skeletonValue, n.skeletonCanon = v, string(canon.Encode(v))
	}
}

func numberPlaceholder(n *Node) string {
	switch {
	case n.Min != nil:
		return formatBound(n.Min, 0, n.Types&tInteger != 0)
	case n.ExMin != nil:
		return formatBound(n.ExMin, 1, n.Types&tInteger != 0)
	case n.Max != nil && n.Max.f < 0:
		return formatBound(n.Max, 0, n.Types&tInteger != 0)
	}
	return "0"
}

func formatBound(b *bound, plus float64, integer bool) string {
	if b.isInt {
		return strconv.FormatInt(b.i+int64(plus), 10)
	}
	if integer {
		return "0"
	}
	return strconv.FormatFloat(b.f+plus, 'g', -1, 64)
}

func writeJSON(b *strings.Builder, v any) {
	b.Write(canon.Encode(v))
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
