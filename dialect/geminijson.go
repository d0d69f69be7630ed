package dialect

import (
	"slices"
	"strconv"
	"strings"
)

// The Gemini API's FunctionDeclaration.parametersJsonSchema takes JSON
// Schema, of which it documents a subset. Source: Gemini API,
// "Structured output", section "JSON Schema support"
// (ai.google.dev/gemini-api/docs/structured-output), and the
// FunctionDeclaration reference ("The schema must describe an object where
// the properties are the parameters to the function", with
// additionalProperties, required and propertyOrdering in its example):
//
//   - $id, $defs, $ref, $anchor; type (string, number, integer, boolean,
//     object, array, null, or a list of them); title, description;
//   - properties, required, additionalProperties, propertyOrdering;
//   - items, prefixItems, minItems, maxItems;
//   - enum (of strings and numbers), format, minimum, maximum;
//   - anyOf, and oneOf read as anyOf.
//
// Every other keyword moves to the description.
var geminiJSONKeywords = []string{
	"$id", "$defs", "$ref", "$anchor", "type", "title", "description",
	"properties", "required", "additionalProperties", "propertyOrdering",
	"items", "prefixItems", "minItems", "maxItems",
	"enum", "format", "minimum", "maximum", "anyOf",
}

func convertGeminiJSON(root *node) Converted {
	c := &geminiJSONConv{w: warnings{target: GeminiJSON}}
	in := root.clone()
	if d := in.get("definitions"); d != nil && !in.has("$defs") {
		renameDefinitions(in)
		c.w.add("", "definitions", Rewritten, "$defs, with the references to it")
	}
	out := c.schema(in, "")
	c.danglingRefs(out, out, "", 0)
	return Converted{Target: GeminiJSON, Schema: out.marshal(), Warnings: c.w.list}
}

// danglingRefs removes the references that point nowhere in the converted
// schema (into a keyword that moved to a description, or out of the
// document), moving them to the description too.
func (c *geminiJSONConv) danglingRefs(root, n *node, ptr string, depth int) {
	if depth > maxDepth || n.kind != kObject && n.kind != kArray {
		return
	}
	if ref, ok := n.str("$ref"); ok {
		ck := checker{root: root}
		if _, ok := resolve(root, ref); !ok && !ck.anchor(ref) {
			s := "Must match the schema at " + strconv.Quote(cut(ref, maxNoteJSON)) + "."
			c.w.add(ptr, "$ref", Moved, s)
			n.del("$ref")
			describe(n, s)
		}
	}
	for i, k := range n.keys {
		c.danglingRefs(root, n.vals[i], ptr+"/"+pointerToken(k), depth+1)
	}
	for i, e := range n.arr {
		c.danglingRefs(root, e, ptr+"/"+strconv.Itoa(i), depth+1)
	}
}

type geminiJSONConv struct {
	w warnings
}

// renameDefinitions moves draft-07's definitions to $defs and points every
// reference to it there.
func renameDefinitions(root *node) {
	for i, k := range root.keys {
		if k == "definitions" {
			root.keys[i] = "$defs"
		}
	}
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		if depth > maxDepth {
			return
		}
		for i, k := range n.keys {
			v := n.vals[i]
			if k == "$ref" && v.kind == kString {
				if rest, ok := strings.CutPrefix(v.s, "#/definitions/"); ok {
					v.s = "#/$defs/" + rest
				}
				continue
			}
			walk(v, depth+1)
		}
		for _, e := range n.arr {
			walk(e, depth+1)
		}
	}
	walk(root, 0)
}

