package dialect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A Violation is one place where a schema breaks a rule of a target's
// documented subset: a provider would refuse the tool, or ignore the
// keyword.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) to the subschema, in the
	// schema that was checked.
	Pointer string `json:"pointer"`
	// Keyword is the offending keyword, or "" for the subschema as a whole.
	Keyword string `json:"keyword,omitempty"`
	// Rule says what the target requires.
	Rule string `json:"rule"`
}

// String renders the violation on one line.
func (v Violation) String() string {
	ptr := v.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	if v.Keyword != "" {
		ptr += ": " + v.Keyword
	}
	return ptr + ": " + v.Rule
}

// Check checks schema against the documented subset of target: the rules
// each conversion's comments cite, checked here on their own, so a
// conversion's output can be checked independently of the code that made
// it. It returns nil for a schema that follows every rule. A schema that is
// not JSON gives one violation.
//
// The output of Convert passes Check for its Converted.Target.
func Check(schema json.RawMessage, target Target) []Violation {
	root, err := parse(schema)
	if err != nil {
		return []Violation{{Rule: "the schema must be JSON: " + err.Error()}}
	}
	ck := &checker{root: root}
	switch target {
	case OpenAI:
		ck.objectRoot("object")
		ck.refusedAtRoot(openAIRoot, "OpenAI refuses oneOf, anyOf, allOf, enum, const and not at the top level of a function's parameters")
	case OpenAIStrict:
		ck.objectRoot("object")
		// The rest of openAIRoot strict mode refuses everywhere at the root.
		ck.refusedAtRoot([]string{"enum", "const"}, "OpenAI refuses oneOf, anyOf, allOf, enum, const and not at the top level of a function's parameters, strict or not")
		ck.strict(root, "", 0, true)
		ck.strictLimits()
	case Anthropic:
		ck.objectRoot("object")
		ck.refusedAtRoot(anthropicRoot, "Anthropic refuses anyOf, oneOf and allOf at the top level of input_schema")
		ck.names(anthropicNames, true)
	case AnthropicStrict:
		ck.objectRoot("object")
		ck.refusedAtRoot(anthropicRoot, "Anthropic refuses anyOf, oneOf and allOf at the top level of input_schema")
		ck.names(anthropicNames, true)
		ck.anthropicStrict(root, "", 0, true)
		if ptr, ok := refCycle(root); ok {
			ck.add(ptr, "$ref", "strict tool use does not support recursive schemas")
		}
	case Gemini:
		ck.objectRoot("OBJECT")
		ck.gemini(root, "", true)
	case GeminiJSON:
		ck.objectRoot("object")
		ck.geminiJSON(root, "", 0)
		ck.names(geminiNames, false)
		ck.geminiCycles()
	default:
		ck.add("", "", fmt.Sprintf("%v is not a target", target))
	}
	return ck.out
}

// refusedAtRoot flags the keywords a provider refuses at the top level.
func (ck *checker) refusedAtRoot(keywords []string, rule string) {
	for _, k := range keywords {
		if ck.root.has(k) {
			ck.add("", k, rule)
		}
	}
}

// names flags the property names a rule refuses: in every properties
// object when everywhere is set, else in the root's.
func (ck *checker) names(rule nameRule, everywhere bool) {
	eachSubschema(ck.root, "", 0, func(s *node, ptr string) {
		if !everywhere && ptr != "" {
			return
		}
		if p := s.get("properties"); p != nil && p.kind == kObject {
			for _, k := range p.keys {
				if !rule.ok(k) {
					ck.add(ptr+"/properties/"+pointerToken(k), "", "a property name holds "+rule.says)
				}
			}
		}
	})
}

