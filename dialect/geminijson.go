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
//   - anyOf, and oneOf read as anyOf;
//   - "If $ref is set on a sub-schema, no other properties, except for
//     those starting as a $, may be set": a reference with other keywords
//     beside it is wrapped in an anyOf of one branch, which may hold them;
//   - "Cyclic references are unrolled to a limited degree and, as such,
//     may only be used within non-required properties. (Nullable
//     properties are not sufficient.)": a required property on a cycle is
//     made optional, its requirement said in the description; a cycle
//     through no property at all cannot be sent (Convert's error wraps
//     ErrCannotExpress).
//
// (The same text is google.golang.org/genai's documentation of
// GenerationConfig.ResponseJsonSchema, the same subset.) Integer keywords
// are written as integers, and the root's property names follow the
// Schema object's rule for parameter names, since the model calls the
// function by the same names whichever form describes them.
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
	c.danglingRefs(out)
	c.refSiblings(out)
	if why := c.cycles(out); why != "" {
		return Converted{Target: GeminiJSON, refused: why}
	}
	renamed := renameKeys(out, geminiNames, &c.w, false)
	return Converted{Target: GeminiJSON, Schema: out.marshal(), Warnings: c.w.list, Renamed: renamed}
}

// refSiblings wraps each reference that has keywords beside it (other than
// $-keywords) in an anyOf of one branch, where they may stay.
func (c *geminiJSONConv) refSiblings(root *node) {
	eachSubschema(root, "", 0, func(n *node, ptr string) {
		ref := n.get("$ref")
		if ref == nil || !slices.ContainsFunc(n.keys, func(k string) bool { return !strings.HasPrefix(k, "$") }) {
			return
		}
		n.del("$ref")
		if n.has("anyOf") {
			// Both must hold, which needs an allOf the subset lacks: the
			// reference is said in words.
			describe(n, c.w.moved(nil, ptr, "$ref", "Must also match the schema at "+strconv.Quote(cut(ref.s, maxNoteJSON))+".")...)
			return
		}
		inner := newObject()
		inner.set("$ref", ref)
		n.set("anyOf", newArray(inner))
		c.w.add(ptr, "$ref", Rewritten, "an anyOf of one branch, so the keywords beside it may stay")
	})
}

// danglingRefs removes the references that point nowhere in the converted
// schema (into a keyword that moved to a description, or out of the
// document), moving them to the description too.
func (c *geminiJSONConv) danglingRefs(root *node) {
	ck := checker{root: root}
	eachSubschema(root, "", 0, func(n *node, ptr string) {
		if ref, ok := n.str("$ref"); ok {
			if _, ok := resolve(root, ref); !ok && !ck.anchor(ref) {
				n.del("$ref")
				describe(n, c.w.moved(nil, ptr, "$ref", "Must match the schema at "+strconv.Quote(cut(ref, maxNoteJSON))+".")...)
			}
		}
	})
}

type geminiJSONConv struct {
	w warnings
}

// maxCycleSteps bounds the walk that looks for cycles through required
// properties: each path from the root is walked, which real schemas keep
// small; past the bound the walk stops looking.
const maxCycleSteps = 100_000

