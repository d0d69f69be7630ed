package dialect

import (
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool"
)

// maxNoteJSON bounds the JSON a note quotes (a subschema, a default), so a
// large constraint cannot swamp a description.
const maxNoteJSON = 200

// note renders keyword k of subschema s as a sentence for the description,
// so a model that is not given the keyword still knows the constraint. It
// returns "" for a keyword that constrains nothing (uniqueItems false).
//
// The sentence quotes the schema's values (a default, an enum, a format),
// which no one escaped as text a model reads: a schema from another party
// (a remote MCP server's) may hide instructions in them with bidirectional
// controls or tag characters. It is escaped as the description it joins.
func note(s *node, k string) string {
	return tool.EscapeModelText(noteWords(s, k))
}

func noteWords(s *node, k string) string {
	v := s.get(k)
	if v == nil {
		return ""
	}
	num := func() string { return v.compact(maxNoteJSON) }
	count := func(one, many string) string {
		n, ok := nonNegInt(v)
		switch {
		case ok && n == 1:
			return "1 " + one
		case ok:
			return strconv.FormatInt(n, 10) + " " + many // 8, not 8.0
		}
		return num() + " " + many
	}
	switch k {
	case "minLength":
		return "At least " + count("character", "characters") + "."
	case "maxLength":
		return "At most " + count("character", "characters") + "."
	case "pattern":
		return "Must match the regular expression " + quoteCode(v) + "."
	case "format":
		return "Format: " + text(v) + "."
	case "minimum":
		return "At least " + num() + "."
	case "maximum":
		return "At most " + num() + "."
	case "exclusiveMinimum":
		return "Greater than " + num() + "."
	case "exclusiveMaximum":
		return "Less than " + num() + "."
	case "multipleOf":
		return "A multiple of " + num() + "."
	case "minItems":
		return "At least " + count("item", "items") + "."
	case "maxItems":
		return "At most " + count("item", "items") + "."
	case "uniqueItems":
		if v.kind == kBool && v.b {
			return "Items must be unique."
		}
		return ""
	case "contains":
		return "At least one item must match " + schemaText(v) + "."
	case "minContains":
		return "At least " + count("item", "items") + " must match the contains rule."
	case "maxContains":
		return "At most " + count("item", "items") + " may match the contains rule."
	case "minProperties":
		return "At least " + count("key", "keys") + "."
	case "maxProperties":
		return "At most " + count("key", "keys") + "."
	case "propertyNames":
		return "Key names must match " + schemaText(v) + "."
	case "patternProperties":
		return "Keys matching a pattern hold: " + v.compact(maxNoteJSON) + "."
	case "additionalProperties":
		if v.kind == kBool {
			if v.b {
				return "Other keys are allowed too."
			}
			return ""
		}
		return "Other keys are allowed too, each matching " + schemaText(v) + "."
	case "unevaluatedProperties":
		if v.kind == kBool && !v.b {
			return "No keys other than those listed."
		}
		return "Keys not listed must match " + schemaText(v) + "."
	case "unevaluatedItems":
		if v.kind == kBool && !v.b {
			return "No items other than those listed."
		}
		return "Items not listed must match " + schemaText(v) + "."
	case "dependentRequired":
		return dependentRequired(v)
	case "dependentSchemas":
		return "When some keys are given, the object must also match: " + v.compact(maxNoteJSON) + "."
	case "default":
		return "Default: " + v.compact(maxNoteJSON) + "."
	case "examples":
		if v.kind != kArray || len(v.arr) == 0 {
			return ""
		}
		parts := make([]string, 0, len(v.arr))
		for _, e := range v.arr {
			parts = append(parts, e.compact(maxNoteJSON/2))
		}
		return "Examples: " + cutJoin(parts, maxNoteJSON) + "."
	case "const":
		return "Must be exactly " + v.compact(maxNoteJSON) + "."
	case "enum":
		if v.kind != kArray {
			return ""
		}
		parts := make([]string, 0, len(v.arr))
		for _, e := range v.arr {
			parts = append(parts, e.compact(maxNoteJSON/2))
		}
		return "One of: " + cutJoin(parts, 4*maxNoteJSON) + "."
	case "not":
		return "Must not match " + schemaText(v) + "."
	case "if":
		s2 := "If it matches " + schemaText(v) + ", it must also match " + schemaText(orTrue(s.get("then")))
		if e := s.get("else"); e != nil {
			s2 += "; otherwise it must match " + schemaText(e)
		}
		return s2 + "."
	case "then", "else":
		return "" // said with "if", or meaningless without it
	case "allOf":
		return "Must also match " + v.compact(maxNoteJSON) + "."
	case "oneOf":
		return "Exactly one of the alternatives must match."
	case "contentEncoding":
		return "Encoding: " + text(v) + "."
	case "contentMediaType":
		return "Media type: " + text(v) + "."
	case "contentSchema":
		return "Its decoded content must match " + schemaText(v) + "."
	case "prefixItems":
		return "Items by position: " + v.compact(maxNoteJSON) + "."
	case "required":
		return ""
	}
	return "Constraint " + k + ": " + v.compact(maxNoteJSON) + "."
}

func orTrue(n *node) *node {
	if n == nil {
		return newBool(true)
	}
	return n
}

// text is a string value as it is, anything else as JSON.
func text(v *node) string {
	if v.kind == kString {
		return cut(v.s, maxNoteJSON)
	}
	return v.compact(maxNoteJSON)
}

func quoteCode(v *node) string {
	if v.kind == kString && !strings.Contains(v.s, "`") {
		return "`" + cut(v.s, maxNoteJSON) + "`"
	}
	return v.compact(maxNoteJSON)
}

// schemaText renders a subschema for a sentence: its description when it
// has one and nothing else that constrains, else its JSON.
func schemaText(v *node) string {
	return "the JSON Schema " + v.compact(maxNoteJSON)
}

func dependentRequired(v *node) string {
	if v.kind != kObject {
		return ""
	}
	var parts []string
	for i, k := range v.keys {
		deps := v.vals[i]
		if deps.kind != kArray || len(deps.arr) == 0 {
			continue
		}
		names := make([]string, 0, len(deps.arr))
		for _, d := range deps.arr {
			names = append(names, text(d))
		}
		parts = append(parts, "if "+k+" is given, "+strings.Join(names, ", ")+" must be given too")
	}
	if len(parts) == 0 {
		return ""
	}
	s := cutJoin(parts, 2*maxNoteJSON)
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8Start(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func cutJoin(parts []string, max int) string {
	return cut(strings.Join(parts, ", "), max)
}

// describe appends sentences to the description of s.
func describe(s *node, sentences ...string) {
	var add []string
	for _, t := range sentences {
		if t != "" {
			add = append(add, t)
		}
	}
	if len(add) == 0 {
		return
	}
	desc, _ := s.str("description")
	desc = strings.TrimSpace(desc)
	if desc != "" && !strings.HasSuffix(desc, ".") && !strings.HasSuffix(desc, "!") && !strings.HasSuffix(desc, "?") {
		desc += "."
	}
	if desc != "" {
		desc += " "
	}
	s.set("description", newString(desc+strings.Join(add, " ")))
}