// anthropicStrict checks Anthropic's strict tool use subset (see
// anthropicstrict.go for the source).
func (ck *checker) anthropicStrict(s *node, ptr string, depth int, root bool) {
	if depth > maxDepth {
		return
	}
	if s.kind != kObject {
		ck.add(ptr, "", "every subschema must be an object (no boolean schemas)")
		return
	}
	allowed := []string{"type", "description", "title", "properties", "required", "additionalProperties", "items",
		"enum", "const", "anyOf", "allOf", "$ref", "pattern", "format", "minItems"}
	for _, k := range s.keys {
		if !slices.Contains(allowed, k) && !(root && (k == "$defs" || k == "definitions")) {
			ck.add(ptr, k, "Anthropic's strict tool use does not support this keyword")
		}
	}
	f := anthropicStrictFlavor
	for _, k := range []string{"pattern", "minItems", "enum", "const"} {
		if v := s.get(k); v != nil && !f.keep(k, v) {
			ck.add(ptr, k, "strict tool use takes patterns without \\b, minItems 0 or 1, and enums and consts of strings, numbers, booleans and null only")
		}
	}
	if fm := s.get("format"); fm != nil && (fm.kind != kString || !slices.Contains(anthropicFormats, fm.s)) {
		ck.add(ptr, "format", "the format must be one of "+strings.Join(anthropicFormats, ", "))
	}
	if ck.refAlone(s, ptr) {
		return
	}
	types, typed := s.types()
	for _, t := range types {
		if !slices.Contains(strictTypes, t) {
			ck.add(ptr, "type", fmt.Sprintf("%q is not a supported type", t))
		}
	}
	if !typed && !s.has("anyOf") && !s.has("allOf") && !s.has("enum") && !s.has("const") {
		ck.add(ptr, "type", "every subschema needs a type (or anyOf, allOf, enum or const)")
	}
	if slices.Contains(types, "object") {
		if a := s.get("additionalProperties"); a == nil || a.kind != kBool || a.b {
			ck.add(ptr, "additionalProperties", "every object must have additionalProperties: false")
		}
		if props := s.get("properties"); props != nil && props.kind == kObject {
			for i, name := range props.keys {
				ck.anthropicStrict(props.vals[i], ptr+"/properties/"+pointerToken(name), depth+1, false)
			}
		}
		for _, r := range stringList(s.get("required")) {
			if p := s.get("properties"); p == nil || p.get(r) == nil {
				ck.add(ptr, "required", "required names a property that is not declared: "+r)
			}
		}
	}
	if it := s.get("items"); it != nil {
		ck.anthropicStrict(it, ptr+"/items", depth+1, false)
	}
	for _, k := range []string{"anyOf", "allOf"} {
		if a := s.get(k); a != nil {
			if a.kind != kArray || len(a.arr) == 0 {
				ck.add(ptr, k, k+" must list schemas")
				continue
			}
			for i, b := range a.arr {
				ck.anthropicStrict(b, fmt.Sprintf("%s/%s/%d", ptr, k, i), depth+1, false)
			}
		}
	}
	if root {
		for _, key := range []string{"$defs", "definitions"} {
			if d := s.get(key); d != nil && d.kind == kObject {
				for i, name := range d.keys {
					ck.anthropicStrict(d.vals[i], "/"+key+"/"+pointerToken(name), 0, false)
				}
			}
		}
	}
}

// geminiCycles flags the reference cycles that pass through no property
// that is not required (see geminijson.go for the source).
func (ck *checker) geminiCycles() {
	c := &geminiJSONConv{w: warnings{target: GeminiJSON}}
	probe := ck.root.clone()
	if why := c.cycles(probe); why != "" {
		ck.add("", "$ref", "a reference cycle must pass through a property that is not required: "+why)
		return
	}
	for _, w := range c.w.list {
		ck.add(w.Pointer, "required", "a reference cycle must pass through a property that is not required")
	}
}

type checker struct {
	root *node
	out  []Violation

	props, enumValues, stringLen int
}

func (ck *checker) add(ptr, keyword, rule string) {
	ck.out = append(ck.out, Violation{Pointer: ptr, Keyword: keyword, Rule: rule})
}

func (ck *checker) objectRoot(typ string) {
	if t, _ := ck.root.str("type"); ck.root.kind != kObject || t != typ {
		ck.add("", "type", `the root must be an object schema with "type": "`+typ+`"`)
	}
}

