package schema

import (
	"encoding/json"
	"math/big"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// Node is one subschema as the fast path, the walkers and the hint writer
// read it.
//
// Fast reports whether every keyword of the node and of its subschemas is
// one the fast path implements exactly; a node that is not Fast makes the
// fast path answer "unsure" for any value it reaches.
type Node struct {
	// skeletonLeaf is what Skeleton writes for this node when it is not an
	// object: set once per schema, before the first Skeleton reads it.
	// skeletonValue is that text read back as a value (notJSON if it does
	// not read), and skeletonCanon its canonical JSON, to compare it with
	// what was sent.
	skeletonLeaf  string
	skeletonValue any
	skeletonCanon string
	// skeletonKeys are the names of PropOrder as JSON strings, for an
	// object Skeleton writes key by key.
	skeletonKeys []string

	Fast     bool
	Bool     *bool    // a boolean schema (true / false)
	Types    typeSet  // 0: any type
	TypeList []string // as written, for hints

	Props     map[string]*Node
	PropOrder []string
	propIndex map[string]int    // position in PropOrder
	folded    map[string]string // FoldKey of a declared name → the first such name
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
	Pattern *Pattern

	Default    any
	HasDefault bool
	Examples   []any
	Desc       string

	// Applicators that apply to the same value, resolved in the document,
	// for the walkers (declared names, strict-mode nulls) and the analyses.
	// The fast path does not follow them: a node that has any is not Fast.
	Ref               *Node // $ref, when it resolves inside the document
	RefUnresolved     bool  // a $ref or $dynamicRef this package does not follow
	AllOf, AnyOf      []*Node
	OneOf             []*Node
	Not               *Node
	If, Then, Else    *Node
	PrefixItems       []*Node
	DependentSchemas  []*Node
	PatternProps      []*Node
	UnknownApplicator bool // a keyword that applies subschemas this package does not read

	patternKeys []string // the regular expressions of patternProperties
	wholeValue  bool     // a keyword that judges the object or array as a whole (dependentRequired, uniqueItems, …)
	ptr         string
}

// Pointer returns the node's location in the schema document, as a JSON
// pointer ("" for the root).
func (n *Node) Pointer() string { return n.ptr }

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

// bound is a numeric limit: the literal's exact value, and the float64 it
// rounds to, which decides every comparison but equality (see numberOK).
type bound struct {
	exact *big.Rat
	f     float64
	isInt bool  // the exact value is an integer that fits an int64 (for hints)
	i     int64 // that integer
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

// wholeValueKeywords judge an object or an array as a whole, beyond what
// the Node keeps of it: a default filled in may change their verdict.
var wholeValueKeywords = []string{"dependentRequired", "propertyNames", "uniqueItems", "contains", "unevaluatedProperties", "unevaluatedItems"}

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// builder turns a decoded schema document into nodes, one per subschema,
// with $ref resolved inside the document (so a recursive schema gives a
// graph, not an infinite tree).
type builder struct {
	nodes    map[any]*Node // by *object (or the boolean schema's position)
	index    *docIndex
	patterns *patterns
	names    map[string]string // every declared property name, to itself
}

// buildTree returns the root node of doc and the names of the properties
// it declares anywhere.
func buildTree(doc any, pats *patterns) (*Node, map[string]string) {
	b := &builder{nodes: map[any]*Node{}, index: indexDoc(doc), patterns: pats, names: map[string]string{}}
	return b.build(doc, true, ""), b.names
}

func (b *builder) build(v any, root bool, ptr string) *Node {
	o, isObj := v.(*object)
	if isObj {
		if n, ok := b.nodes[o]; ok {
			return n
		}
	}
	n := &Node{Fast: true, MaxProps: -1, MaxItems: -1, MaxLen: -1, ptr: ptr}
	switch x := v.(type) {
	case bool:
		n.Bool = &x
	case *object:
		b.nodes[o] = n
		b.read(n, x, root)
	default:
		n.Fast = false
	}
	return n
}

// Keywords whose values are subschemas applying to the same value, or to
// members the walkers do not follow; a node holding one of the unknown ones
// is read conservatively.
var unknownApplicators = map[string]bool{
	"$dynamicRef": true, "contains": true, "propertyNames": true, "unevaluatedProperties": true,
	"unevaluatedItems": true, "dependencies": true, "additionalItems": true, "$recursiveRef": true,
}

func (b *builder) read(n *Node, o *object, root bool) {
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
			if unknownApplicators[k] {
				n.UnknownApplicator = true
			}
		}
	}
	child := func(key string, v any) *Node { return b.build(v, false, n.ptr+"/"+escape(key)) }
	list := func(key string) []*Node {
		a, _ := o.m[key].([]any)
		var out []*Node
		for i, e := range a {
			out = append(out, b.build(e, false, n.ptr+"/"+key+"/"+strconv.Itoa(i)))
		}
		return out
	}
	if ref, ok := o.m["$ref"].(string); ok {
		if target, ptr, found := b.index.resolve(o, ref); found {
			n.Ref = b.build(target, false, ptr)
		} else {
			n.RefUnresolved = true
		}
	}
	if _, ok := o.m["$dynamicRef"]; ok {
		n.RefUnresolved = true
	}
	n.AllOf, n.AnyOf, n.OneOf, n.PrefixItems = list("allOf"), list("anyOf"), list("oneOf"), list("prefixItems")
	for _, k := range []string{"not", "if", "then", "else"} {
		if v, ok := o.m[k]; ok {
			c := child(k, v)
			switch k {
			case "not":
				n.Not = c
			case "if":
				n.If = c
			case "then":
				n.Then = c
			default:
				n.Else = c
			}
		}
	}
	for _, key := range []string{"dependentSchemas", "patternProperties"} {
		if m, ok := o.m[key].(*object); ok {
			for _, k := range m.keys {
				c := b.build(m.m[k], false, n.ptr+"/"+key+"/"+escape(k))
				if key == "dependentSchemas" {
					n.DependentSchemas = append(n.DependentSchemas, c)
				} else {
					n.PatternProps = append(n.PatternProps, c)
					n.patternKeys = append(n.patternKeys, k)
				}
			}
		}
	}
	for _, k := range wholeValueKeywords {
		if v, ok := o.m[k]; ok && v != false {
			n.wholeValue = true
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
		n.propIndex = make(map[string]int, len(props.keys))
		n.folded = make(map[string]string, len(props.keys))
		for i, k := range props.keys {
			n.propIndex[k] = i
			b.names[k] = k
			if fk := jsonparse.FoldKey(k); k != "" {
				if _, ok := n.folded[fk]; !ok {
					n.folded[fk] = k
				}
			}
			c := b.build(props.m[k], false, n.ptr+"/properties/"+escape(k))
			n.Props[k] = c
			n.Fast = n.Fast && c.Fast
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
		n.Addl = child("additionalProperties", a)
		n.Fast = n.Fast && n.Addl.Fast
	}
	if it, ok := o.m["items"]; ok {
		n.Items = child("items", it)
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
		re, err := b.patterns.compile(p)
		if err != nil {
			n.Fast = false
		} else {
			n.Pattern = &Pattern{re: re, charset: compileCharset(p)}
		}
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

// maxBoundLen bounds the literals the fast path compares exactly; a longer
// one, or one with a larger exponent, leaves the node to the authority.
const (
	maxBoundLen      = 100
	maxBoundExponent = 400
)

func (n *Node) bound(v any) *bound {
	if v == nil {
		return nil
	}
	num, ok := v.(json.Number)
	if !ok || len(num) > maxBoundLen || exponentOf(string(num)) > maxBoundExponent {
		n.Fast = false
		return nil
	}
	exact, ok := new(big.Rat).SetString(string(num))
	if !ok {
		n.Fast = false
		return nil
	}
	f, _ := exact.Float64()
	b := &bound{exact: exact, f: f}
	if exact.IsInt() && exact.Num().IsInt64() {
		b.isInt, b.i = true, exact.Num().Int64()
	}
	return b
}

// exponentOf returns the absolute value of the exponent written in a number
// literal, or 0.
func exponentOf(s string) int {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return 0
	}
	e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
	if err != nil {
		return maxBoundExponent + 1
	}
	return max(e, -e)
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

func escape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// docIndex finds what a $ref names inside the document: resources by their
// $id (resolved against the enclosing base URI), anchors, and JSON pointers.
type docIndex struct {
	bases     map[*object]*url.URL
	resources map[string]any     // absolute URI without fragment → resource root
	anchors   map[string]any     // absolute URI#anchor → subschema
	docPtr    map[*object]string // every subschema's pointer in the document
}

func indexDoc(doc any) *docIndex {
	base, _ := url.Parse(resourceURL)
	ix := &docIndex{bases: map[*object]*url.URL{}, resources: map[string]any{resourceURL: doc}, anchors: map[string]any{},
		docPtr: map[*object]string{}}
	ix.walk(doc, base, "")
	return ix
}

// Keywords whose values are data, not subschemas: their insides hold no
// $id or $anchor.
var dataKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

func (ix *docIndex) walk(v any, base *url.URL, ptr string) {
	switch x := v.(type) {
	case *object:
		if id, ok := x.m["$id"].(string); ok {
			if u, err := base.Parse(id); err == nil {
				u.Fragment, u.RawFragment = "", ""
				base = u
				ix.resources[u.String()] = x
			}
		}
		if a, ok := x.m["$anchor"].(string); ok {
			ix.anchors[base.String()+"#"+a] = x
		}
		ix.bases[x] = base
		ix.docPtr[x] = ptr
		for _, k := range x.keys {
			if !dataKeywords[k] {
				ix.walk(x.m[k], base, ptr+"/"+escape(k))
			}
		}
	case []any:
		for i, e := range x {
			ix.walk(e, base, ptr+"/"+strconv.Itoa(i))
		}
	}
}

// resolve returns the subschema ref names, from the object that holds the
// ref, and its pointer in the document.
func (ix *docIndex) resolve(from *object, ref string) (any, string, bool) {
	base := ix.bases[from]
	if base == nil {
		return nil, "", false
	}
	u, err := base.Parse(ref)
	if err != nil {
		return nil, "", false
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	res, ok := ix.resources[u.String()]
	if !ok {
		return nil, "", false
	}
	if frag == "" {
		return res, ix.pointerOf(res), true
	}
	if !strings.HasPrefix(frag, "/") {
		a, ok := ix.anchors[u.String()+"#"+frag]
		return a, ix.pointerOf(a), ok
	}
	v := res
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case *object:
			e, ok := x.m[tok]
			if !ok {
				return nil, "", false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, "", false
			}
			v = x[i]
		default:
			return nil, "", false
		}
	}
	return v, ix.pointerOf(v), true
}

func (ix *docIndex) pointerOf(v any) string {
	if o, ok := v.(*object); ok {
		return ix.docPtr[o]
	}
	return ""
}
