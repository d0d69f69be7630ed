package schema

import (
	"slices"
	"strconv"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// maxApplicable bounds how many subschemas the walkers gather for one
// position (through $ref, allOf, anyOf, oneOf, if/then/else and
// dependentSchemas); past it they stop looking, which only makes them do
// less (keep a null, miss a folded key the authority then reports as
// unknown, where the schema says so).
const maxApplicable = 64

// applicable returns n and every subschema that applies to the same value,
// each once.
func applicable(n *Node) []*Node {
	if n == nil {
		return nil
	}
	if n.Ref == nil && n.AllOf == nil && n.AnyOf == nil && n.OneOf == nil && n.Then == nil && n.Else == nil && n.DependentSchemas == nil {
		return []*Node{n} // the common case: nothing to follow
	}
	out := []*Node{n}
	for i := 0; i < len(out) && len(out) < maxApplicable; i++ {
		c := out[i]
		for _, group := range [][]*Node{{c.Ref, c.Then, c.Else}, c.AllOf, c.AnyOf, c.OneOf, c.DependentSchemas} {
			for _, m := range group {
				if m != nil && !slices.Contains(out, m) {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// A Folded is a key that is not a property the schema declares where it
// was sent, but equals one under Unicode case folding: "Path" for "path".
// Go's encoding/json matches struct fields that way, so a tool decoding the
// arguments itself would read the one as the other.
type Folded struct {
	Pointer  string // of the object holding the key
	Key      string // as sent
	Declared string // the declared property it folds onto
}

// FoldedKey returns the first key of v, at any depth, that folds onto a
// property declared at its position without being that property. Keys of
// free-form maps (where nothing is declared) are never folded keys, so
// distinct keys such as "Path" and "PATH" of an environment pass.
func (s *Schema) FoldedKey(v any) (Folded, bool) {
	if !s.mayFold(v) {
		return Folded{}, false
	}
	var path []string
	return foldedKey(applicable(s.root), v, &path, 0)
}

// mayFold reports whether v may hold a folded key, cheaply and without
// allocating: where every key of every object is declared at its position
// in a schema without applicators (the common case of a valid call), it
// cannot.
func (s *Schema) mayFold(v any) bool {
	return !allDeclared(s.root, v, 0)
}

func allDeclared(n *Node, v any, depth int) bool {
	if depth > 128 {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if n == nil || n.Ref != nil || n.AllOf != nil || n.AnyOf != nil || n.OneOf != nil || n.Then != nil || n.Else != nil || n.DependentSchemas != nil {
			return len(x) == 0
		}
		for k, e := range x {
			c, ok := n.Props[k]
			if !ok {
				if len(n.Props) > 0 {
					return false // undeclared beside declared names: look closer
				}
				c = n.Addl // a free-form map: its keys are never folded
			}
			if !allDeclared(c, e, depth+1) {
				return false
			}
		}
	case []any:
		var item *Node
		if n != nil {
			if len(n.PrefixItems) > 0 {
				return len(x) == 0
			}
			item = n.Items
		}
		for _, e := range x {
			if !allDeclared(item, e, depth+1) {
				return false
			}
		}
	}
	return true
}

func foldedKey(nodes []*Node, v any, path *[]string, depth int) (Folded, bool) {
	if len(nodes) == 0 || depth > 128 {
		return Folded{}, false
	}
	switch x := v.(type) {
	case map[string]any:
		declared := func(k string) bool {
			for _, n := range nodes {
				if _, ok := n.Props[k]; ok {
					return true
				}
			}
			return false
		}
		for k, e := range x {
			if !declared(k) {
				if d, ok := foldsOnto(nodes, k); ok {
					return Folded{Pointer: pointer(*path), Key: k, Declared: d}, true
				}
			}
			*path = append(*path, k)
			f, ok := foldedKey(childNodes(nodes, k), e, path, depth+1)
			*path = (*path)[:len(*path)-1]
			if ok {
				return f, true
			}
		}
	case []any:
		for i, e := range x {
			*path = append(*path, strconv.Itoa(i))
			f, ok := foldedKey(itemNodes(nodes, i), e, path, depth+1)
			*path = (*path)[:len(*path)-1]
			if ok {
				return f, true
			}
		}
	}
	return Folded{}, false
}

// foldsOnto returns the declared property that k folds onto, if any.
func foldsOnto(nodes []*Node, k string) (string, bool) {
	if k == "" {
		return "", false
	}
	var fk string
	for _, n := range nodes {
		if len(n.folded) == 0 {
			continue
		}
		if fk == "" {
			fk = jsonparse.FoldKey(k)
		}
		if d, ok := n.folded[fk]; ok {
			return d, true
		}
	}
	return "", false
}

// childNodes returns the subschemas that apply to member k of an object
// validated by nodes: its declared property, or else additionalProperties.
func childNodes(nodes []*Node, k string) []*Node {
	var out []*Node
	for _, n := range nodes {
		if c, ok := n.Props[k]; ok {
			out = append(out, applicable(c)...)
		} else if n.Addl != nil {
			out = append(out, applicable(n.Addl)...)
		}
	}
	return out
}

func itemNodes(nodes []*Node, i int) []*Node {
	var out []*Node
	for _, n := range nodes {
		switch {
		case i < len(n.PrefixItems):
			out = append(out, applicable(n.PrefixItems[i])...)
		case n.Items != nil:
			out = append(out, applicable(n.Items)...)
		}
	}
	return out
}

// DropOptionalNulls removes, in place, every member whose value is null
// where the schema declares the property, does not let it be null, and
// does not require it everywhere it declares it: in a strict-mode schema
// (OpenAI's) every optional key was made required and nullable, and a null
// there means "absent". Where alternatives (anyOf, oneOf) declare the key,
// one requiring it and another not, the null can only have been offered
// by the second, where it means absent. A key whose declared subschema
// may let it be null (see mayBeNull) keeps its null, and so does one every
// declaring subschema requires (the model is then told null is not
// allowed).
func (s *Schema) DropOptionalNulls(v any) {
	dropOptionalNulls(applicable(s.root), v, 0)
}

func dropOptionalNulls(nodes []*Node, v any, depth int) {
	if len(nodes) == 0 || depth > 128 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil && nullMeansAbsent(nodes, k) {
				delete(x, k)
				continue
			}
			dropOptionalNulls(childNodes(nodes, k), e, depth+1)
		}
	case []any:
		for i, e := range x {
			dropOptionalNulls(itemNodes(nodes, i), e, depth+1)
		}
	}
}

func nullMeansAbsent(nodes []*Node, k string) bool {
	optional := false
	for _, n := range nodes {
		c, ok := n.Props[k]
		if !ok {
			continue
		}
		if mayBeNull(c, 0) {
			return false
		}
		optional = optional || !slices.Contains(n.Required, k)
	}
	return optional
}

// mayBeNull reports whether null may be valid against n: its own keywords
// let it be, so do the subschemas it must also match (its $ref, every
// branch of its allOf), and, where it has alternatives (anyOf, oneOf), at
// least one of them does. A branch alone is not enough: in
// {"allOf":[{"type":"string"},{"minLength":1}]} the second branch lets
// null pass and the first does not, so null is not valid. What it cannot
// tell (not, if/then/else, a reference it does not follow, a cycle) counts
// as "may", which keeps the null for the validator to judge.
func mayBeNull(n *Node, depth int) bool {
	if n == nil || depth > 64 {
		return true
	}
	if n.Bool != nil {
		return *n.Bool
	}
	if n.HasEnum && !slices.Contains(n.Enum, any(nil)) || n.HasCon && n.Const != nil || n.Types != 0 && n.Types&tNull == 0 {
		return false
	}
	if n.Ref != nil && !mayBeNull(n.Ref, depth+1) {
		return false
	}
	for _, a := range n.AllOf {
		if !mayBeNull(a, depth+1) {
			return false
		}
	}
	for _, alts := range [][]*Node{n.AnyOf, n.OneOf} {
		if len(alts) > 0 && !slices.ContainsFunc(alts, func(a *Node) bool { return mayBeNull(a, depth+1) }) {
			return false
		}
	}
	return true
}

func pointer(tokens []string) string {
	b := make([]byte, 0, 32)
	for _, t := range tokens {
		b = append(b, '/')
		b = append(b, jsonparse.EscapePointerToken(t)...)
	}
	return string(b)
}
