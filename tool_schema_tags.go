package tool

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/text"
)

// The jsonschema struct tag, as invopop/jsonschema reads it:
//
//	jsonschema:"description=Text to find,minLength=1,maxLength=200"
//
// is a comma-separated list of keyword=value items and of the flags
// required and nullable ("-" alone leaves the field out). A comma inside a
// value ends it, unless escaped by a backslash: since a struct tag is a Go
// string literal, that is \\, in the source (`jsonschema:"description=a\\, b"`;
// a single backslash is a syntax error go vet reports). A description with
// commas is better put in the jsonschema_description tag, which takes the
// whole text. Which
// keywords apply depends on the field's JSON type:
//
//	any type:      title, description, type, anchor, oneof_required, anyof_required,
//	               oneof_ref, anyof_ref, oneof_type, anyof_type
//	strings:       minLength, maxLength, pattern, format, readOnly, writeOnly, default, example, enum
//	numbers:       minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, default, example, enum
//	arrays:        minItems, maxItems, uniqueItems, default, and the keywords of their items' type
//	booleans:      default
//
// invopop ignores anything else without a word. checkTags does not: a
// misspelled keyword, one that does not apply to the field's type, a value
// that does not parse for it, a comma that cut a value short, bounds that
// contradict each other, and two fields that claim the same JSON name are
// each reported, naming the field, the tag and what to write instead.

// checkTags reports every mistake in the jsonschema tags of t's fields, and
// of the structs it holds, as one error (nil when there is none).
func checkTags(t reflect.Type) error {
	var problems []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, where string)
	walk = func(t reflect.Type, where string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || t == numberType || t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
			return
		}
		seen[t] = true
		problems = append(problems, sameJSONName(t)...)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			name := where + f.Name
			problems = append(problems, checkFieldTag(f, name)...)
			walk(f.Type, name+".")
		}
	}
	prefix := ""
	if t.Name() != "" {
		prefix = t.Name() + "."
	}
	walk(t, prefix)
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

// jsonKind is the JSON type a field's value has, as the schema says.
func jsonKind(t reflect.Type, f reflect.StructField) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if slices.Contains(strings.Split(f.Tag.Get("json"), ",")[1:], "string") {
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
			reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.Bool:
			return "string"
		}
	}
	switch {
	case t == numberType:
		return "number"
	case t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType):
		return "" // its own JSON form: only the generic keywords are checked
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // []byte is base64 text
		}
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return ""
}

// splitTag splits a jsonschema tag the way invopop does: on commas not
// preceded by a backslash.
func splitTag(tag string) []string {
	parts := strings.Split(tag, ",")
	out := []string{parts[0]}
	for _, p := range parts[1:] {
		last := out[len(out)-1]
		if strings.HasSuffix(last, `\`) {
			out[len(out)-1] = last[:len(last)-1] + "," + p
		} else {
			out = append(out, p)
		}
	}
	return out
}

// tagKeys are the struct tag keys the schema is read from.
var tagKeys = []string{"json", "jsonschema", "jsonschema_description", "jsonschema_extras"}

// tagSyntax reports a key of the schema's that the field's tag holds but
// Go cannot read: a struct tag is key:"value" pairs, each value a Go string
// literal, and a value that does not unquote (a lone backslash before a
// comma, say) is invisible to reflect, so the field would silently lose
// its description and bounds.
func tagSyntax(f reflect.StructField, name string) []string {
	for _, key := range tagKeys {
		if _, ok := f.Tag.Lookup(key); !ok && strings.Contains(string(f.Tag), key+`:"`) {
			return []string{"field " + name + ": its struct tag `" + text.Cut(string(f.Tag), 120) + "` is not valid Go tag syntax, so Go cannot read its " + key + " key (go vet says so too): " +
				"each value is a Go string literal, where a backslash is written \\\\ (an escaped comma is \\\\,)"}
		}
	}
	return nil
}

