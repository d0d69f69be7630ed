package dialect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// OpenAI's strict mode (Structured Outputs) accepts a documented subset of
// JSON Schema. Source: OpenAI, "Structured Outputs", section "Supported
// schemas" (developers.openai.com/api/docs/guides/structured-outputs),
// which function calling with "strict": true uses:
//
//   - types: string, number, boolean, integer, object, array, enum, anyOf;
//     a union with null for an optional value ("type": ["string", "null"]);
//   - the root must be an object and must not be anyOf; and, as for every
//     function's parameters (openai.go), it has no enum or const;
//   - every object lists all its properties in required and has
//     "additionalProperties": false;
//   - string keywords: pattern, format (date-time, time, date, duration,
//     email, hostname, ipv4, ipv6, uuid); number keywords: multipleOf,
//     maximum, exclusiveMaximum, minimum, exclusiveMinimum; array keywords:
//     minItems, maxItems;
//   - definitions ($defs) and references to them, recursion through "#";
//     a $ref has no sibling keywords;
//   - not supported: allOf, not, dependentRequired, dependentSchemas, if,
//     then, else (composition), and every keyword not listed (minLength,
//     maxLength, default, examples, uniqueItems, patternProperties, …),
//     which the API refuses ("'default' is not permitted");
//   - limits: 5,000 object properties in all, 10 levels of nesting,
//     120,000 characters of property names, definition names, enum values
//     and const values, 1,000 enum values, and 15,000 characters for one
//     string enum of more than 250 values.
var (
	strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
	strictTypes   = []string{"string", "number", "boolean", "integer", "object", "array", "null"}
)

const (
	strictMaxProps      = 5000
	strictMaxDepth      = 10
	strictMaxStringLen  = 120_000
	strictMaxEnumValues = 1000
	strictBigEnum       = 250
	strictBigEnumLen    = 15_000
	// maxOutputNodes bounds the work of inlining references: a schema whose
	// definitions refer to each other many times over could otherwise grow
	// exponentially.
	maxOutputNodes = 20_000
)

// A flavor is what one provider's strict mode accepts: OpenAI's (above) or
// Anthropic's (anthropicstrict.go). The conversion is the same walk.
type flavor struct {
	target  Target
	formats []string
	// keep reports whether keyword k, with value v, stays as it is; a
	// keyword it refuses moves to the description. It is asked about the
	// keywords both strict modes know the same way: formats, patterns,
	// number bounds, item counts, enums and consts.
	keep func(k string, v *node) bool
	// allRequired: every key is required, and an optional one becomes
	// nullable, null meaning absent (OpenAI).
	allRequired bool
	// recursion: references may lead back to themselves (OpenAI).
	recursion bool
	// limits: OpenAI's limits on depth and size apply.
	limits bool
	// rootRule says why a root anyOf or oneOf cannot stay.
	rootRule string
	// rootRefused are keywords the provider refuses at the root of a
	// function's parameters whatever the mode; they move to the
	// description there.
	rootRefused []string
}

var openAIStrict = flavor{
	target:  OpenAIStrict,
	formats: strictFormats,
	keep: func(k string, v *node) bool {
		switch k {
		case "pattern":
			return v.kind == kString
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			return v.kind == kNumber
		case "minItems", "maxItems":
			_, ok := nonNegInt(v)
			return ok
		case "enum", "const":
			return true
		}
		return false
	},
	allRequired: true,
	recursion:   true,
	limits:      true,
	rootRule:    "and OpenAI wants a plain object at the root",
	// The API's rule for every function's parameters, strict or not
	// (openai.go): no enum or const at the top level either.
	rootRefused: openAIRoot,
}

type strictConv struct {
	flavor
	root    *node
	w       warnings
	failPtr string
	failWhy string

	props, enumValues, stringLen, nodes int
	needed                              []defRef // definitions referred to, in the order met
	inlining                            []string // references being inlined, to stop at a cycle
}

// defRef names a definition of the root: its keyword ("$defs" or draft-07's
// "definitions") and its name.
type defRef struct{ key, name string }

func convertStrict(root *node) Converted {
	return strictConvert(root, openAIStrict, nil)
}

