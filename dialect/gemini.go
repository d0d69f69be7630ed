package dialect

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The Gemini API's FunctionDeclaration.parameters is a Schema object: "a
// select subset of an OpenAPI 3.0 schema object". Sources: Gemini API
// reference, "Schema" and "FunctionDeclaration"
// (ai.google.dev/api/caching#Schema), and google.golang.org/genai's Schema
// type, whose JSON form this target produces:
//
//   - fields: type, format, title, description, nullable, enum, maxItems,
//     minItems, properties, required, minProperties, maxProperties,
//     minLength, maxLength, pattern, example, anyOf, propertyOrdering,
//     default, items, minimum, maximum; nothing else (no $ref, no
//     additionalProperties, no const, no allOf, oneOf or not, no
//     exclusiveMinimum, exclusiveMaximum or multipleOf);
//   - type is one of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL,
//     a single value: null is "nullable": true;
//   - enum lists strings, for a STRING ("Possible values of the element of
//     Type.STRING with enum format");
//   - format: float or double for NUMBER, int32 or int64 for INTEGER, enum
//     or date-time for STRING (the API refused others with "only 'enum'
//     and 'date-time' are supported for STRING type");
//   - an OBJECT has non-empty properties (the API refuses an empty one:
//     "properties: should be non-empty for OBJECT type"); a function with
//     no parameters leaves parameters unset, so only a root that takes no
//     key at all (additionalProperties false) goes as no parameters, and a
//     root that takes any key falls back to GeminiJSON;
//   - maxItems, minItems, maxLength, minLength, maxProperties and
//     minProperties are int64 fields: written as integers ("2", not "2.0",
//     which the Go SDK cannot read);
//   - parameter names start with a letter or an underscore and hold only
//     a-z, A-Z, 0-9 and underscores, at most 64 (FunctionDeclaration):
//     another name is renamed (Renamed) and the model's calls are mapped
//     back.
//
// Properties is a map in the Go SDK, so their order goes in
// propertyOrdering, which the API documents for that purpose.
var (
	geminiTypes   = map[string]string{"string": "STRING", "number": "NUMBER", "integer": "INTEGER", "boolean": "BOOLEAN", "array": "ARRAY", "object": "OBJECT", "null": "NULL"}
	geminiFormats = map[string][]string{"STRING": {"enum", "date-time"}, "NUMBER": {"float", "double"}, "INTEGER": {"int32", "int64"}}
	geminiParam   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

type geminiConv struct {
	root     *node
	w        warnings
	failPtr  string
	failWhy  string
	nodes    int
	inlining []string
}

func convertGemini(root *node) Converted {
	c := &geminiConv{root: root, w: warnings{target: Gemini}}
	out := c.schema(root, "", true)
	if c.failWhy != "" {
		return fallback(root, Gemini, c.failPtr, c.failWhy)
	}
	renamed := renameKeys(out, geminiNames, &c.w, false)
	return Converted{Target: Gemini, Schema: out.marshal(), Warnings: c.w.list, Renamed: renamed}
}

// geminiNames is Gemini's rule for parameter names.
var geminiNames = nameRule{
	ok: geminiParam.MatchString,
	allowed: func(c byte, first bool) bool {
		return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
	},
	max:  64,
	says: "a letter or '_', then letters, digits or '_', at most 64",
}

func (c *geminiConv) fail(ptr, format string, args ...any) {
	if c.failWhy == "" {
		c.failPtr, c.failWhy = ptr, fmt.Sprintf(format, args...)
	}
}

func (c *geminiConv) schema(s *node, ptr string, root bool) *node {
	if c.failWhy != "" {
		return s
	}
	if c.nodes++; c.nodes > maxOutputNodes {
		c.fail(ptr, "the schema is too large once its references are inlined")
		return s
	}
	switch {
	case s.kind == kBool && s.b:
		c.fail(ptr, "it accepts a value of any type, which the Schema object cannot express")
		return s
	case s.kind != kObject:
		c.fail(ptr, "it accepts no value at all, which the Schema object cannot express")
		return s
	}
	if s.has("allOf") {
		m, ok := mergeAllOf(s)
		if !ok {
			c.fail(ptr, "its allOf cannot be merged into one schema, and the Schema object has no allOf")
			return s
		}
		c.w.add(ptr, "allOf", Rewritten, "merged into the schema that holds it")
		s = m
	}
	if ref, ok := s.str("$ref"); ok {
		return c.ref(s, ref, ptr, root)
	}
	types, typed := s.types()
	if typed && len(types) == 0 {
		c.fail(ptr+"/type", "its type is not a name or a list of names")
		return s
	}
	var nonNull []string
	null := false
	for _, t := range types {
		switch {
		case geminiTypes[t] == "":
			c.fail(ptr, "its type %q is not a JSON type", t)
			return s
		case t == "null":
			null = true
		default:
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
		return c.schema(split, ptr, root)
	}
	kind := ""
	switch {
	case len(nonNull) == 1:
		kind = nonNull[0]
	case null:
		kind = "null"
	case !typed:
		kind = inferType(s)
		if kind == "" && !s.has("anyOf") && !s.has("oneOf") {
			c.fail(ptr, "it accepts a value of any type, which the Schema object cannot express")
			return s
		}
	}
	if kind == "" {
		// An untyped anyOf of alternatives: a branch that is only null makes
		// the others nullable.
		return c.alternatives(s, ptr)
	}
	gt := geminiTypes[kind]
	out := newObject()
	out.set("type", newString(gt))
	if null && kind != "null" {
		out.set("nullable", newBool(true))
	}
	if !typed {
		c.w.add(ptr, "type", Rewritten, gt+", which its other keywords imply")
	} else if null && kind != "null" {
		c.w.add(ptr, "type", Rewritten, gt+` with "nullable": true`)
	}
	var notes []string
	for i, k := range s.keys {
		v := s.vals[i]
		at := ptr + "/" + pointerToken(k)
		switch k {
		case "type":
		case "title", "description", "pattern":
			if v.kind == kString && (k != "pattern" || kind == "string") {
				out.set(k, v.clone())
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "properties", "required", "additionalProperties":
			if kind != "object" {
				c.w.add(ptr, k, Dropped, "")
			}
		case "items":
			switch {
			case kind != "array":
				c.w.add(ptr, k, Dropped, "")
			case v.kind == kArray:
				c.fail(at, "it is a tuple (an items array), which the Schema object cannot express")
				return s
			default:
				out.set(k, c.schema(v, at, false))
			}
		case "prefixItems":
			c.fail(at, "it is a tuple (prefixItems), which the Schema object cannot express")
			return s
		case "enum":
			notes = c.enum(out, s, v, ptr, kind, notes)
		case "const":
			if v.kind == kString && kind == "string" {
				out.set("enum", newArray(v.clone()))
				c.w.add(ptr, k, Rewritten, "a one-value enum")
			} else {
				notes = c.moved(notes, s, ptr, k)
			}
		case "anyOf", "oneOf":
			c.fail(at, "it has a type and an %s, which the Schema object cannot hold together", k)
			return s
		case "format":
			if v.kind == kString && slices.Contains(geminiFormats[gt], v.s) {
				out.set(k, v.clone())
			} else {
				notes = c.moved(notes, s, ptr, k)
			}
		case "minimum", "maximum":
			if v.kind == kNumber && (kind == "number" || kind == "integer") {
				out.set(k, v.clone())
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			notes = c.exclusive(out, s, v, ptr, k, kind, notes)
		case "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties":
			if n, ok := nonNegInt(v); ok && appliesTo(k, kind) {
				out.set(k, newNumber(strconv.FormatInt(n, 10))) // "2.0" is an integer too, but not to the SDK
			} else {
				c.w.add(ptr, k, Dropped, "")
			}
		case "default":
			out.set(k, v.clone())
		case "$defs", "definitions":
			c.w.add(ptr, k, Dropped, "") // references are inlined
		case "$dynamicRef":
			c.fail(at, "it uses $dynamicRef, which the Schema object cannot express")
			return s
		default:
			if annotations[k] || !knownKeywords[k] {
				c.w.add(ptr, k, Dropped, "")
			} else {
				notes = c.moved(notes, s, ptr, k)
			}
		}
	}
	switch kind {
	case "object":
		notes = c.object(s, out, ptr, root, notes)
	case "array":
		if !s.has("items") {
			c.fail(ptr, "it is an array of values of any type, which the Schema object cannot express")
		}
	}
	if c.failWhy != "" {
		return s
	}
	describe(out, notes...)
	return out
}

// alternatives converts an untyped subschema with anyOf or oneOf.
func (c *geminiConv) alternatives(s *node, ptr string) *node {
	k := "anyOf"
	if !s.has(k) {
		k = "oneOf"
	} else if s.has("oneOf") {
		c.fail(ptr, "it has both anyOf and oneOf")
		return s
	}
	v := s.get(k)
	if v == nil || v.kind != kArray || len(v.arr) == 0 {
		c.fail(ptr+"/"+k, "its %s is not a list of schemas", k)
		return s
	}
	var rest []*node
	var restAt []string
	null := false
	for j, b := range v.arr {
		if b.kind == kObject && len(b.keys) == 1 {
			if t, _ := b.str("type"); t == "null" {
				null = true
				continue
			}
		}
		rest = append(rest, b)
		restAt = append(restAt, ptr+"/"+k+"/"+strconv.Itoa(j))
	}
	var out *node
	switch {
	case len(rest) == 0:
		out = newObject()
		out.set("type", newString("NULL"))
	case len(rest) == 1 && null:
		// anyOf [X, null] is X, nullable: the usual optional value.
		out = c.schema(rest[0], restAt[0], false)
		if c.failWhy != "" {
			return s
		}
		out.set("nullable", newBool(true))
		c.w.add(ptr, k, Rewritten, `its one non-null branch, with "nullable": true`)
	default:
		branches := newArray()
		for j, b := range rest {
			branches.arr = append(branches.arr, c.schema(b, restAt[j], false))
		}
		out = newObject()
		out.set("anyOf", branches)
		if null {
			out.set("nullable", newBool(true))
			c.w.add(ptr, k, Rewritten, `its null branch as "nullable": true`)
		}
	}
	var notes []string
	if k == "oneOf" {
		n := note(s, k)
		notes = append(notes, n)
		c.w.add(ptr, k, Rewritten, "anyOf; description: "+strconv.Quote(n))
	}
	for i, key := range s.keys {
		v := s.vals[i]
		switch key {
		case "anyOf", "oneOf":
		case "title", "description":
			if v.kind == kString {
				out.set(key, v.clone())
			}
		case "default":
			out.set(key, v.clone())
		default:
			if annotations[key] || !knownKeywords[key] || key == "$defs" || key == "definitions" {
				c.w.add(ptr, key, Dropped, "")
			} else {
				notes = c.moved(notes, s, ptr, key)
			}
		}
	}
	if c.failWhy != "" {
		return s
	}
	describe(out, notes...)
	return out
}

func (c *geminiConv) moved(notes []string, s *node, ptr, k string) []string {
	n := note(s, k)
	if n == "" {
		c.w.add(ptr, k, Dropped, "")
		return notes
	}
	return c.w.moved(notes, ptr, k, n)
}

// enum keeps an enum of strings for a STRING; null in it makes the value
// nullable. Any other enum moves to the description.
func (c *geminiConv) enum(out, s, v *node, ptr, kind string, notes []string) []string {
	if v.kind != kArray || kind != "string" {
		return c.moved(notes, s, ptr, "enum")
	}
	vals := newArray()
	null := false
	for _, e := range v.arr {
		switch e.kind {
		case kString:
			vals.arr = append(vals.arr, e.clone())
		case kNull:
			null = true
		default:
			return c.moved(notes, s, ptr, "enum")
		}
	}
	if len(vals.arr) == 0 {
		return c.moved(notes, s, ptr, "enum")
	}
	out.set("enum", vals)
	if null {
		out.set("nullable", newBool(true))
		c.w.add(ptr, "enum", Rewritten, `its null value as "nullable": true`)
	}
	return notes
}

// exclusive turns an integer's exclusive bound into the inclusive one next
// to it, which says the same; any other moves to the description.
func (c *geminiConv) exclusive(out, s, v *node, ptr, k, kind string, notes []string) []string {
	inclusive, step := "minimum", 1.0
	if k == "exclusiveMaximum" {
		inclusive, step = "maximum", -1
	}
	if b, ok := nextInteger(v, step); ok && kind == "integer" && !s.has(inclusive) {
		out.set(inclusive, newNumber(b))
		c.w.add(ptr, k, Rewritten, inclusive+" "+b)
		return notes
	}
	return c.moved(notes, s, ptr, k)
}

// object converts the object part of s into out.
func (c *geminiConv) object(s, out *node, ptr string, root bool, notes []string) []string {
	props := s.get("properties")
	if props != nil && props.kind != kObject {
		c.fail(ptr+"/properties", "its properties are not an object")
		return notes
	}
	addl := s.get("additionalProperties")
	closed := addl != nil && addl.kind == kBool && !addl.b
	if props == nil || len(props.keys) == 0 {
		switch {
		case !root:
			c.fail(ptr, "it is an object with no declared properties, which the Schema object cannot express")
		case !closed:
			c.fail(ptr, "its root takes keys of any name (no declared properties, and additionalProperties is not false), which a function with no parameters would not offer")
		default:
			c.w.add(ptr, "additionalProperties", Dropped, "") // a root with no parameters: the adapter leaves parameters unset
		}
		return notes
	}
	open := addl != nil && !closed
	outProps := newObject()
	names := make([]string, 0, len(props.keys))
	for i, name := range props.keys {
		outProps.set(name, c.schema(props.vals[i], ptr+"/properties/"+pointerToken(name), false))
		names = append(names, name)
	}
	var required, missing []string
	for _, r := range stringList(s.get("required")) {
		if slices.Contains(names, r) {
			required = append(required, r)
		} else {
			missing = append(missing, r)
		}
	}
	out.set("properties", outProps)
	if len(required) > 0 {
		out.set("required", stringArray(required))
	}
	out.set("propertyOrdering", stringArray(names))
	if len(missing) > 0 {
		notes = c.w.moved(notes, ptr, "required", "Must also have the keys: "+strings.Join(missing, ", ")+".")
	}
	switch {
	case open:
		notes = c.moved(notes, s, ptr, "additionalProperties")
	case addl != nil:
		c.w.add(ptr, "additionalProperties", Dropped, "") // false: the registry refuses other keys anyway
	}
	return notes
}

// ref inlines a reference: the Schema object has none.
func (c *geminiConv) ref(s *node, ref, ptr string, root bool) *node {
	target, ok := resolve(c.root, ref)
	if !ok {
		c.fail(ptr+"/$ref", "its $ref %q does not point into this schema", ref)
		return s
	}
	if slices.Contains(c.inlining, ref) || len(c.inlining) >= maxDepth {
		c.fail(ptr+"/$ref", "it is recursive (through %q), which the Schema object cannot express", ref)
		return s
	}
	merged := target.clone()
	if merged.kind == kBool {
		merged = newObject()
		if !target.b {
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
	out := c.schema(merged, ptr, root)
	c.inlining = c.inlining[:len(c.inlining)-1]
	return out
}