func checkFieldTag(f reflect.StructField, name string) []string {
	if bad := tagSyntax(f, name); bad != nil {
		return bad
	}
	tag, ok := f.Tag.Lookup("jsonschema")
	if !ok || tag == "-" || strings.Split(f.Tag.Get("json"), ",")[0] == "-" {
		return nil
	}
	kind := jsonKind(f.Type, f)
	var itemKind string
	if kind == "array" {
		itemKind = jsonKind(elemType(f.Type), reflect.StructField{})
	}
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, "field "+name+", tag `jsonschema:\""+text.Cut(tag, 120)+"\"`: "+fmt.Sprintf(format, args...))
	}
	values := map[string][]string{}
	prev := ""
	for _, item := range splitTag(tag) {
		key, val, hasValue := strings.Cut(item, "=")
		switch {
		case !hasValue && slices.Contains(tagFlags, item):
		case !hasValue && slices.Contains(textTagKeys, prev):
			bad("a comma ended %s= early, and the rest, %s, was read as a keyword: write \\\\, in the source for a comma inside a value%s",
				prev, strconv.Quote(item), describeHint(prev))
		case !hasValue && item == "":
			bad("an empty item (two commas, or a comma at the end)")
		case !hasValue:
			bad("%s is not a flag; the flags are required and nullable, and keywords take a value (keyword=value)%s", strconv.Quote(item), suggestKey(item))
		default:
			problem := checkTagKeyword(kind, itemKind, key, val)
			if problem != "" {
				bad("%s", problem)
			} else {
				values[key] = append(values[key], val)
			}
		}
		if hasValue {
			prev = key
		} else {
			prev = ""
		}
	}
	for _, pair := range [][2]string{{"minimum", "maximum"}, {"minLength", "maxLength"}, {"minItems", "maxItems"},
		{"exclusiveMinimum", "maximum"}, {"minimum", "exclusiveMaximum"}, {"exclusiveMinimum", "exclusiveMaximum"}} {
		lo, hi := lastValue(values[pair[0]]), lastValue(values[pair[1]])
		if lo == nil || hi == nil {
			continue
		}
		if c := lo.Cmp(hi); c > 0 || c == 0 && (strings.HasPrefix(pair[0], "exclusive") || strings.HasPrefix(pair[1], "exclusive")) {
			bad("%s=%s and %s=%s leave no value allowed; swap them or correct one", pair[0], lo.RatString(), pair[1], hi.RatString())
		}
	}
	return problems
}

func elemType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		return t.Elem()
	}
	return t
}

// sameJSONName reports fields of t that claim the same JSON name, at any
// depth of embedding: encoding/json (and the decoder) give the value to the
// shallower one, while the schema may describe the other, so a constraint
// the model sees would not be the one that holds.
func sameJSONName(t reflect.Type) []string {
	type field struct {
		path  string
		depth int
	}
	byName := map[string][]field{}
	var walk func(t reflect.Type, path string, depth int)
	walk = func(t reflect.Type, path string, depth int) {
		if depth > 8 {
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tagName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tagName == "-" {
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && tagName == "" && ft.Kind() == reflect.Struct {
				walk(ft, path+f.Name+".", depth+1)
				continue
			}
			if !f.IsExported() {
				continue
			}
			name := tagName
			if name == "" {
				name = f.Name
			}
			byName[name] = append(byName[name], field{path + f.Name, depth})
		}
	}
	walk(t, "", 0)
	var problems []string
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fs := byName[n]
		if len(fs) < 2 {
			continue
		}
		paths := make([]string, len(fs))
		for i, f := range fs {
			paths[i] = t.Name() + "." + f.path
		}
		problems = append(problems, "fields "+strings.Join(paths, " and ")+" all have the JSON name "+strconv.Quote(n)+
			": the value would go to one while the schema may show the other's constraints; rename one (a json tag with another name)")
	}
	return problems
}
