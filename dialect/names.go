package dialect

import (
	"strconv"
	"strings"
)

// A nameRule is a provider's rule for the names it is sent: property names
// or tool names.
type nameRule struct {
	ok      func(string) bool
	allowed func(c byte, first bool) bool // an ASCII byte the name may hold (first: at its start)
	max     int
	says    string // the rule in words, for the warning
}

// fix returns a name the rule accepts, made from name: every character it
// refuses becomes '_', a first character it refuses gets a '_' before it,
// and the whole is cut to the rule's length.
func (r nameRule) fix(name string) string {
	var b strings.Builder
	for _, c := range []byte(name) {
		switch {
		case c >= 0x80 && c < 0xC0:
			// a continuation byte: its rune is already one '_'
		case c < 0x80 && r.allowed(c, false):
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || !r.allowed(s[0], true) {
		s = "_" + s
	}
	if len(s) > r.max {
		s = s[:r.max]
	}
	return s
}

// renamer gives each refused name one replacement, the same wherever the
// name appears, that clashes with no name the schema declares.
type renamer struct {
	rule  nameRule
	taken map[string]bool   // every name declared, and every replacement given
	sent  map[string]string // original → sent
}

func (rn *renamer) name(orig string) string {
	if s, ok := rn.sent[orig]; ok {
		return s
	}
	base := rn.rule.fix(orig)
	s := base
	for i := 2; rn.taken[s]; i++ {
		suffix := "_" + strconv.Itoa(i)
		s = base
		if len(s)+len(suffix) > rn.rule.max {
			s = s[:rn.rule.max-len(suffix)]
		}
		s += suffix
	}
	rn.taken[s] = true
	rn.sent[orig] = s
	return s
}

// renameKeys renames, in the converted schema out, every declared property
// whose name rule refuses: in every properties object of the schema when
// everywhere is set, else in the root's. The keywords that name
// properties beside them (required, propertyOrdering, dependentRequired,
// dependentSchemas) and the references that go through them follow. It
// returns the names as sent → as declared, or nil when none changed.
func renameKeys(out *node, rule nameRule, w *warnings, everywhere bool) map[string]string {
	rn := &renamer{rule: rule, taken: map[string]bool{}, sent: map[string]string{}}
	var objects []*node
	var ptrs []string
	visit := func(s *node, ptr string) {
		p := s.get("properties")
		if p == nil || p.kind != kObject {
			return
		}
		for _, k := range p.keys {
			rn.taken[k] = true
		}
		if everywhere || ptr == "" {
			objects = append(objects, s)
			ptrs = append(ptrs, ptr)
		}
	}
	eachSubschema(out, "", 0, visit)
	renamed := map[string]string{}
	for i, s := range objects {
		props := s.get("properties")
		local := map[string]string{}
		for j, k := range props.keys {
			if rule.ok(k) {
				continue
			}
			to := rn.name(k)
			props.keys[j] = to
			local[k] = to
			renamed[to] = k
			w.add(ptrs[i]+"/properties/"+pointerToken(k), "", Renamed, "sent as "+strconv.Quote(to)+": "+rule.says)
		}
		if len(local) == 0 {
			continue
		}
		props.idx = nil
		renameIn(s, local)
	}
	if len(renamed) == 0 {
		return nil
	}
	fixRefs(out, rn.sent)
	return renamed
}

// renameIn renames, in the object schema s, the property names its other
// keywords list.
func renameIn(s *node, to map[string]string) {
	rename := func(n *node) {
		if n == nil || n.kind != kArray {
			return
		}
		for _, e := range n.arr {
			if e.kind == kString {
				if t, ok := to[e.s]; ok {
					e.s = t
				}
			}
		}
	}
	rename(s.get("required"))
	rename(s.get("propertyOrdering"))
	for _, k := range []string{"dependentRequired", "dependentSchemas"} {
		d := s.get(k)
		if d == nil || d.kind != kObject {
			continue
		}
		for i, name := range d.keys {
			if t, ok := to[name]; ok {
				d.keys[i] = t
			}
			if k == "dependentRequired" {
				rename(d.vals[i])
			}
		}
		d.idx = nil
	}
}

// fixRefs points the references that go through a renamed property
// ("#/properties/user name/...") to its new name.
func fixRefs(root *node, to map[string]string) {
	eachSubschema(root, "", 0, func(n *node, _ string) {
		ref, ok := n.str("$ref")
		if !ok || !strings.HasPrefix(ref, "#/") || !strings.Contains(ref, "/properties/") {
			return
		}
		toks := strings.Split(ref[2:], "/")
		for i := 1; i < len(toks); i++ {
			if toks[i-1] == "properties" {
				if t, ok := to[unescapeToken(toks[i])]; ok {
					toks[i] = pointerToken(t)
				}
			}
		}
		n.set("$ref", newString("#/"+strings.Join(toks, "/")))
	})
}

// schemaMaps are the keywords whose value maps names to subschemas, and
// schemaLists those whose value is a list of subschemas; schemaOnes hold
// one subschema.
var (
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaLists = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
	schemaOnes  = []string{"items", "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
		"unevaluatedProperties", "unevaluatedItems", "contentSchema"}
)

// eachSubschema calls fn for s and every subschema in it, depth first, with
// its JSON pointer.
func eachSubschema(s *node, ptr string, depth int, fn func(s *node, ptr string)) {
	if s == nil || s.kind != kObject || depth > maxDepth {
		return
	}
	fn(s, ptr)
	for _, k := range schemaMaps {
		if m := s.get(k); m != nil && m.kind == kObject {
			for i, name := range m.keys {
				eachSubschema(m.vals[i], ptr+"/"+k+"/"+pointerToken(name), depth+1, fn)
			}
		}
	}
	for _, k := range schemaLists {
		if a := s.get(k); a != nil && a.kind == kArray {
			for i, b := range a.arr {
				eachSubschema(b, ptr+"/"+k+"/"+strconv.Itoa(i), depth+1, fn)
			}
		}
	}
	for _, k := range schemaOnes {
		v := s.get(k)
		switch {
		case v == nil:
		case v.kind == kArray && k == "items": // draft-07's tuple
			for i, b := range v.arr {
				eachSubschema(b, ptr+"/items/"+strconv.Itoa(i), depth+1, fn)
			}
		default:
			eachSubschema(v, ptr+"/"+k, depth+1, fn)
		}
	}
}