// strict checks OpenAI's strict-mode subset (see strict.go for the source).
func (ck *checker) strict(s *node, ptr string, depth int, root bool) {
	if depth > maxDepth {
		return
	}
	if s.kind != kObject {
		ck.add(ptr, "", "every subschema must be an object (no boolean schemas)")
		return
	}
	allowed := []string{"type", "description", "title", "properties", "required", "additionalProperties", "items",
		"enum", "const", "anyOf", "$ref", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
		"exclusiveMaximum", "multipleOf", "minItems", "maxItems"}
	for _, k := range s.keys {
		if !slices.Contains(allowed, k) && !(root && (k == "$defs" || k == "definitions")) {
			ck.add(ptr, k, "OpenAI's strict mode does not support this keyword")
		}
	}
	if ck.refAlone(s, ptr) {
		return
	}
	if root && s.has("anyOf") {
		ck.add(ptr, "anyOf", "the root must not be anyOf")
	}
	types, typed := s.types()
	nonNull := 0
	for _, t := range types {
		if !slices.Contains(strictTypes, t) {
			ck.add(ptr, "type", fmt.Sprintf("%q is not a supported type", t))
		}
		if t != "null" {
			nonNull++
		}
	}
	switch {
	case typed && (len(types) == 0 || nonNull > 1):
		ck.add(ptr, "type", "a type must be one type, or one type and null")
	case !typed && !s.has("anyOf") && !s.has("enum") && !s.has("const"):
		ck.add(ptr, "type", "every subschema needs a type (or anyOf, enum or const)")
	}
	if f := s.get("format"); f != nil && (f.kind != kString || !slices.Contains(strictFormats, f.s)) {
		ck.add(ptr, "format", "the format must be one of "+strings.Join(strictFormats, ", "))
	}
	if e := s.get("enum"); e != nil {
		if e.kind != kArray || len(e.arr) == 0 {
			ck.add(ptr, "enum", "an enum must list values")
		} else {
			ck.enumValues += len(e.arr)
			for _, v := range e.arr {
				if v.kind == kString {
					ck.stringLen += len(v.s)
				}
			}
		}
	}
	if c := s.get("const"); c != nil && c.kind == kString {
		ck.stringLen += len(c.s)
	}
	if slices.Contains(types, "object") {
		depth++
		if depth > strictMaxDepth {
			ck.add(ptr, "", fmt.Sprintf("objects may nest at most %d levels", strictMaxDepth))
		}
		props := s.get("properties")
		if props == nil || props.kind != kObject {
			ck.add(ptr, "properties", "an object must list its properties")
			props = newObject()
		}
		if a := s.get("additionalProperties"); a == nil || a.kind != kBool || a.b {
			ck.add(ptr, "additionalProperties", "every object must have additionalProperties: false")
		}
		req := s.get("required")
		list := stringList(req)
		if req == nil || req.kind != kArray || len(list) != len(req.arr) || len(list) != len(props.keys) {
			ck.add(ptr, "required", "required must list every property, once")
		} else {
			for _, name := range props.keys {
				if !slices.Contains(list, name) {
					ck.add(ptr, "required", "required must list every property: "+name+" is missing")
				}
			}
		}
		for i, name := range props.keys {
			ck.props++
			ck.stringLen += len(name)
			ck.strict(props.vals[i], ptr+"/properties/"+pointerToken(name), depth, false)
		}
	}
	if slices.Contains(types, "array") {
		if it := s.get("items"); it == nil {
			ck.add(ptr, "items", "an array must say what its items are")
		} else {
			ck.strict(it, ptr+"/items", depth, false)
		}
	}
	if a := s.get("anyOf"); a != nil {
		if a.kind != kArray || len(a.arr) == 0 {
			ck.add(ptr, "anyOf", "anyOf must list schemas")
		} else {
			for i, b := range a.arr {
				ck.strict(b, fmt.Sprintf("%s/anyOf/%d", ptr, i), depth, false)
			}
		}
	}
	if root {
		for _, key := range []string{"$defs", "definitions"} {
			if d := s.get(key); d != nil && d.kind == kObject {
				for i, name := range d.keys {
					ck.stringLen += len(name)
					ck.strict(d.vals[i], "/"+key+"/"+pointerToken(name), 0, false)
				}
			}
		}
	}
}

