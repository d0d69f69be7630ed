package dialect

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/toolbelt-go/tool"
)

// Request turns one call of the model into a request for the registry:
// the tool's own name for the name the provider was sent, the property
// names the provider was sent under put back, and NullMeansAbsent set for
// a tool sent in OpenAI's strict form, whose optional keys the model
// sends as null. A call to a name that was not sent keeps its name: the
// registry answers that there is no such tool. The arguments are
// otherwise handed on as they are; the registry checks them.
func (x *Exporter) Request(id, name string, args json.RawMessage) tool.Request {
	x.mu.Lock()
	x.refresh()
	c := x.sent[name]
	x.mu.Unlock()
	req := tool.Request{ID: id, Name: name, Args: args}
	if c == nil {
		return req
	}
	req.Name = c.def.Name
	conv := c.use
	req.NullMeansAbsent = conv.c.Target == OpenAIStrict
	if conv.c.Renamed != nil {
		req.Args = restoreKeys(conv.schemaNode(), conv.c.Renamed, args)
	}
	return req
}

// SentName returns the name the provider is sent for the tool named name
// in the registry: name itself, unless the provider refuses it. A
// provider that answers a call by the function's name (Gemini's
// FunctionResponse) wants this one.
func (x *Exporter) SentName(name string) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.refresh()
	if c := x.cache[name]; c != nil && c.name != "" {
		return c.name
	}
	return name
}

// restoreKeys gives the keys of args that schema declares under a name in
// renamed (as sent → as declared) their declared names again. Arguments
// that are not JSON are returned as they are, for the registry to refuse.
func restoreKeys(schema *node, renamed map[string]string, args json.RawMessage) json.RawMessage {
	v, err := parse(args)
	if err != nil || schema == nil {
		return args
	}
	if !restore(schema, []*node{schema}, renamed, v, 0) {
		return args
	}
	return v.marshal()
}

// maxApplicable bounds the subschemas gathered for one value (through
// $ref, allOf, anyOf, oneOf, if/then/else).
const maxApplicable = 64

