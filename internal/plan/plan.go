// Package plan decodes a typed tool's arguments straight from their bytes
// into its Go struct, checking the schema's common keywords as it goes, in
// one pass and without building a tree: what a valid call costs, most of
// the time.
//
// A plan may only ever answer "valid, and this is the value": whenever it
// is not sure (a key it does not know, a null, 5.0 for an integer, an
// escape it does not read, a keyword the fast path leaves to the
// authority, a number past the limits) it answers "don't know", and
// preflight takes the slow path, which parses the tree, asks the authority
// and writes the message. When it answers, the value it decoded is the one
// the slow path would have decoded from the same bytes (FuzzPlan checks
// both promises against the slow path).
package plan

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/toolbelt-go/tool/internal/decode"
	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/schema"
)

// Plan decodes one struct type.
type Plan struct {
	obj         *object
	lim         jsonparse.Limits
	maxDefaults int // defaults one call may fill in; 0: any number
}

// LimitDefaults makes Decode unsure (false) of arguments that would have
// more than n defaults filled in: the slow path fills them within its
// budget, or refuses the call.
func (p *Plan) LimitDefaults(n int) { p.maxDefaults = n }

type kind uint8

const (
	kString kind = iota
	kBool
	kInt
	kUint
	kFloat
	kStruct
	kSlice
	kPtr
	kOpaque // a type the plan does not read: the call takes the slow path if it is sent
)

// reader reads one value into a Go value of one type.
type reader struct {
	kind kind
	node *schema.Node // nil: anything is valid here
	bits int
	typ  reflect.Type
	obj  *object // kStruct
	elem *reader // kSlice, kPtr
}

type field struct {
	name     string
	index    []int
	read     reader
	bit      uint64
	def      reflect.Value // the default, decoded; invalid if none
	required bool
}

type object struct {
	node     *schema.Node
	fields   []field
	byName   map[string]int
	required uint64 // bits of the required fields
}

var (
	numberType      = reflect.TypeFor[json.Number]()
	rawType         = reflect.TypeFor[json.RawMessage]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Build returns the plan for the struct type t and the schema root, or nil
// when the schema is not one the fast path reads whole (the slow path then
// takes every call).
func Build(t reflect.Type, root *schema.Node, lim jsonparse.Limits) *Plan {
	if t.Kind() != reflect.Struct || root == nil || !root.Fast {
		return nil
	}
	obj, ok := buildObject(t, root, 0)
	if !ok {
		return nil
	}
	return &Plan{obj: obj, lim: lim}
}

func buildObject(t reflect.Type, n *schema.Node, depth int) (*object, bool) {
	if depth > 16 || !n.AllowsObject() || n.Constrained() || n.MinProps > 0 || n.MaxProps >= 0 || len(n.PropOrder) > 64 {
		return nil, false
	}
	o := &object{node: n, byName: map[string]int{}}
	for i, name := range n.PropOrder {
		index, ft, ok := decode.Field(t, name)
		if !ok || !directPath(t, index) {
			return nil, false
		}
		r, ok := buildReader(ft, n.Props[name], depth)
		if !ok {
			return nil, false
		}
		f := field{name: name, index: index, read: r, bit: 1 << i}
		for _, req := range n.Required {
			if req == name {
				f.required = true
				o.required |= f.bit
			}
		}
		if c := n.Props[name]; c.HasDefault {
			v := reflect.New(ft)
			if decode.Into(v.Interface(), c.Default) != nil || !scalar(ft) {
				return nil, false // a default only the slow path fills
			}
			f.def = v.Elem()
		}
		o.byName[name] = len(o.fields)
		o.fields = append(o.fields, f)
	}
	for _, req := range n.Required {
		if _, ok := o.byName[req]; !ok {
			return nil, false
		}
	}
	return o, true
}

// directPath reports whether the index path crosses no embedded pointer,
// which the plan would have to allocate.
func directPath(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		t = t.Field(i).Type
		if t.Kind() != reflect.Struct {
			return false
		}
	}
	return true
}

// scalar reports whether copying a value of t copies all of it, so a
// default can be assigned to every call without sharing.
func scalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func buildReader(t reflect.Type, n *schema.Node, depth int) (reader, bool) {
	r := reader{node: n, typ: t}
	if n == nil || n.Bool != nil {
		return reader{}, false
	}
	special := t == numberType || t == rawType || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		reflect.PointerTo(t).Implements(textUnmarshaler) || t.Implements(jsonUnmarshaler)
	switch {
	case special:
		r.kind = kOpaque
		return r, true
	}
	switch t.Kind() {
	case reflect.String:
		r.kind = kString
	case reflect.Bool:
		r.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r.kind, r.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		r.kind, r.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		r.kind, r.bits = kFloat, t.Bits()
	case reflect.Struct:
		obj, ok := buildObject(t, n, depth+1)
		if !ok {
			r.kind = kOpaque
			return r, true
		}
		r.kind, r.obj = kStruct, obj
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 || n.Items == nil || !n.AllowsArray() || n.Constrained() {
			r.kind = kOpaque
			return r, true
		}
		e, ok := buildReader(t.Elem(), n.Items, depth+1)
		if !ok || e.kind == kOpaque {
			r.kind = kOpaque
			return r, true
		}
		r.kind, r.elem = kSlice, &e
	case reflect.Pointer:
		e, ok := buildReader(t.Elem(), n, depth+1)
		if !ok || e.kind == kOpaque || e.kind == kPtr {
			r.kind = kOpaque
			return r, true
		}
		r.kind, r.elem = kPtr, &e
	default:
		r.kind = kOpaque // maps, interfaces, arrays: the slow path reads them
	}
	return r, true
}

