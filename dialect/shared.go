package dialect

import (
	"bytes"
	"slices"
)

// annotations are keywords that constrain nothing a model sends: dropping
// them loses nothing, so no note is written.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$anchor": true, "$dynamicAnchor": true,
	"$vocabulary": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	// OpenAPI's nullable is not a JSON Schema keyword: the tool's
	// validator ignores it, so it constrains nothing either.
	"nullable": true,
}

// knownKeywords are the JSON Schema 2020-12 keywords (and draft-07's
// definitions and dependencies). A keyword outside this set is unknown to
// the validator that checks the tool's calls, so it constrains nothing.
var knownKeywords = map[string]bool{
	"type": true, "enum": true, "const": true, "properties": true, "required": true,
	"additionalProperties": true, "patternProperties": true, "propertyNames": true,
	"minProperties": true, "maxProperties": true, "dependentRequired": true, "dependentSchemas": true,
	"dependencies": true, "unevaluatedProperties": true, "items": true, "prefixItems": true,
	"additionalItems": true, "contains": true, "minContains": true, "maxContains": true,
	"minItems": true, "maxItems": true, "uniqueItems": true, "unevaluatedItems": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true, "minimum": true,
	"maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"anyOf": true, "oneOf": true, "allOf": true, "not": true, "if": true, "then": true, "else": true,
	"$ref": true, "$dynamicRef": true, "$defs": true, "definitions": true,
	"title": true, "description": true, "default": true, "examples": true,
	"contentEncoding": true, "contentMediaType": true, "contentSchema": true,
}

// stringList reads an array of strings; other members are skipped.
func stringList(n *node) []string {
	if n == nil || n.kind != kArray {
		return nil
	}
	out := make([]string, 0, len(n.arr))
	seen := make(map[string]bool, len(n.arr))
	for _, e := range n.arr {
		if e.kind == kString && !seen[e.s] {
			seen[e.s] = true
			out = append(out, e.s)
		}
	}
	return out
}

func stringArray(list []string) *node {
	a := newArray()
	for _, s := range list {
		a.arr = append(a.arr, newString(s))
	}
	return a
}

// equal reports whether two values are the same JSON, keys in order.
func equal(a, b *node) bool {
	return bytes.Equal(a.marshal(), b.marshal())
}

// mergeAllOf folds the branches of s's allOf into a copy of s, which every
// target can then express without allOf. It reports false when two
// branches say different things about the same keyword (other than
// properties, whose names must not clash, and required, which unite), or a
// branch is a reference or not an object.
func mergeAllOf(s *node) (*node, bool) {
	all := s.get("allOf")
	if all == nil || all.kind != kArray {
		return nil, false
	}
	out := s.clone()
	out.del("allOf")
	for _, b := range all.arr {
		if b.kind == kBool && b.b {
			continue
		}
		if b.kind != kObject || b.has("$ref") || b.has("$dynamicRef") {
			return nil, false
		}
		for i, k := range b.keys {
			v := b.vals[i]
			cur := out.get(k)
			switch {
			case cur == nil:
				out.set(k, v.clone())
			case k == "description" || k == "title" || annotations[k]:
				// the outer one speaks for the whole
			case k == "required":
				if cur.kind != kArray || v.kind != kArray {
					return nil, false
				}
				out.set(k, stringArray(append(stringList(cur), stringList(v)...)))
			case k == "properties":
				if cur.kind != kObject || v.kind != kObject {
					return nil, false
				}
				merged := cur.clone()
				for j, name := range v.keys {
					if p := merged.get(name); p != nil && !equal(p, v.vals[j]) {
						return nil, false
					}
					merged.set(name, v.vals[j].clone())
				}
				out.set(k, merged)
			case !equal(cur, v):
				return nil, false
			}
		}
	}
	return out, true
}

// acceptsNull reports whether null is plainly valid for s: s is true or
// empty, lists null among its types or enum values, is const null, or has an
// anyOf branch that accepts null.
func acceptsNull(s *node) bool {
	switch s.kind {
	case kBool:
		return s.b
	case kObject:
	default:
		return false
	}
	if types, ok := s.types(); ok {
		if !slices.Contains(types, "null") {
			return false
		}
	}
	if e := s.get("enum"); e != nil {
		if e.kind != kArray || !slices.ContainsFunc(e.arr, func(v *node) bool { return v.kind == kNull }) {
			return false
		}
	}
	if c := s.get("const"); c != nil && c.kind != kNull {
		return false
	}
	if a := s.get("anyOf"); a != nil {
		return a.kind == kArray && slices.ContainsFunc(a.arr, acceptsNull)
	}
	return !s.has("$ref") && !s.has("$dynamicRef") && !s.has("oneOf") && !s.has("allOf") && !s.has("not")
}

// inferType guesses the single type of an untyped subschema from its
// keywords: properties make an object, items an array, an enum or const
// of strings a string. It returns "" when nothing says.
func inferType(s *node) string {
	switch {
	case s.has("properties") || s.has("additionalProperties") || s.has("required"):
		return "object"
	case s.has("items") || s.has("prefixItems"):
		return "array"
	}
	var vals []*node
	if e := s.get("enum"); e != nil && e.kind == kArray {
		vals = e.arr
	} else if c := s.get("const"); c != nil {
		vals = []*node{c}
	}
	t := ""
	for _, v := range vals {
		var vt string
		switch v.kind {
		case kString:
			vt = "string"
		case kBool:
			vt = "boolean"
		case kNumber:
			vt = "number"
		case kNull:
			continue
		default:
			return ""
		}
		if t != "" && t != vt {
			return ""
		}
		t = vt
	}
	return t
}

// splitTypes rewrites a subschema whose type lists several non-null types
// into an anyOf with one branch per type, each with the keywords that apply
// to it; null becomes a branch of its own. It reports false when s already
// has an anyOf or a oneOf, which the split would have to merge with.
func splitTypes(s *node, types []string) (*node, bool) {
	if s.has("anyOf") || s.has("oneOf") {
		return nil, false
	}
	out := newObject()
	branches := newArray()
	for _, t := range types {
		b := newObject()
		b.set("type", newString(t))
		for i, k := range s.keys {
			if appliesTo(k, t) {
				b.set(k, s.vals[i].clone())
			}
		}
		branches.arr = append(branches.arr, b)
	}
	for i, k := range s.keys {
		if k == "type" || appliesToSome(k) {
			continue
		}
		out.set(k, s.vals[i].clone())
	}
	out.set("anyOf", branches)
	return out, true
}

var typeKeywords = map[string][]string{
	"object":  {"properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties"},
	"array":   {"items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems"},
	"string":  {"minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "contentSchema"},
	"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
	"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
}

func appliesTo(k, t string) bool { return slices.Contains(typeKeywords[t], k) }

func appliesToSome(k string) bool {
	for _, ks := range typeKeywords {
		if slices.Contains(ks, k) {
			return true
		}
	}
	return false
}
