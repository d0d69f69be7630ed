package dialect

import "strings"

// Anthropic's Messages API takes a tool's input_schema as JSON Schema
// (draft 2020-12) with two rules of its own:
//
//   - the root is an object schema: "type": "object" (Anthropic, "Tool use
//     with Claude", tool definitions: "input_schema: A JSON Schema object
//     defining the expected parameters for the tool"; the Go SDK's
//     ToolInputSchemaParam fixes type to "object");
//   - the root has no anyOf, oneOf or allOf: the API refuses them with
//     "input_schema does not support oneOf, allOf, or anyOf at the top
//     level" (400 invalid_request_error; not in the documentation, but
//     every request carrying such a tool fails, see
//     github.com/anthropics/claude-code/issues/5973).
//
// Below the root every keyword is accepted as it is.

// rootCombinators are the keywords Anthropic refuses at the top level.
var rootCombinators = []string{"allOf", "anyOf", "oneOf"}

func convertAnthropic(root *node) Converted {
	w := warnings{target: Anthropic}
	out := root.clone()
	if out.has("allOf") {
		if m, ok := mergeAllOf(out); ok {
			w.add("", "allOf", Rewritten, "merged into the root")
			out = m
		}
	}
	var notes []string
	for _, k := range rootCombinators {
		if !out.has(k) {
			continue
		}
		n := rootAlternatives(out, k)
		w.add("", k, Moved, n)
		notes = append(notes, n)
		out.del(k)
	}
	describe(out, notes...)
	return Converted{Target: Anthropic, Schema: out.marshal(), Warnings: w.list}
}

// rootAlternatives says in a sentence what a root anyOf, oneOf or allOf
// asked. The common case, alternatives that each only require some keys
// ("give a path or a URL"), reads as a sentence; anything else as JSON.
func rootAlternatives(s *node, k string) string {
	v := s.get(k)
	if k == "allOf" {
		return note(s, k)
	}
	var groups []string
	if v.kind == kArray {
		for _, b := range v.arr {
			if b.kind != kObject || len(b.keys) != 1 || b.keys[0] != "required" || len(stringList(b.vals[0])) == 0 {
				groups = nil
				break
			}
			groups = append(groups, strings.Join(stringList(b.vals[0]), " and "))
		}
	}
	how := "at least one"
	if k == "oneOf" {
		how = "exactly one"
	}
	if len(groups) > 0 {
		return "Give " + how + " of: " + cutJoin(groups, 2*maxNoteJSON) + "."
	}
	return "Must match " + how + " of: " + v.compact(maxNoteJSON) + "."
}
