package schema

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Node is one subschema as the fast path and the hint writer read it.
//
// Fast reports whether every keyword of the node and of its subschemas is
// one the fast path implements exactly; a node that is not Fast makes the
// fast path answer "unsure" for any value it reaches.
type Node struct {
	Fast     bool
	Bool     *bool    // a boolean schema (true / false)
	Types    typeSet  // 0: any type
	TypeList []string // as written, for hints

	Props     map[string]*Node
	PropOrder []string
	Required  []string
	AddlFalse bool  // additionalProperties: false
	Addl      *Node // additionalProperties as a schema (nil: anything)
	MinProps  int
	MaxProps  int // -1: none

	Items    *Node
	MinItems int
	MaxItems int // -1: none

	Enum    []any
	HasEnum bool
	Const   any
	HasCon  bool

	Min, Max, ExMin, ExMax *bound

	MinLen  int
	MaxLen  int // -1: none
	Pattern *regexp.Regexp

	Default    any
	HasDefault bool
	Examples   []any
	Desc       string

	hasDefaults bool // this node or a descendant through properties has a default
}

type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBool
	tObject
	tArray
	tNumber
	tInteger
	tString
)

var typeBits = map[string]typeSet{"null": tNull, "boolean": tBool, "object": tObject, "array": tArray, "number": tNumber, "integer": tInteger, "string": tString}

// bound is a numeric limit kept as a float64 (for the monotonic comparison)
// and, when it is a small integer, exactly.
type bound struct {
	f     float64
	isInt bool
	i     int64
}

// fastKeywords are implemented exactly by ok; annotations are keywords
// that never affect validity under draft 2020-12 as compiled here (format is
// an annotation unless format assertion is switched on, and it is not).
var fastKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "minLength": true, "maxLength": true,
	"pattern": true, "minItems": true, "maxItems": true, "minProperties": true, "maxProperties": true,
}

var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "format": true,
}

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

func build(v any, root bool) *Node {
	n := &Node{Fast: true, MaxProps: -1, MaxItems: -1, MaxLen: -1}
	switch x := v.(type) {
	case bool:
		n.Bool = &x
		return n
	case *object:
		n.read(x, root)
	default:
		n.Fast = false
	}
	return n
}

func (n *Node) read(o *object, root bool) {
	for _, k := range o.keys {
		v := o.m[k]
		switch {
		case fastKeywords[k], annotations[k]:
		case root && k == "$schema":
			if s, _ := v.(string); strings.TrimSuffix(s, "#") != draft2020 {
				n.Fast = false
			}
		case root && (k == "$id" || k == "$defs"):
			// $defs only matter through $ref, which is not fast.
		default:
			n.Fast = false
		}
	}
	n.Desc, _ = o.m["description"].(string)
	if d, ok := o.m["default"]; ok {
		n.Default, n.HasDefault = plain(d), true
	}
	if ex, ok := o.m["examples"].([]any); ok {
		n.Examples = plain(ex).([]any)
	}
	switch t := o.m["type"].(type) {
	case string:
		n.addType(t)
	case []any:
		for _, e := range t {
			s, _ := e.(string)
			n.addType(s)
		}
	case nil:
	default:
		n.Fast = false
	}
	if props, ok := o.m["properties"].(*object); ok {
		n.Props = make(map[string]*Node, len(props.keys))
		n.PropOrder = props.keys
		for _, k := range props.keys {
			c := build(props.m[k], false)
			n.Props[k] = c
			n.Fast = n.Fast && c.Fast
			n.hasDefaults = n.hasDefaults || c.HasDefault || c.hasDefaults
		}
	}
	if req, ok := o.m["required"].([]any); ok {
		for _, r := range req {
			s, _ := r.(string)
			n.Required = append(n.Required, s)
		}
	}
	switch a := o.m["additionalProperties"].(type) {
	case nil:
	case bool:
		n.AddlFalse = !a
	default:
		n.Addl = build(a, false)
		n.Fast = n.Fast && n.Addl.Fast
	}
	if it, ok := o.m["items"]; ok {
		n.Items = build(it, false)
		n.Fast = n.Fast && n.Items.Fast
	}
	if e, ok := o.m["enum"].([]any); ok {
		n.Enum, n.HasEnum = plain(e).([]any), true
	}
	if c, ok := o.m["const"]; ok {
		n.Const, n.HasCon = plain(c), true
	}
	n.Min = n.bound(o.m["minimum"])
	n.Max = n.bound(o.m["maximum"])
	n.ExMin = n.bound(o.m["exclusiveMinimum"])
	n.ExMax = n.bound(o.m["exclusiveMaximum"])
	n.MinLen = n.count(o.m["minLength"], 0)
	n.MaxLen = n.count(o.m["maxLength"], -1)
	n.MinItems = n.count(o.m["minItems"], 0)
	n.MaxItems = n.count(o.m["maxItems"], -1)
	n.MinProps = n.count(o.m["minProperties"], 0)
	n.MaxProps = n.count(o.m["maxProperties"], -1)
	if p, ok := o.m["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err != nil {
			n.Fast = false
		}
		n.Pattern = re
	}
}

func (n *Node) addType(t string) {
	b, ok := typeBits[t]
	if !ok {
		n.Fast = false
		return
	}
	n.Types |= b
	n.TypeList = append(n.TypeList, t)
}

func (n *Node) bound(v any) *bound {
	if v == nil {
		return nil
	}
	num, ok := v.(json.Number)
	if !ok {
		n.Fast = false
		return nil
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		n.Fast = false
		return nil
	}
	b := &bound{f: f}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		b.isInt, b.i = true, int64(f)
	}
	return b
}

func (n *Node) count(v any, dflt int) int {
	if v == nil {
		return dflt
	}
	num, ok := v.(json.Number)
	if !ok {
		n.Fast = false
		return dflt
	}
	i, err := strconv.Atoi(string(num))
	if err != nil || i < 0 {
		n.Fast = false
		return dflt
	}
	return i
}

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
	f, err := strconv.ParseFloat(string(x), 64)
	if err != nil {
		return false
	}
	// Correctly rounded parsing is monotonic, so a strict comparison of the
	// rounded values is exact; only equality needs the exact integers.
	if b := n.Min; b != nil && !(f > b.f || (f == b.f && exactAtLeast(x, b))) {
		return false
	}
	if b := n.Max; b != nil && !(f < b.f || (f == b.f && exactAtMost(x, b))) {
		return false
	}
	if b := n.ExMin; b != nil && !(f > b.f) {
		return false
	}
	if b := n.ExMax; b != nil && !(f < b.f) {
		return false
	}
	return true
}

// exactCmp compares x with b exactly when both are integers below 2^53;
// sure is false otherwise, and the caller must leave the value to the
// authority.
func exactCmp(x json.Number, b *bound) (c int, sure bool) {
	if !b.isInt || !isIntLiteral(x) {
		return 0, false
	}
	i, err := strconv.ParseInt(string(x), 10, 64)
	if err != nil || i >= 1<<53 || i <= -(1<<53) {
		return 0, false
	}
	switch {
	case i < b.i:
		return -1, true
	case i > b.i:
		return 1, true
	}
	return 0, true
}

func exactAtLeast(x json.Number, b *bound) bool {
	c, sure := exactCmp(x, b)
	return sure && c >= 0
}

func exactAtMost(x json.Number, b *bound) bool {
	c, sure := exactCmp(x, b)
	return sure && c <= 0
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