// refAlone checks a subschema with a $ref in strict mode, where nothing
// may stand beside it, and reports whether it has one.
func (ck *checker) refAlone(s *node, ptr string) bool {
	ref, ok := s.str("$ref")
	if !ok {
		return false
	}
	if len(s.keys) != 1 {
		ck.add(ptr, "$ref", "a $ref must have no sibling keywords in strict mode")
	}
	if _, ok := resolve(ck.root, ref); !ok {
		ck.add(ptr, "$ref", "a $ref must point into the schema")
	}
	return true
}

func (ck *checker) strictLimits() {
	if ck.props > strictMaxProps {
		ck.add("", "", fmt.Sprintf("at most %d properties in all (has %d)", strictMaxProps, ck.props))
	}
	if ck.enumValues > strictMaxEnumValues {
		ck.add("", "", fmt.Sprintf("at most %d enum values in all (has %d)", strictMaxEnumValues, ck.enumValues))
	}
	if ck.stringLen > strictMaxStringLen {
		ck.add("", "", fmt.Sprintf("at most %d characters of names and values in all (has %d)", strictMaxStringLen, ck.stringLen))
	}
}

// gemini checks the Schema object (see gemini.go for the source).
func (ck *checker) gemini(s *node, ptr string, root bool) {
	if s.kind != kObject {
		ck.add(ptr, "", "every schema must be an object")
		return
	}
	fields := []string{"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
		"properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern",
		"example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"}
	for _, k := range s.keys {
		if !slices.Contains(fields, k) {
			ck.add(ptr, k, "the Schema object has no such field")
		}
	}
	t, hasType := s.str("type")
	switch {
	case s.has("type") && !hasType:
		ck.add(ptr, "type", "type must be a single name")
	case hasType && !slices.Contains([]string{"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}, t):
		ck.add(ptr, "type", fmt.Sprintf("%q is not a Schema type", t))
	case !hasType && !s.has("anyOf"):
		ck.add(ptr, "type", "a schema needs a type, or anyOf")
	}
	for _, k := range []string{"title", "description", "pattern", "format"} {
		if v := s.get(k); v != nil && v.kind != kString {
			ck.add(ptr, k, k+" must be a string")
		}
	}
	if v := s.get("nullable"); v != nil && v.kind != kBool {
		ck.add(ptr, "nullable", "nullable must be true or false")
	}
	for _, k := range []string{"minimum", "maximum"} {
		if v := s.get(k); v != nil && v.kind != kNumber {
			ck.add(ptr, k, k+" must be a number")
		}
	}
	for _, k := range []string{"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"} {
		if v := s.get(k); v != nil {
			if _, ok := nonNegInt(v); !ok || !digits(v.s) {
				ck.add(ptr, k, k+" must be a whole number, 0 or more, written as an integer")
			}
		}
	}
	if f, ok := s.str("format"); ok && !slices.Contains(geminiFormats[t], f) {
		ck.add(ptr, "format", fmt.Sprintf("format %q is not supported for %s", f, t))
	}
	if e := s.get("enum"); e != nil {
		if t != "STRING" || e.kind != kArray || len(e.arr) == 0 || len(stringList(e)) != len(e.arr) {
			ck.add(ptr, "enum", "an enum lists strings, for a STRING")
		}
	}
	if t == "OBJECT" {
		props := s.get("properties")
		switch {
		case props != nil && props.kind != kObject:
			ck.add(ptr, "properties", "properties must be an object")
			props = nil
		case (props == nil || len(props.keys) == 0) && !root:
			ck.add(ptr, "properties", "properties should be non-empty for OBJECT type")
		}
		var names []string
		if props != nil {
			names = props.keys
		}
		if req := s.get("required"); req != nil {
			list := stringList(req)
			if req.kind != kArray || len(list) != len(req.arr) {
				ck.add(ptr, "required", "required must be a list of property names")
			}
			for _, r := range list {
				if !slices.Contains(names, r) {
					ck.add(ptr, "required", "required names a property that is not declared: "+r)
				}
			}
		}
		if po := s.get("propertyOrdering"); po != nil {
			list := stringList(po)
			if len(list) != len(names) || len(list) != len(po.arr) || slices.ContainsFunc(list, func(n string) bool { return !slices.Contains(names, n) }) {
				ck.add(ptr, "propertyOrdering", "propertyOrdering must list each property once")
			}
		}
		for i, name := range names {
			if root && !geminiParam.MatchString(name) {
				ck.add(ptr+"/properties/"+pointerToken(name), "", "a parameter name starts with a letter or _, then holds letters, digits or _, at most 64")
			}
			ck.gemini(props.vals[i], ptr+"/properties/"+pointerToken(name), false)
		}
	}
	if t == "ARRAY" {
		if it := s.get("items"); it == nil {
			ck.add(ptr, "items", "an ARRAY must say what its items are")
		} else {
			ck.gemini(it, ptr+"/items", false)
		}
	}
	if a := s.get("anyOf"); a != nil {
		if a.kind != kArray || len(a.arr) == 0 {
			ck.add(ptr, "anyOf", "anyOf must list schemas")
		} else {
			for i, b := range a.arr {
				ck.gemini(b, fmt.Sprintf("%s/anyOf/%d", ptr, i), false)
			}
		}
	}
}

// geminiJSON checks the JSON Schema subset of parametersJsonSchema (see
// geminijson.go for the source).
func (ck *checker) geminiJSON(s *node, ptr string, depth int) {
	if depth > maxDepth {
		return
	}
	if s.kind != kObject {
		ck.add(ptr, "", "every subschema must be an object")
		return
	}
	for _, k := range s.keys {
		if !slices.Contains(geminiJSONKeywords, k) {
			ck.add(ptr, k, "not in the JSON Schema subset Gemini documents")
		}
	}
	if t := s.get("type"); t != nil && !validTypes(t) {
		ck.add(ptr, "type", "type must name JSON types")
	}
	if e := s.get("enum"); e != nil && (e.kind != kArray || len(e.arr) == 0 || slices.ContainsFunc(e.arr, notStringOrNumber)) {
		ck.add(ptr, "enum", "an enum lists strings and numbers")
	}
	if ref, ok := s.str("$ref"); ok {
		if _, ok := resolve(ck.root, ref); !ok && !ck.anchor(ref) {
			ck.add(ptr, "$ref", "a $ref must point into the schema")
		}
		for _, k := range s.keys {
			if !strings.HasPrefix(k, "$") {
				ck.add(ptr, k, "beside a $ref, only keywords starting with $ may be set")
			}
		}
	}
	for _, k := range []string{"minItems", "maxItems"} {
		if v := s.get(k); v != nil {
			if _, ok := nonNegInt(v); !ok || !digits(v.s) {
				ck.add(ptr, k, k+" must be a whole number, 0 or more, written as an integer")
			}
		}
	}
	for _, k := range []string{"properties", "$defs"} {
		if m := s.get(k); m != nil && m.kind == kObject {
			for i, name := range m.keys {
				ck.geminiJSON(m.vals[i], ptr+"/"+k+"/"+pointerToken(name), depth+1)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if v := s.get(k); v != nil && !(k == "additionalProperties" && v.kind == kBool) {
			ck.geminiJSON(v, ptr+"/"+k, depth+1)
		}
	}
	for _, k := range []string{"anyOf", "prefixItems"} {
		if a := s.get(k); a != nil && a.kind == kArray {
			for i, b := range a.arr {
				ck.geminiJSON(b, fmt.Sprintf("%s/%s/%d", ptr, k, i), depth+1)
			}
		}
	}
}

// digits reports whether a number literal is written as a plain integer.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// anchor reports whether ref is "#name" for an $anchor of the schema.
func (ck *checker) anchor(ref string) bool {
	name, ok := strings.CutPrefix(ref, "#")
	if !ok || name == "" || strings.HasPrefix(name, "/") {
		return false
	}
	found := false
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		if found || depth > maxDepth {
			return
		}
		if a, ok := n.str("$anchor"); ok && a == name {
			found = true
		}
		for _, v := range n.vals {
			walk(v, depth+1)
		}
		for _, v := range n.arr {
			walk(v, depth+1)
		}
	}
	walk(ck.root, 0)
	return found
}
