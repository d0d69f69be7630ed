package process

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// flagProperties checks a CLI in ArgsAsFlags mode against its schema and
// returns the properties that may become flags or positional arguments:
// those the schema declares at its top level, sorted. A schema that lets
// the model send other keys is refused, as are Flags and Positional
// entries for names it does not declare (a typo would silently pass
// nothing) and declared names that would not read as a plain flag.
//
// A schema that is not JSON, or not an object, is left to the registry,
// which reports it.
func flagProperties(c *CLI) ([]string, error) {
	var s struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
		PatternProperties    map[string]json.RawMessage `json:"patternProperties"`
	}
	if err := json.Unmarshal(c.Definition.InputSchema, &s); err != nil {
		return nil, nil
	}
	if !bytes.Equal(bytes.TrimSpace(s.AdditionalProperties), []byte("false")) || len(s.PatternProperties) > 0 {
		return nil, fmt.Errorf(`NewCLI: in ArgsAsFlags mode the InputSchema must declare every argument in "properties" and ` +
			`set "additionalProperties": false (without "patternProperties") at its top level, ` +
			`so that a key the model makes up cannot become a flag`)
	}
	declared := slices.Sorted(maps.Keys(s.Properties))
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(c.Flags)) {
		switch f := c.Flags[k]; {
		case !slices.Contains(declared, k):
			problems = append(problems, fmt.Sprintf("Flags names %q, which the schema does not declare", k))
		case f == "" || strings.ContainsRune(f, 0):
			problems = append(problems, fmt.Sprintf("Flags gives %q an empty flag or one with a NUL byte", k))
		}
	}
	for _, k := range c.Positional {
		if !slices.Contains(declared, k) {
			problems = append(problems, fmt.Sprintf("Positional names %q, which the schema does not declare", k))
		}
	}
	for _, k := range declared {
		if _, mapped := c.Flags[k]; !mapped && !slices.Contains(c.Positional, k) && !plainFlagName(k) {
			problems = append(problems, fmt.Sprintf("property %q would make the flag %q; map it in Flags or Positional", k, "--"+k))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("NewCLI: %s", strings.Join(problems, "; "))
	}
	return declared, nil
}

// plainFlagName reports whether "--"+name reads as one long flag: letters,
// digits, '_', '-' and '.', not starting with '-' (no "---x", no "--=x").
func plainFlagName(name string) bool {
	if name == "" || name[0] == '-' {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}
