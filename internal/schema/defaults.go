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

// fillPlan is what ApplyDefaults needs of each subschema, worked out once
// per schema: which of its declared properties matter. A property matters
// when it has a default, or when a default lies below it; the others (all
// of them, in most schemas) are never looked at, so that an object costs
// the walk the properties that matter, not every property its schema
// declares (6,000 declared properties against 9,000 objects were 54
// million map operations per call).
type fillPlan struct {
	nodes map[*Node]*nodeFill // nil entry: nothing to fill at or below the node
}

type nodeFill struct {
	keys []string // declared properties with a default at or below them, in order
}

// newFillPlan finds every node from which a default is reachable through
// the keywords ApplyDefaults follows (one pass over the reversed edges).
func newFillPlan(root *Node) *fillPlan {
	nodes := reachable(root)
	next := func(n *Node) []*Node {
		out := append([]*Node{n.Ref, n.Addl, n.Items}, n.AllOf...)
		out = append(out, n.PrefixItems...)
		for _, k := range n.PropOrder {
			out = append(out, n.Props[k])
		}
		return out
	}
	parents := map[*Node][]*Node{}
	var queue []*Node
	can := map[*Node]bool{}
	for _, n := range nodes {
		for _, c := range next(n) {
			if c != nil {
				parents[c] = append(parents[c], n)
			}
		}
		if n.HasDefault {
			can[n] = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, p := range parents[n] {
			if !can[p] {
				can[p] = true
				queue = append(queue, p)
			}
		}
	}
	fp := &fillPlan{nodes: map[*Node]*nodeFill{}}
	for _, n := range nodes {
		if !can[n] {
			continue
		}
		nf := &nodeFill{}
		for _, k := range n.PropOrder {
			if can[n.Props[k]] {
				nf.keys = append(nf.keys, k)
			}
		}
		fp.nodes[n] = nf
	}
	return fp
}

// ApplyDefaults fills, in place, the absent properties of v that have a
// default (see above). v must be valid against the schema: a default whose
// filling would make it invalid is left out. Defaults are copied, so a tool
// may modify what it receives.
//
// What filling costs is bounded by budget, as validation is: the values
// filled in (a default counts each JSON value in it), the checks of
// validating the completed value, and those of trying the defaults one by
// one when some default breaks it, each count against it. Past the budget
// ApplyDefaults leaves v as it was and returns false: a small call could
// otherwise have a schema with thousands of defaulted properties fill
// millions of values.
func (s *Schema) ApplyDefaults(v any, budget int) bool {
	s.defaultsOnce.Do(func() {
		s.fills = newFillPlan(s.root)
		s.hasDefault = len(s.fills.nodes) > 0
	})
	if !s.hasDefault {
		return true
	}
	c := fillCollector{plan: s.fills, budget: budget}
	if !c.collect(unconditional([]*Node{s.root}), v, 0) {
		return false
	}
	if len(c.fills) == 0 {
		return true
	}
	for _, f := range c.fills {
		f.obj[f.key] = deepCopy(f.val)
	}
	undo := func() {
		for _, f := range c.fills {
			delete(f.obj, f.key)
		}
	}
	if s.Valid(v) {
		return true
	}
	// The authority has no bound of its own: its work is counted first,
	// against what filling left of the budget.
	left := budget - c.spent
	w := s.Work(v, Work{Checks: left, PatternSteps: saturate})
	if w.Checks > left {
		undo()
		return false
	}
	if s.Validate(v) == nil {
		return true
	}
	// Some default breaks the value: keep, in the schema's order, those
	// that leave it valid. Each try validates the whole value again, so
	// the tries must fit the budget too.
	trial := max(w.Checks, 1)
	if len(c.fills) > left/trial {
		undo()
		return false
	}
	undo()
	for _, f := range c.fills {
		f.obj[f.key] = deepCopy(f.val)
		if !s.valid(v) {
			delete(f.obj, f.key)
		}
	}
	return true
}

func (s *Schema) valid(v any) bool { return s.Valid(v) || s.Validate(v) == nil }

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

// fillCollector gathers the defaults to fill, counting what they cost.
type fillCollector struct {
	plan          *fillPlan
	fills         []fill
	spent, budget int
}

// collect gathers the defaults to fill in v, which nodes apply to; false
// when they are past the budget.
func (c *fillCollector) collect(nodes []*Node, v any, depth int) bool {
	if len(nodes) == 0 || depth > 128 {
		return true
	}
	// Only the nodes with something to fill at or below them matter.
	live := nodes[:0:0]
	for _, n := range nodes {
		if c.plan.nodes[n] != nil {
			live = append(live, n)
		}
	}
	if len(live) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		var order []string
		children := map[string][]*Node{}
		for _, n := range live {
			for _, k := range c.plan.nodes[n].keys {
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
				if !c.collect(cs, cur, depth+1) {
					return false
				}
				continue
			}
			for _, n := range cs {
				if n.HasDefault {
					c.spent += n.defaultSize()
					if c.spent > c.budget {
						return false
					}
					c.fills = append(c.fills, fill{obj: x, key: k, val: n.Default})
					break
				}
			}
		}
		var addl []*Node
		for _, n := range live {
			if n.Addl != nil && c.plan.nodes[n.Addl] != nil {
				addl = append(addl, n.Addl)
			}
		}
		if len(addl) == 0 {
			return true
		}
		addl = unconditional(addl)
		for _, k := range sortedKeys(x) {
			if declaredIn(nodes, k) {
				continue
			}
			if !c.collect(addl, x[k], depth+1) {
				return false
			}
		}
	case []any:
		for i, e := range x {
			var cs []*Node
			for _, n := range live {
				switch {
				case i < len(n.PrefixItems):
					cs = append(cs, n.PrefixItems[i])
				case n.Items != nil:
					cs = append(cs, n.Items)
				}
			}
			if !c.collect(unconditional(cs), e, depth+1) {
				return false
			}
		}
	}
	return true
}

// declaredIn reports whether one of nodes declares the property k.
func declaredIn(nodes []*Node, k string) bool {
	for _, n := range nodes {
		if _, ok := n.Props[k]; ok {
			return true
		}
	}
	return false
}

// defaultSize is the number of JSON values in n's default.
func (n *Node) defaultSize() int {
	return valueCount(n.Default)
}

func valueCount(v any) int {
	switch x := v.(type) {
	case map[string]any:
		c := 1
		for _, e := range x {
			c += valueCount(e)
		}
		return c
	case []any:
		c := 1
		for _, e := range x {
			c += valueCount(e)
		}
		return c
	}
	return 1
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