// applicable returns the subschemas of root that apply to the value nodes
// apply to, each once.
func applicable(root *node, nodes []*node) []*node {
	out := make([]*node, 0, len(nodes))
	add := func(n *node) {
		if n != nil && n.kind == kObject && len(out) < maxApplicable && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, n := range nodes {
		add(n)
	}
	for i := 0; i < len(out); i++ {
		s := out[i]
		if ref, ok := s.str("$ref"); ok {
			if t, ok := resolve(root, ref); ok {
				add(t)
			}
		}
		for _, k := range []string{"then", "else"} {
			add(s.get(k))
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if a := s.get(k); a != nil && a.kind == kArray {
				for _, b := range a.arr {
					add(b)
				}
			}
		}
		if d := s.get("dependentSchemas"); d != nil && d.kind == kObject {
			for _, b := range d.vals {
				add(b)
			}
		}
	}
	return out
}

// memberSchemas returns the subschemas of schemas that apply to member k
// of an object: its declared property, else additionalProperties; and
// whether some schema declares k.
func memberSchemas(schemas []*node, k string) (out []*node, declared bool) {
	for _, s := range schemas {
		if p := s.get("properties"); p != nil && p.get(k) != nil {
			declared = true
			out = append(out, p.get(k))
		} else if a := s.get("additionalProperties"); a != nil && a.kind == kObject {
			out = append(out, a)
		}
	}
	return out, declared
}

// itemSchemas returns the subschemas of schemas that apply to item i of an
// array: prefixItems, else items.
func itemSchemas(schemas []*node, i int) (out []*node) {
	for _, s := range schemas {
		if p := s.get("prefixItems"); p != nil && p.kind == kArray && i < len(p.arr) {
			out = append(out, p.arr[i])
		} else if it := s.get("items"); it != nil && it.kind == kObject {
			out = append(out, it)
		}
	}
	return out
}

// restore renames, in v, the keys declared under a new name wherever
// schemas apply, and reports whether it changed anything.
func restore(root *node, schemas []*node, renamed map[string]string, v *node, depth int) bool {
	if depth > maxDepth || len(schemas) == 0 {
		return false
	}
	schemas = applicable(root, schemas)
	changed := false
	switch v.kind {
	case kObject:
		for i, k := range v.keys {
			child, declared := memberSchemas(schemas, k)
			if restore(root, child, renamed, v.vals[i], depth+1) {
				changed = true
			}
			if to, ok := renamed[k]; ok && declared {
				v.keys[i] = to
				changed = true
			}
		}
		v.idx = nil
	case kArray:
		for i, e := range v.arr {
			if restore(root, itemSchemas(schemas, i), renamed, e, depth+1) {
				changed = true
			}
		}
	}
	return changed
}

// CheckPrecision reports whether the arguments of req, which came through
// a provider that carries numbers as 64-bit floats (Gemini's API does),
// may hold an integer other than the one the model wrote: a number of
// magnitude 2^53 or more, where every float is an integer but not every
// integer a float, at a place the tool's schema takes an integer. The
// error says where; the call should then be answered with it rather than
// run, since the tool would be handed a number the model did not send.
// req is a request Request made, with the tool's own names.
func (x *Exporter) CheckPrecision(req tool.Request) error {
	if !mayHoldLarge(req.Args) {
		return nil // the common case, at the cost of one pass over the bytes
	}
	x.mu.Lock()
	x.refresh()
	c := x.cache[req.Name]
	x.mu.Unlock()
	if c == nil {
		return nil
	}
	schema, err := parse(c.def.InputSchema)
	if err != nil {
		return nil
	}
	v, err := parse(req.Args)
	if err != nil {
		return nil
	}
	if ptr, lit, ok := inexact(schema, []*node{schema}, v, "", 0); ok {
		where := ptr
		if where == "" {
			where = "the top level"
		}
		return fmt.Errorf("the integer %s at %s may not be the one you wrote: numbers reach this tool as 64-bit floats, which hold integers exactly only up to 2^53 (9007199254740992); the call did not run. Send a smaller number if that is what you meant, or ask the user how to pass this one", lit, where)
	}
	return nil
}

// mayHoldLarge reports whether the JSON document b may hold a number of
// magnitude 2^53 or more: one whose integer part has 16 digits or more
// (2^53 has 16, and JSON allows no leading zeros), or one with an
// exponent. It looks at the bytes alone, strings included, so it may say
// yes where there is no such number, never no where there is one.
func mayHoldLarge(b []byte) bool {
	run := 0 // digits in a row
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if run++; run >= 16 {
				return true
			}
		case (c == 'e' || c == 'E') && run > 0:
			return true // an exponent (after a fraction's digits too)
		default:
			run = 0
		}
	}
	return false
}

// inexact finds a number of magnitude 2^53 or more where the schemas take
// an integer and no other kind of number.
func inexact(root *node, schemas []*node, v *node, ptr string, depth int) (string, string, bool) {
	if depth > maxDepth {
		return "", "", false
	}
	schemas = applicable(root, schemas)
	switch v.kind {
	case kNumber:
		f, err := strconv.ParseFloat(v.s, 64)
		if err == nil && math.Abs(f) < 1<<53 {
			return "", "", false
		}
		integer := false
		for _, s := range schemas {
			types, _ := s.types()
			if slices.Contains(types, "number") {
				return "", "", false
			}
			integer = integer || slices.Contains(types, "integer")
		}
		return ptr, v.s, integer
	case kObject:
		for i, k := range v.keys {
			child, _ := memberSchemas(schemas, k)
			if p, lit, ok := inexact(root, child, v.vals[i], ptr+"/"+pointerToken(k), depth+1); ok {
				return p, lit, true
			}
		}
	case kArray:
		for i, e := range v.arr {
			if p, lit, ok := inexact(root, itemSchemas(schemas, i), e, ptr+"/"+strconv.Itoa(i), depth+1); ok {
				return p, lit, true
			}
		}
	}
	return "", "", false
}
