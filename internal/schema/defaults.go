package schema

import (
	"slices"
)

// Defaults are annotations: the arguments are validated as sent, and then
// every absent property that has a default where the value sits is filled
// in, wherever the schema says so unconditionally: through properties,
// array items (items, prefixItems), the values of a map
// (additionalProperties), references ($ref) and allOf. Alternatives
// (anyOf, oneOf, if/then/else) say nothing until a value has chosen one,
// so their defaults are not filled.
//
// A filled default can make a valid value invalid: one that triggers a
// dependentRequired, one too many for a maxProperties, one that makes a
// oneOf match twice. The value is then validated again, and the defaults
// that break it are left out, so the tool gets a value its schema accepts:
// the arguments as sent never become invalid because of a default.
// DefaultsAtRisk names the schemas where that can happen, for a warning at
// registration.

// fill is one default to fill in.
type fill struct {
	obj map[string]any
	key string
	val any
}

// ApplyDefaults fills, in place, the absent properties of v that have a
// default (see above), and reports whether it filled any. v must be valid
// against the schema: a default whose filling would make it invalid is
// left out. Defaults are copied, so a tool may modify what it receives.
func (s *Schema) ApplyDefaults(v any) bool {
	s.defaultsOnce.Do(func() { s.hasDefault = fillable(s.root, map[*Node]bool{}, 0) })
	if !s.hasDefault {
		return false
	}
	var fills []fill
	collectFills(unconditional([]*Node{s.root}), v, &fills, 0)
	if len(fills) == 0 {
		return false
	}
	for _, f := range fills {
		f.obj[f.key] = deepCopy(f.val)
	}
	if s.valid(v) {
		return true
	}
	// Some default breaks the value: keep, in the schema's order, those
	// that leave it valid.
	for _, f := range fills {
		delete(f.obj, f.key)
	}
	kept := false
	for _, f := range fills {
		f.obj[f.key] = deepCopy(f.val)
		if s.valid(v) {
			kept = true
		} else {
			delete(f.obj, f.key)
		}
	}
	return kept
}

func (s *Schema) valid(v any) bool { return s.Valid(v) || s.Validate(v) == nil }

// fillable reports whether a default sits where ApplyDefaults looks.
func fillable(n *Node, seen map[*Node]bool, depth int) bool {
	if n == nil || seen[n] || depth > 128 {
		return false
	}
	seen[n] = true
	if n.HasDefault {
		return true
	}
	next := append([]*Node{n.Ref, n.Addl, n.Items}, n.AllOf...)
	next = append(next, n.PrefixItems...)
	for _, k := range n.PropOrder {
		next = append(next, n.Props[k])
	}
	for _, c := range next {
		if fillable(c, seen, depth+1) {
			return true
		}
	}
	return false
}

// unconditional returns nodes and the subschemas that apply to the same
// value whatever it is ($ref, allOf), each once.
func unconditional(nodes []*Node) []*Node {
	out := make([]*Node, 0, len(nodes))
	add := func(n *Node) {
		if n != nil && len(out) < maxApplicable && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, n := range nodes {
		add(n)
	}
	for i := 0; i < len(out); i++ {
		add(out[i].Ref)
		for _, a := range out[i].AllOf {
			add(a)
		}
	}
	return out
}

// collectFills gathers the defaults to fill in v, which nodes apply to.
func collectFills(nodes []*Node, v any, fills *[]fill, depth int) {
	if len(nodes) == 0 || depth > 128 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		var order []string
		children := map[string][]*Node{}
		for _, n := range nodes {
			for _, k := range n.PropOrder {
				if _, ok := children[k]; !ok {
					order = append(order, k)
				}
				children[k] = append(children[k], n.Props[k])
			}
		}
		for _, k := range order {
			cs := unconditional(children[k])
			cur, present := x[k]
			if present {
				collectFills(cs, cur, fills, depth+1)
				continue
			}
			for _, c := range cs {
				if c.HasDefault {
					*fills = append(*fills, fill{obj: x, key: k, val: c.Default})
					break
				}
			}
		}
		var addl []*Node
		for _, n := range nodes {
			if n.Addl != nil {
				addl = append(addl, n.Addl)
			}
		}
		if len(addl) == 0 {
			return
		}
		addl = unconditional(addl)
		for _, k := range sortedKeys(x) {
			if _, declared := children[k]; !declared {
				collectFills(addl, x[k], fills, depth+1)
			}
		}
	case []any:
		for i, e := range x {
			var cs []*Node
			for _, n := range nodes {
				switch {
				case i < len(n.PrefixItems):
					cs = append(cs, n.PrefixItems[i])
				case n.Items != nil:
					cs = append(cs, n.Items)
				}
			}
			collectFills(unconditional(cs), e, fills, depth+1)
		}
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

// DefaultsAtRisk returns the JSON pointers ("the root" for "") of the
// objects whose defaults
// filling may have to leave out of a call, because something judges the
// object as a whole (a maxProperties, a dependentRequired, an enum, a
// oneOf around it…) and a default filled in may change its verdict. A
// registry says so at registration.
func (s *Schema) DefaultsAtRisk() []string {
	var out []string
	seen := map[*Node]uint8{} // bit 1: walked as a part of a whole, bit 0: not
	var walk func(n *Node, whole bool, depth int)
	walk = func(n *Node, whole bool, depth int) {
		bit := uint8(1)
		if whole {
			bit = 2
		}
		if n == nil || depth > 128 || seen[n]&bit != 0 {
			return
		}
		seen[n] |= bit
		nodes := unconditional([]*Node{n})
		own, below := whole, whole
		defaulted := false
		for _, m := range nodes {
			judges := m.HasEnum || m.HasCon || m.Not != nil || m.If != nil || len(m.AnyOf) > 0 || len(m.OneOf) > 0 || m.wholeValue
			own = own || judges || m.MaxProps >= 0 || len(m.DependentSchemas) > 0
			below = below || judges
			for _, k := range m.PropOrder {
				defaulted = defaulted || slices.ContainsFunc(unconditional([]*Node{m.Props[k]}), func(c *Node) bool { return c.HasDefault })
			}
		}
		if at := showPtr(n.ptr); defaulted && own && !slices.Contains(out, at) {
			out = append(out, at)
		}
		for _, m := range nodes {
			for _, k := range m.PropOrder {
				walk(m.Props[k], below, depth+1)
			}
			walk(m.Addl, below, depth+1)
			walk(m.Items, below, depth+1)
			for _, c := range m.PrefixItems {
				walk(c, below, depth+1)
			}
			for _, group := range [][]*Node{m.AnyOf, m.OneOf, m.DependentSchemas, {m.Not, m.If, m.Then, m.Else}} {
				for _, c := range group {
					walk(c, true, depth+1)
				}
			}
		}
	}
	walk(s.root, false, 0)
	return out
}