// schema converts one subschema. Unlike the other targets it never gives
// up: what the subset lacks moves to the description.
func (c *geminiJSONConv) schema(s *node, ptr string) *node {
	if s.kind == kBool {
		if s.b {
			return newObject()
		}
		out := newObject()
		n := "Accepts no value."
		c.w.add(ptr, "", Moved, n)
		describe(out, n)
		return out
	}
	if s.kind != kObject {
		out := newObject()
		c.w.add(ptr, "", Dropped, "")
		return out
	}
	if s.has("allOf") {
		if m, ok := mergeAllOf(s); ok {
			c.w.add(ptr, "allOf", Rewritten, "merged into the schema that holds it")
			s = m
		}
	}
	types, _ := s.types()
	integer := slices.Contains(types, "integer") && !slices.Contains(types, "number")
	out := newObject()
	var notes []string
	moved := func(k string) {
		n := note(s, k)
		if n == "" {
			c.w.add(ptr, k, Dropped, "")
			return
		}
		c.w.add(ptr, k, Moved, n)
		notes = append(notes, n)
	}
	for i, k := range s.keys {
		v := s.vals[i]
		at := ptr + "/" + pointerToken(k)
		switch k {
		case "type":
			if validTypes(v) {
				out.set(k, v.clone())
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "properties", "$defs":
			if v.kind != kObject {
				c.w.add(ptr, k, Dropped, "")
				continue
			}
			m := newObject()
			for j, name := range v.keys {
				sub := v.vals[j]
				if k == "properties" && sub.kind == kBool && !sub.b {
					n := "Must not have the key " + strconv.Quote(name) + "."
					c.w.add(at+"/"+pointerToken(name), "", Moved, n)
					notes = append(notes, n)
					continue
				}
				m.set(name, c.schema(sub, at+"/"+pointerToken(name)))
			}
			out.set(k, m)
		case "items":
			switch {
			case v.kind == kArray: // draft-07's tuple form
				out.set("prefixItems", c.list(v, at))
				c.w.add(ptr, k, Rewritten, "prefixItems")
			case v.kind == kBool && !v.b:
				out.set("maxItems", newNumber("0"))
				c.w.add(ptr, k, Rewritten, "maxItems 0")
			default:
				out.set(k, c.schema(v, at))
			}
		case "prefixItems":
			if v.kind == kArray {
				out.set(k, c.list(v, at))
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "additionalProperties":
			if v.kind == kBool {
				out.set(k, v.clone())
			} else {
				out.set(k, c.schema(v, at))
			}
		case "anyOf", "oneOf":
			if v.kind != kArray || len(v.arr) == 0 || (k == "oneOf" && s.has("anyOf")) {
				moved(k)
				continue
			}
			out.set("anyOf", c.list(v, at))
			if k == "oneOf" {
				n := note(s, k)
				notes = append(notes, n)
				c.w.add(ptr, k, Rewritten, "anyOf; description: "+strconv.Quote(n))
			}
		case "enum":
			if v.kind == kArray && len(v.arr) > 0 && !slices.ContainsFunc(v.arr, notStringOrNumber) {
				out.set(k, v.clone())
			} else {
				moved(k)
			}
		case "const":
			if !notStringOrNumber(v) {
				out.set("enum", newArray(v.clone()))
				c.w.add(ptr, k, Rewritten, "a one-value enum")
			} else {
				moved(k)
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			inclusive, step := "minimum", 1.0
			if k == "exclusiveMaximum" {
				inclusive, step = "maximum", -1
			}
			if b, ok := nextInteger(v, step); ok && integer && !s.has(inclusive) {
				out.set(inclusive, newNumber(b))
				c.w.add(ptr, k, Rewritten, inclusive+" "+b)
			} else {
				moved(k)
			}
		case "title", "description", "format", "$ref", "$id", "$anchor":
			if v.kind == kString {
				out.set(k, v.clone())
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "required", "propertyOrdering":
			if v.kind == kArray && !slices.ContainsFunc(v.arr, func(e *node) bool { return e.kind != kString }) {
				out.set(k, v.clone())
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "minItems", "maxItems":
			if _, ok := nonNegInt(v); ok {
				out.set(k, v.clone())
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "minimum", "maximum":
			if v.kind == kNumber {
				out.set(k, v.clone())
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		default:
			if annotations[k] || !knownKeywords[k] {
				c.w.add(ptr, k, Dropped, "")
			} else {
				moved(k)
			}
		}
	}
	describe(out, notes...)
	return out
}

func (c *geminiJSONConv) list(v *node, ptr string) *node {
	a := newArray()
	for j, b := range v.arr {
		a.arr = append(a.arr, c.schema(b, ptr+"/"+strconv.Itoa(j)))
	}
	return a
}

func validTypes(v *node) bool {
	switch v.kind {
	case kString:
		return geminiTypes[v.s] != ""
	case kArray:
		return len(v.arr) > 0 && !slices.ContainsFunc(v.arr, func(e *node) bool { return e.kind != kString || geminiTypes[e.s] == "" })
	}
	return false
}

func notStringOrNumber(v *node) bool { return v.kind != kString && v.kind != kNumber }

// nextInteger returns the integer next to an integral bound v, in the
// direction of step, as a JSON number.
func nextInteger(v *node, step float64) (string, bool) {
	if v.kind != kNumber {
		return "", false
	}
	f, err := strconv.ParseFloat(v.s, 64)
	if err != nil || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
		return "", false
	}
	return strconv.FormatFloat(f+step, 'f', -1, 64), true
}