// strictConvert converts root for a strict flavor; finish, if set, checks
// and completes the converted schema (it may call fail).
func strictConvert(root *node, f flavor, finish func(c *strictConv, out *node)) Converted {
	c := &strictConv{flavor: f, root: root, w: warnings{target: f.target}}
	out := c.schema(root, "", 0, true)
	c.defs(out)
	if c.failWhy == "" && f.limits {
		c.checkLimits()
	}
	if c.failWhy == "" && finish != nil {
		finish(c, out)
	}
	if c.failWhy != "" {
		return fallback(root, f.target, c.failPtr, c.failWhy)
	}
	return Converted{Target: f.target, Schema: out.marshal(), Warnings: c.w.list}
}

func (c *strictConv) fail(ptr, format string, args ...any) {
	if c.failWhy == "" {
		c.failPtr, c.failWhy = ptr, fmt.Sprintf(format, args...)
	}
}

// schema converts one subschema. depth counts the objects around it.
func (c *strictConv) schema(s *node, ptr string, depth int, root bool) *node {
	if c.failWhy != "" {
		return s
	}
	if c.nodes++; c.nodes > maxOutputNodes {
		c.fail(ptr, "the schema is too large once its references are inlined")
		return s
	}
	switch {
	case s.kind == kBool && s.b:
		c.fail(ptr, "it accepts a value of any type, and strict mode needs a type for every value")
		return s
	case s.kind == kBool:
		c.fail(ptr, "it accepts no value at all, which strict mode cannot express")
		return s
	case s.kind != kObject:
		c.fail(ptr, "it is not a schema")
		return s
	}
	if s.has("allOf") {
		m, ok := mergeAllOf(s)
		if !ok {
			c.fail(ptr, "its allOf cannot be merged into one schema, and strict mode has no allOf")
			return s
		}
		c.w.add(ptr, "allOf", Rewritten, "merged into the schema that holds it")
		s = m
	}
	if ref, ok := s.str("$ref"); ok {
		return c.ref(s, ref, ptr, depth, root)
	}
	types, typed := s.types()
	if typed && len(types) == 0 {
		c.fail(ptr+"/type", "its type is not a name or a list of names")
		return s
	}
	var nonNull []string
	for _, t := range types {
		if !slices.Contains(strictTypes, t) {
			c.fail(ptr, "its type %q is not a JSON type", t)
			return s
		}
		if t != "null" {
			nonNull = append(nonNull, t)
		}
	}
	if len(nonNull) > 1 {
		split, ok := splitTypes(s, types)
		if !ok {
			c.fail(ptr, "it is a union of types and already has an anyOf or oneOf")
			return s
		}
		c.w.add(ptr, "type", Rewritten, "one anyOf branch per type")
		return c.schema(split, ptr, depth, root)
	}
	kind := ""
	if len(nonNull) == 1 {
		kind = nonNull[0]
	}
	out := newObject()
	if !typed {
		if kind = inferType(s); kind != "" && !s.has("anyOf") && !s.has("oneOf") {
			out.set("type", newString(kind))
			c.w.add(ptr, "type", Rewritten, `added "`+kind+`", which its other keywords imply`)
		} else if !s.has("anyOf") && !s.has("oneOf") && !c.keptValues(s) {
			c.fail(ptr, "it accepts a value of any type, and strict mode needs a type for every value")
			return s
		}
	}
	if kind == "object" {
		depth++
		if c.limits && depth > strictMaxDepth {
			c.fail(ptr, "objects nest more than %d levels deep, OpenAI's limit", strictMaxDepth)
			return s
		}
	}
	var notes []string
	for i, k := range s.keys {
		v := s.vals[i]
		at := ptr + "/" + pointerToken(k)
		switch k {
		case "type":
			out.set(k, v.clone())
		case "title", "description":
			if v.kind == kString {
				out.set(k, v.clone())
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "properties", "required", "additionalProperties", "patternProperties":
			if kind != "object" {
				c.w.add(ptr, k, Dropped, "") // applies to objects only
			} // else the object part, below
		case "items":
			switch {
			case kind != "array" && kind != "":
				c.w.add(ptr, k, Dropped, "") // applies to arrays only
			case v.kind == kArray:
				c.fail(at, "it is a tuple (an items array), which strict mode cannot express")
				return s
			default:
				out.set(k, c.schema(v, at, depth, false))
			}
		case "prefixItems":
			c.fail(at, "it is a tuple (prefixItems), which strict mode cannot express")
			return s
		case "enum", "const":
			if root && slices.Contains(c.rootRefused, k) {
				notes = c.moved(notes, s, ptr, k)
				continue
			}
			if k == "const" {
				if !c.keep(k, v) {
					notes = c.moved(notes, s, ptr, k)
					continue
				}
				c.countString(v)
				out.set(k, v.clone())
				continue
			}
			if v.kind != kArray || len(v.arr) == 0 {
				c.fail(at, "its enum is not a list of values")
				return s
			}
			if !c.keep(k, v) {
				notes = c.moved(notes, s, ptr, k)
				continue
			}
			c.countEnum(v, at)
			out.set(k, v.clone())
		case "anyOf", "oneOf":
			if v.kind != kArray || len(v.arr) == 0 {
				c.fail(at, "its %s is not a list of schemas", k)
				return s
			}
			if k == "oneOf" && s.has("anyOf") {
				c.fail(at, "it has both anyOf and oneOf")
				return s
			}
			if root {
				c.fail(at, "its root has %s, %s", k, c.rootRule)
				return s
			}
			branches := newArray()
			for j, b := range v.arr {
				branches.arr = append(branches.arr, c.schema(b, at+"/"+strconv.Itoa(j), depth, false))
			}
			out.set("anyOf", branches)
			if k == "oneOf" {
				n := note(s, k)
				notes = append(notes, n)
				c.w.add(ptr, k, Rewritten, "anyOf; description: "+strconv.Quote(n))
			}
		case "$defs", "definitions":
			if !root || v.kind != kObject {
				c.w.add(ptr, k, Dropped, "")
			} // the root's are converted when referred to, after the root
		case "format":
			if v.kind == kString && slices.Contains(c.formats, v.s) {
				out.set(k, v.clone())
			} else {
				notes = c.moved(notes, s, ptr, k)
			}
		case "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems":
			if c.keep(k, v) {
				out.set(k, v.clone())
			} else {
				notes = c.moved(notes, s, ptr, k)
			}
		case "$dynamicRef":
			c.fail(at, "it uses $dynamicRef, which strict mode cannot express")
			return s
		default:
			if annotations[k] || !knownKeywords[k] {
				c.w.add(ptr, k, Dropped, "")
			} else {
				notes = c.moved(notes, s, ptr, k)
			}
		}
	}
	if kind == "object" && !c.object(s, out, ptr, depth) {
		return s
	}
	if kind == "array" && !s.has("items") {
		c.fail(ptr, "it is an array of values of any type, and strict mode needs a type for every value")
		return s
	}
	describe(out, notes...)
	return out
}

// keptValues reports whether s lists its values (an enum or a const the
// flavor keeps), which then stand for a type.
func (c *strictConv) keptValues(s *node) bool {
	for _, k := range []string{"enum", "const"} {
		if v := s.get(k); v != nil && c.keep(k, v) {
			return true
		}
	}
	return false
}

// moved drops keyword k of s and returns notes with the sentence that says
// it.
func (c *strictConv) moved(notes []string, s *node, ptr, k string) []string {
	n := note(s, k)
	if n == "" {
		c.w.add(ptr, k, Dropped, "")
		return notes
	}
	return c.w.moved(notes, ptr, k, n)
}

// object converts the object keywords of s into out: every property
// required, the optional ones nullable, no other keys.
func (c *strictConv) object(s, out *node, ptr string, depth int) bool {
	props := s.get("properties")
	if props != nil && props.kind != kObject {
		c.fail(ptr+"/properties", "its properties are not an object")
		return false
	}
	if pp := s.get("patternProperties"); pp != nil && (pp.kind != kObject || len(pp.keys) > 0) {
		c.fail(ptr+"/patternProperties", "it takes keys by pattern, and strict mode needs every key declared")
		return false
	}
	addl := s.get("additionalProperties")
	closed := addl != nil && addl.kind == kBool && !addl.b
	switch {
	case closed:
	case addl != nil && addl.kind == kObject && len(addl.keys) > 0:
		c.fail(ptr, "it is a map with keys of its own (additionalProperties is a schema), and strict mode needs every key declared")
		return false
	case props == nil || len(props.keys) == 0:
		c.fail(ptr, "it is a free-form object (no declared properties), and strict mode needs every key declared")
		return false
	}
	required := stringList(s.get("required"))
	isRequired := make(map[string]bool, len(required))
	for _, r := range required {
		isRequired[r] = true
	}
	outProps := newObject()
	var names, optional []string
	if props != nil {
		for i, name := range props.keys {
			at := ptr + "/properties/" + pointerToken(name)
			c.props++
			c.stringLen += len(name)
			child := c.schema(props.vals[i], at, depth, false)
			if c.failWhy != "" {
				return false
			}
			if c.allRequired && !isRequired[name] && !acceptsNull(child) {
				child = nullable(child)
				optional = append(optional, name)
			}
			outProps.set(name, child)
			names = append(names, name)
		}
	}
	for _, r := range required {
		if outProps.get(r) == nil {
			c.fail(ptr+"/required", "the required key %q is not a declared property", r)
			return false
		}
	}
	if !closed {
		c.w.addSeverity(Notice, ptr, "additionalProperties", Rewritten, "false: keys that are not declared are not offered to the model")
	}
	if len(optional) > 0 {
		c.w.add(ptr, "required", Rewritten, "optional keys made required and nullable (null means absent): "+strings.Join(optional, ", "))
	}
	if !out.has("type") {
		out.set("type", newString("object"))
	}
	out.set("properties", outProps)
	if c.allRequired {
		out.set("required", stringArray(names))
	} else if len(required) > 0 {
		out.set("required", stringArray(required))
	}
	out.set("additionalProperties", newBool(false))
	return true
}

// nullable lets a converted subschema also be null, as strict mode wants
// of a key the tool does not require: the model sends null, and the
// registry reads it as absent (tool.Request.NullMeansAbsent).
func nullable(s *node) *node {
	null := &node{kind: kNull}
	if t := s.get("type"); t != nil {
		switch t.kind {
		case kString:
			s.set("type", newArray(newString(t.s), newString("null")))
		case kArray:
			t.arr = append(t.arr, newString("null"))
		}
		if e := s.get("enum"); e != nil && e.kind == kArray {
			e.arr = append(e.arr, null)
		}
		if k := s.get("const"); k != nil {
			s.set("enum", newArray(k, null))
			s.del("const")
		}
		return s
	}
	if e := s.get("enum"); e != nil && e.kind == kArray {
		e.arr = append(e.arr, null)
		return s
	}
	if a := s.get("anyOf"); a != nil && a.kind == kArray {
		a.arr = append(a.arr, typeNull())
		return s
	}
	if k := s.get("const"); k != nil {
		s.set("enum", newArray(k, null))
		s.del("const")
		return s
	}
	w := newObject() // a bare $ref
	w.set("anyOf", newArray(s, typeNull()))
	return w
}

func typeNull() *node {
	n := newObject()
	n.set("type", newString("null"))
	return n
}

// ref converts a subschema with a $ref. A bare reference to a definition or
// to the root stays (strict mode supports both, recursion included); one
// with sibling keywords, which strict mode refuses, is replaced by its
// target with the siblings merged in; a cycle through siblings is wrapped
// in an anyOf, where the siblings may sit.
func (c *strictConv) ref(s *node, ref, ptr string, depth int, root bool) *node {
	target, ok := resolve(c.root, ref)
	if !ok {
		c.fail(ptr+"/$ref", "its $ref %q does not point into this schema", ref)
		return s
	}
	def, isDef := c.defName(ref)
	bare := len(s.keys) == 1
	if bare && !root && (ref == "#" || isDef) {
		if ref == "#" && !c.recursion {
			c.fail(ptr+"/$ref", "it refers back to the root, and strict tool use does not support recursive schemas")
			return s
		}
		c.need(def, isDef)
		return s.clone()
	}
	if slices.Contains(c.inlining, ref) {
		if !c.recursion {
			c.fail(ptr+"/$ref", "it is recursive (through %q), and strict tool use does not support recursive schemas", ref)
			return s
		}
		if ref != "#" && !isDef {
			c.fail(ptr+"/$ref", "its $ref %q is recursive and does not point to a definition", ref)
			return s
		}
		c.need(def, isDef)
		siblings := s.clone()
		siblings.del("$ref")
		inner := newObject()
		inner.set("$ref", newString(ref))
		siblings.set("anyOf", newArray(inner))
		c.w.add(ptr, "$ref", Rewritten, "wrapped in an anyOf, so its sibling keywords can stay")
		return c.schema(siblings, ptr, depth, root)
	}
	if len(c.inlining) >= maxDepth {
		c.fail(ptr, "its references nest too deep")
		return s
	}
	merged := target.clone()
	if merged.kind == kBool {
		if merged.b {
			merged = newObject()
		} else {
			c.fail(ptr, "its $ref points to false, which accepts no value")
			return s
		}
	}
	for i, k := range s.keys {
		if k != "$ref" {
			merged.set(k, s.vals[i].clone())
		}
	}
	c.w.add(ptr, "$ref", Rewritten, "inlined "+ref)
	c.inlining = append(c.inlining, ref)
	out := c.schema(merged, ptr, depth, root)
	c.inlining = c.inlining[:len(c.inlining)-1]
	return out
}

func (c *strictConv) need(d defRef, isDef bool) {
	if isDef && !slices.Contains(c.needed, d) {
		c.needed = append(c.needed, d)
	}
}

// defName returns the definition a reference names, if it is
// "#/$defs/<name>" (or "#/definitions/<name>") of the root.
func (c *strictConv) defName(ref string) (defRef, bool) {
	return rootDef(c.root, ref)
}

func rootDef(root *node, ref string) (defRef, bool) {
	for _, key := range []string{"$defs", "definitions"} {
		name, ok := strings.CutPrefix(ref, "#/"+key+"/")
		if !ok || strings.Contains(name, "/") {
			continue
		}
		name = unescapeToken(name)
		if defs := root.get(key); defs != nil && defs.kind == kObject && defs.get(name) != nil {
			return defRef{key, name}, true
		}
	}
	return defRef{}, false
}

// defs converts the definitions the schema refers to (and those they refer
// to) into out, in their original order, under their original keyword.
func (c *strictConv) defs(out *node) {
	if len(c.needed) == 0 || c.failWhy != "" || out.kind != kObject {
		return
	}
	conv := map[defRef]*node{}
	for i := 0; i < len(c.needed) && c.failWhy == ""; i++ {
		d := c.needed[i]
		c.stringLen += len(d.name)
		conv[d] = c.schema(c.root.get(d.key).get(d.name), "/"+d.key+"/"+pointerToken(d.name), 0, false)
	}
	for _, key := range []string{"$defs", "definitions"} {
		src := c.root.get(key)
		if src == nil || src.kind != kObject {
			continue
		}
		defs := newObject()
		for _, name := range src.keys {
			if v, ok := conv[defRef{key, name}]; ok {
				defs.set(name, v)
			}
		}
		if len(defs.keys) > 0 {
			out.set(key, defs)
		}
	}
}

func (c *strictConv) countString(v *node) {
	if v.kind == kString {
		c.stringLen += len(v.s)
	}
}

func (c *strictConv) countEnum(v *node, ptr string) {
	c.enumValues += len(v.arr)
	total, strs := 0, 0
	for _, e := range v.arr {
		if e.kind == kString {
			total += len(e.s)
			strs++
		}
	}
	c.stringLen += total
	if strs > strictBigEnum && total > strictBigEnumLen {
		c.fail(ptr, "its enum has %d values of %d characters in all; OpenAI allows %d characters for an enum of more than %d values", strs, total, strictBigEnumLen, strictBigEnum)
	}
}

func (c *strictConv) checkLimits() {
	switch {
	case c.props > strictMaxProps:
		c.fail("", "it has %d properties in all; OpenAI allows %d", c.props, strictMaxProps)
	case c.enumValues > strictMaxEnumValues:
		c.fail("", "it has %d enum values in all; OpenAI allows %d", c.enumValues, strictMaxEnumValues)
	case c.stringLen > strictMaxStringLen:
		c.fail("", "its property names, definition names, enum and const values add up to %d characters; OpenAI allows %d", c.stringLen, strictMaxStringLen)
	}
}
