package dialect

import (
	"regexp"
	"strings"
)

// Anthropic's Messages API takes a tool's input_schema as JSON Schema
// (draft 2020-12) with rules of its own:
//
//   - the root is an object schema: "type": "object" (Anthropic, "Tool use
//     with Claude", tool definitions: "input_schema: A JSON Schema object
//     defining the expected parameters for the tool"; the Go SDK's
//     ToolInputSchemaParam fixes type to "object");
//   - the root has no anyOf, oneOf or allOf: the API refuses them with
//     "input_schema does not support oneOf, allOf, or anyOf at the top
//     level" (400 invalid_request_error; not in the documentation, but
//     every request carrying such a tool fails, see
//     github.com/anthropics/claude-code/issues/5973);
//   - property names match ^[a-zA-Z0-9_.-]{1,64}$: the API refuses any
//     other with "input_schema.properties: Property keys should match
//     pattern '^[a-zA-Z0-9_.-]{1,64}$'" (400 invalid_request_error), and
//     with it the whole request. Such a key is renamed (Renamed) and the
//     model's calls are mapped back.
//
// Below the root every keyword is accepted as it is.

// anthropicRoot are the keywords Anthropic refuses at the top level.
var anthropicRoot = []string{"allOf", "anyOf", "oneOf"}

// anthropicKey is the pattern Anthropic holds property names to.
var anthropicKey = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)

func convertAnthropic(root *node) Converted {
	w := warnings{target: Anthropic}
	out := fixRoot(root.clone(), &w, anthropicRoot)
	renamed := renameKeys(out, anthropicNames, &w, true)
	return Converted{Target: Anthropic, Schema: out.marshal(), Warnings: w.list, Renamed: renamed}
}

// anthropicNames is Anthropic's rule for property names.
var anthropicNames = nameRule{
	ok: anthropicKey.MatchString,
	allowed: func(c byte, first bool) bool {
		return c == '_' || c == '.' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	},
	max:  64,
	says: "letters, digits, '_', '.' and '-', at most 64",
}

// rootAlternatives says in a sentence what a root anyOf or oneOf asked.
// The common case, alternatives that each only require some keys ("give a
// path or a URL"), reads as a sentence; anything else as JSON.
func rootAlternatives(s *node, k string) string {
	v := s.get(k)
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
