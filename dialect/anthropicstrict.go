package dialect

import (
	"slices"
	"strings"
)

// Anthropic's strict tool use (a tool with "strict": true) holds the
// model's calls to the tool's input_schema by constrained sampling, for
// the JSON Schema subset of its structured outputs. Sources: Anthropic,
// "Strict tool use" and "Structured outputs", section "JSON Schema
// limitations" (platform.claude.com/docs/en/build-with-claude/structured-outputs),
// and the Go SDK's own transform for it (anthropic-sdk-go/v2, schemautil.go):
//
//   - keywords: type (string, number, integer, boolean, object, array,
//     null), description, title, enum (of strings, numbers, booleans and
//     nulls), const, properties, required, additionalProperties (false
//     only, and on every object), items, minItems (0 or 1 only), anyOf,
//     allOf, $ref, $defs and definitions (inside the schema), format
//     (date-time, time, date, duration, email, hostname, uri, ipv4, ipv6,
//     uuid), pattern (without backreferences, lookaround or \b);
//   - not supported: recursive schemas, minimum, maximum, multipleOf,
//     minLength, maxLength, maxItems, minItems other than 0 or 1, and every
//     keyword not listed;
//   - limits per request: 20 strict tools, 24 optional parameters and 16
//     parameters with anyOf or a list of types across all strict tools
//     (the Exporter keeps to them: past them a tool is sent non-strict).
//
// Optional keys stay optional: no null stands for "absent" here.
var (
	anthropicFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}

	anthropicStrictFlavor = flavor{
		target:  AnthropicStrict,
		formats: anthropicFormats,
		keep: func(k string, v *node) bool {
			switch k {
			case "pattern":
				return v.kind == kString && !strings.Contains(v.s, `\b`) && !strings.Contains(v.s, `\B`)
			case "minItems":
				n, ok := nonNegInt(v)
				return ok && n <= 1
			case "enum":
				return v.kind == kArray && !slices.ContainsFunc(v.arr, notPrimitive)
			case "const":
				return !notPrimitive(v)
			}
			return false
		},
		rootRule: "which Anthropic refuses at the top level",
	}
)

// Anthropic's limits on the strict tools of one request.
const (
	anthropicMaxStrictTools    = 20
	anthropicMaxOptionalParams = 24
	anthropicMaxUnionParams    = 16
)

func notPrimitive(v *node) bool { return v.kind == kArray || v.kind == kObject }

func convertAnthropicStrict(root *node) Converted {
	c := strictConvert(root, anthropicStrictFlavor, func(c *strictConv, out *node) {
		if ptr, ok := refCycle(out); ok {
			c.fail(ptr, "it is recursive, and strict tool use does not support recursive schemas")
			return
		}
		for _, k := range anthropicRoot {
			if out.has(k) {
				c.fail("/"+k, "its root has %s, which Anthropic refuses at the top level", k)
				return
			}
		}
	})
	if c.Target != AnthropicStrict {
		return c
	}
	out, _ := parse(c.Schema)
	w := warnings{target: AnthropicStrict, list: c.Warnings}
	c.Renamed = renameKeys(out, anthropicNames, &w, true)
	if c.Renamed != nil {
		c.Schema, c.Warnings = out.marshal(), w.list
	}
	return c
}

// strictCost counts, in a schema converted for AnthropicStrict, what
// Anthropic limits per request: the optional properties, and the
// subschemas with anyOf or a list of types.
func strictCost(schema []byte) (optional, unions int) {
	root, err := parse(schema)
	if err != nil {
		return 0, 0
	}
	eachSubschema(root, "", 0, func(s *node, _ string) {
		if p := s.get("properties"); p != nil && p.kind == kObject {
			req := stringList(s.get("required"))
			for _, k := range p.keys {
				if !slices.Contains(req, k) {
					optional++
				}
			}
		}
		if t := s.get("type"); s.has("anyOf") || t != nil && t.kind == kArray {
			unions++
		}
	})
	return optional, unions
}

// refCycle reports whether the references of the schema root lead back to
// where they started, and where.
func refCycle(root *node) (string, bool) {
	const (
		unseen = iota
		open
		done
	)
	state := map[*node]int{}
	var at string
	var visit func(s *node, ptr string, depth int) bool
	visit = func(s *node, ptr string, depth int) bool {
		if depth > maxDepth {
			return false
		}
		found := false
		eachSubschema(s, ptr, depth, func(n *node, p string) {
			ref, ok := n.str("$ref")
			if found || !ok {
				return
			}
			target, ok := resolve(root, ref)
			if !ok || target.kind != kObject {
				return
			}
			switch state[target] {
			case open:
				found, at = true, p
			case unseen:
				state[target] = open
				if visit(target, p, depth+1) {
					found = true
				}
				state[target] = done
			}
		})
		return found
	}
	state[root] = open
	return at, visit(root, "", 0)
}