// cycles makes every reference cycle of the converted schema pass through
// a property that is not required, as Gemini wants: where a cycle passes
// only through required ones, the one nearest the reference is made
// optional and its requirement said in its object's description. It
// returns why the schema cannot be sent when a cycle passes through no
// property at all.
func (c *geminiJSONConv) cycles(root *node) string {
	type edge struct {
		obj      *node // the object schema whose property this is
		name     string
		ptr      string
		optional bool
	}
	var (
		edges  []edge
		frames = map[*node]int{} // schemas entered by a reference, and len(edges) then
		steps  int
		why    string
	)
	var walk func(s *node, ptr string, depth int)
	walk = func(s *node, ptr string, depth int) {
		if why != "" || s == nil || s.kind != kObject || depth > maxDepth {
			return
		}
		if steps++; steps > maxCycleSteps {
			return
		}
		if ref, ok := s.str("$ref"); ok {
			target, ok := resolve(root, ref)
			if !ok || target.kind != kObject {
				return
			}
			if at, open := frames[target]; open {
				last := -1
				for i := at; i < len(edges); i++ {
					if edges[i].optional {
						return // the cycle may end there
					}
					last = i
				}
				if last < 0 {
					why = "its reference at " + strconv.Quote(ptr) + " leads back to itself through no property, which Gemini cannot unroll"
					return
				}
				e := &edges[last]
				e.optional = true
				req := e.obj.get("required")
				kept := newArray()
				for _, r := range req.arr {
					if r.kind != kString || r.s != e.name {
						kept.arr = append(kept.arr, r)
					}
				}
				if len(kept.arr) == 0 {
					e.obj.del("required")
				} else {
					e.obj.set("required", kept)
				}
				// Gemini refuses a required key on a recursive path: the
				// one that closes the cycle is said in words.
				describe(e.obj, c.w.moved(nil, e.ptr, "required", "Must also have the key "+strconv.Quote(e.name)+".")...)
				return
			}
			frames[target] = len(edges)
			walk(target, strings.TrimPrefix(ref, "#"), depth+1)
			delete(frames, target)
		}
		if p := s.get("properties"); p != nil && p.kind == kObject {
			req := stringList(s.get("required"))
			for i, name := range p.keys {
				edges = append(edges, edge{obj: s, name: name, ptr: ptr, optional: !slices.Contains(req, name)})
				walk(p.vals[i], ptr+"/properties/"+pointerToken(name), depth+1)
				edges = edges[:len(edges)-1]
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			walk(s.get(k), ptr+"/"+k, depth+1)
		}
		for _, k := range []string{"anyOf", "prefixItems", "allOf"} {
			if a := s.get(k); a != nil && a.kind == kArray {
				for i, b := range a.arr {
					walk(b, ptr+"/"+k+"/"+strconv.Itoa(i), depth+1)
				}
			}
		}
	}
	frames[root] = 0
	walk(root, "", 0)
	return why
}

// renameDefinitions moves draft-07's definitions to $defs and points every
// reference to it there.
func renameDefinitions(root *node) {
	for i, k := range root.keys {
		if k == "definitions" {
			root.keys[i] = "$defs"
		}
	}
	root.idx = nil
	eachSubschema(root, "", 0, func(n *node, _ string) {
		if v := n.get("$ref"); v != nil && v.kind == kString {
			if rest, ok := strings.CutPrefix(v.s, "#/definitions/"); ok {
				v.s = "#/$defs/" + rest
			}
		}
	})
}

// schema converts one subschema. Unlike the other targets it never gives
// up: what the subset lacks moves to the description.
func (c *geminiJSONConv) schema(s *node, ptr string) *node {
	if s.kind == kBool {
		if s.b {
			return newObject()
		}
		out := newObject()
		describe(out, c.w.moved(nil, ptr, "", "Accepts no value.")...)
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
		notes = c.w.moved(notes, ptr, k, n)
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
					notes = c.w.moved(notes, at+"/"+pointerToken(name), "", "Must not have the key "+strconv.Quote(name)+".")
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
				// no items past those prefixItems lists, if any
				n := int64(0)
				if p := s.get("prefixItems"); p != nil && p.kind == kArray {
					n = int64(len(p.arr))
				}
				if m, ok := nonNegInt(s.get("maxItems")); ok && m < n {
					n = m
				}
				out.set("maxItems", newNumber(strconv.FormatInt(n, 10)))
				c.w.add(ptr, k, Rewritten, "maxItems "+strconv.FormatInt(n, 10))
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
			switch n, ok := nonNegInt(v); {
			case !ok:
				c.w.add(ptr, k, Dropped, "")
			case k == "maxItems" && out.has("maxItems"): // set by items: false, no larger
			default:
				out.set(k, newNumber(strconv.FormatInt(n, 10)))
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