// Decode reads data into dst, a settable value of the plan's struct type
// holding its zero value, and reports whether it is sure: true means the
// arguments are valid and dst holds exactly what the slow path would give;
// false means nothing (dst must then be thrown away).
func (p *Plan) Decode(data []byte, dst reflect.Value) bool {
	if p.lim.MaxBytes > 0 && len(data) > p.lim.MaxBytes {
		return false
	}
	s := scanner{data: data, lim: p.lim, maxDefaults: p.maxDefaults}
	s.space()
	if !s.readObject(p.obj, dst, 1) {
		return false
	}
	s.space()
	return s.pos == len(data)
}

// readObject reads an object into the struct value v.
func (s *scanner) readObject(o *object, v reflect.Value, depth int) bool {
	if !s.consume('{') || (s.lim.MaxDepth > 0 && depth > s.lim.MaxDepth) {
		return false
	}
	var seen uint64
	s.space()
	if !s.consume('}') {
		members := 0
		for {
			s.space()
			key, ok := s.readString()
			if !ok {
				return false
			}
			i, known := o.byName[key]
			if !known {
				return false // unknown, or folded onto a known key: the slow path says which
			}
			f := &o.fields[i]
			if seen&f.bit != 0 {
				return false // a duplicate key
			}
			seen |= f.bit
			members++
			if s.lim.MaxElements > 0 && members > s.lim.MaxElements {
				return false
			}
			s.space()
			if !s.consume(':') {
				return false
			}
			s.space()
			if !s.readValue(&f.read, v.FieldByIndex(f.index), depth) {
				return false
			}
			s.space()
			if s.consume(',') {
				continue
			}
			if !s.consume('}') {
				return false
			}
			break
		}
	}
	if seen&o.required != o.required {
		return false
	}
	for i := range o.fields {
		f := &o.fields[i]
		if seen&f.bit == 0 && f.def.IsValid() {
			if s.maxDefaults > 0 {
				if s.defaults++; s.defaults > s.maxDefaults {
					return false
				}
			}
			v.FieldByIndex(f.index).Set(f.def)
		}
	}
	return true
}

func (s *scanner) readValue(r *reader, v reflect.Value, depth int) bool {
	switch r.kind {
	case kString:
		str, ok := s.readString()
		if !ok || !r.node.StringOK(str) {
			return false
		}
		v.SetString(str)
	case kBool:
		b, ok := s.readBool()
		if !ok || !r.node.BoolOK(b) {
			return false
		}
		v.SetBool(b)
	case kInt, kUint, kFloat:
		lit, integer, ok := s.readNumber()
		if !ok || !r.node.NumberOK(lit) {
			return false
		}
		return setNumber(r, v, lit, integer)
	case kStruct:
		return s.readObject(r.obj, v, depth+1)
	case kPtr:
		if s.peek() == 'n' {
			return false // null: the slow path decides
		}
		p := reflect.New(r.typ.Elem())
		if !s.readValue(r.elem, p.Elem(), depth) {
			return false
		}
		v.Set(p)
	case kSlice:
		return s.readArray(r, v, depth+1)
	default:
		return false
	}
	return true
}

func setNumber(r *reader, v reflect.Value, lit string, integer bool) bool {
	switch r.kind {
	case kInt:
		if !integer {
			return false // 5.0 or 1e2: the slow path reads them
		}
		i, err := strconv.ParseInt(lit, 10, r.bits)
		if err != nil {
			return false
		}
		v.SetInt(i)
	case kUint:
		if !integer {
			return false
		}
		u, err := strconv.ParseUint(lit, 10, r.bits)
		if err != nil {
			return false
		}
		v.SetUint(u)
	case kFloat:
		f, err := strconv.ParseFloat(lit, r.bits)
		if err != nil {
			return false // out of range, or too small: the slow path's rules
		}
		v.SetFloat(f)
	}
	return true
}

func (s *scanner) readArray(r *reader, v reflect.Value, depth int) bool {
	if !s.consume('[') || (s.lim.MaxDepth > 0 && depth > s.lim.MaxDepth) {
		return false
	}
	n := r.node
	out := reflect.MakeSlice(r.typ, 0, 4)
	s.space()
	if !s.consume(']') {
		for {
			if s.lim.MaxElements > 0 && out.Len() >= s.lim.MaxElements {
				return false
			}
			s.space()
			e := reflect.New(r.typ.Elem()).Elem()
			if !s.readValue(r.elem, e, depth) {
				return false
			}
			out = reflect.Append(out, e)
			s.space()
			if s.consume(',') {
				continue
			}
			if !s.consume(']') {
				return false
			}
			break
		}
	}
	if out.Len() < n.MinItems || n.MaxItems >= 0 && out.Len() > n.MaxItems {
		return false
	}
	v.Set(out)
	return true
}
