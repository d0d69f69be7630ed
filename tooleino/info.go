package tooleino

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// toolInfo is a definition as Eino shows it to the model: its name, its
// description, and its input schema as Eino's schema type.
func toolInfo(d tool.Definition) (*schema.ToolInfo, error) {
	s, err := einoSchema(d.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tooleino: the input schema of %s: %w", d.Name, err)
	}
	info := &schema.ToolInfo{Name: d.Name, Desc: d.Description}
	if s != nil {
		info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(s)
	}
	return info, nil
}

// einoSchema decodes a JSON Schema into Eino's type; nil for none (a tool
// whose target wants no parameters sent).
func einoSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	return decodeEino(raw)
}

// decodeEino decodes with Eino's schema type, whose decoder panics on some
// schemas ("type": null, and any key that is "type" but for case, such as
// an extension's "Type": null): a panic is an error.
func decodeEino(raw json.RawMessage) (s *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("its decoder panicked: %v", p)
		}
	}()
	s = &jsonschema.Schema{}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	return s, nil
}

// constraints are the keywords of JSON Schema (2020-12, and draft 7's
// that Toolbelt's schemas may still hold) that constrain what a call may
// send: one that Eino's type drops is Lossy. Any other (an annotation, a
// vendor's extension, which validators ignore) is Info.
var constraints = map[string]bool{
	"$ref": true, "$dynamicRef": true, "$defs": true, "definitions": true,
	"prefixItems": true, "items": true, "additionalItems": true, "contains": true,
	"properties": true, "patternProperties": true, "additionalProperties": true, "propertyNames": true,
	"dependentSchemas": true, "dependencies": true, "if": true, "then": true, "else": true,
	"allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"unevaluatedItems": true, "unevaluatedProperties": true,
	"type": true, "const": true, "enum": true, "multipleOf": true,
	"maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"maxLength": true, "minLength": true, "pattern": true,
	"maxItems": true, "minItems": true, "uniqueItems": true, "maxContains": true, "minContains": true,
	"maxProperties": true, "minProperties": true, "required": true, "dependentRequired": true,
}

// einoLosses lists what of schema does not survive Eino's schema type: a
// keyword its struct has no field for (unevaluatedProperties, a const or
// default of null, an extension), which the model is then not shown.
func einoLosses(name string, target dialect.Target, raw json.RawMessage) []dialect.Warning {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	s, err := einoSchema(raw)
	if err != nil {
		return []dialect.Warning{{Tool: name, Target: target, Severity: dialect.Severe, Action: dialect.LeftOut,
			Note: "Eino's schema type cannot read it: " + err.Error()}}
	}
	back, err := json.Marshal(s)
	if err != nil {
		return []dialect.Warning{{Tool: name, Target: target, Severity: dialect.Severe, Action: dialect.LeftOut,
			Note: "Eino's schema type cannot write it: " + err.Error()}}
	}
	var before, after any
	if decodeNumbers(raw, &before) != nil || decodeNumbers(back, &after) != nil {
		return nil // decoded once already: cannot happen
	}
	var ws []dialect.Warning
	lost(before, after, "", func(ptr, keyword string, added bool) {
		w := dialect.Warning{Tool: name, Target: target, Severity: dialect.Info, Pointer: ptr, Keyword: keyword, Action: dialect.Dropped,
			Note: "Eino's schema type has no field for it, so the model is not shown it; the tool's own schema still checks every call"}
		if constraints[keyword] {
			w.Severity = dialect.Lossy
		}
		if added {
			// Eino's decoder matches keys in any case: an extension's
			// "Type" is read as "type".
			w.Severity, w.Action = dialect.Notice, dialect.Rewritten
			w.Note = "Eino's schema type wrote it from a key that differs from it in case, which the tool's schema does not read as a keyword: " +
				"the model is shown a constraint the tool's schema does not have"
		}
		ws = append(ws, w)
	})
	return ws
}

func decodeNumbers(b []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// lost walks the schema as written (before) beside the schema as Eino
// writes it back (after), and reports each keyword of a schema that is
// gone or changed, and each one Eino added. It does not report the forms
// Eino writes differently that mean the same: {} as true, and a false, "",
// [] or {} left out where that is what absence means (uniqueItems false,
// required []).
func lost(before, after any, ptr string, report func(ptr, keyword string, added bool)) {
	b, ok := before.(map[string]any)
	if !ok {
		if !reflect.DeepEqual(before, after) {
			report(ptr, "", false)
		}
		return
	}
	a, ok := after.(map[string]any)
	if !ok {
		if len(b) > 0 || after != true {
			report(ptr, "", false)
		}
		return
	}
	for _, k := range sortedKeys(b) {
		v, there := a[k]
		switch {
		case !there && empty(b[k]) && emptyIsAbsent[k]:
		case !there || data[k] && !reflect.DeepEqual(b[k], v):
			report(ptr, k, false)
		default:
			sub(k, b[k], v, ptr+"/"+escapePointer(k), func(p, keyword string, added bool) {
				if keyword == "" {
					keyword, p = k, ptr // the value of k replaced whole
				}
				report(p, keyword, added)
			})
		}
	}
	for _, k := range sortedKeys(a) {
		if _, there := b[k]; !there {
			report(ptr, k, true)
		}
	}
}

// emptyIsAbsent are the keywords whose false, "", [] or {} means what
// their absence means, which Eino's type leaves out.
var emptyIsAbsent = map[string]bool{
	"uniqueItems": true, "deprecated": true, "readOnly": true, "writeOnly": true, "required": true,
	"title": true, "description": true, "$comment": true, "format": true, "pattern": true,
	"contentEncoding": true, "contentMediaType": true, "$id": true, "$anchor": true, "$schema": true,
	"properties": true, "patternProperties": true, "$defs": true, "dependentSchemas": true, "dependentRequired": true,
}

// data are the keywords whose values are instances or names, not
// schemas: compared whole.
var data = map[string]bool{"const": true, "enum": true, "default": true, "examples": true, "dependentRequired": true}

// named are the keywords whose values map names to schemas.
var named = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// sub walks the value of keyword k: a schema, a list or map of schemas,
// or anything else, compared whole.
func sub(k string, before, after any, ptr string, report func(ptr, keyword string, added bool)) {
	switch b := before.(type) {
	case []any:
		a, ok := after.([]any)
		if !ok || len(a) != len(b) {
			report(ptr, "", false)
			return
		}
		for i := range b {
			lost(b[i], a[i], ptr+"/"+strconv.Itoa(i), report)
		}
	case map[string]any:
		if !named[k] {
			lost(b, after, ptr, report)
			return
		}
		a, ok := after.(map[string]any)
		if !ok {
			report(ptr, "", false)
			return
		}
		for _, name := range sortedKeys(b) {
			if _, there := a[name]; !there {
				report(ptr, "", false)
				continue
			}
			lost(b[name], a[name], ptr+"/"+escapePointer(name), report)
		}
	default:
		if !reflect.DeepEqual(before, after) {
			report(ptr, "", false)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func empty(v any) bool {
	switch v := v.(type) {
	case bool:
		return !v
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
