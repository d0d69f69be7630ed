package tool

import (
	"reflect"
	"slices"

	"github.com/invopop/jsonschema"
	"github.com/toolbelt-go/tool/internal/decode"
)

// allowNulls makes a generated output schema accept what encoding/json
// writes for the zero values of t: null for every nil slice, map, pointer
// and interface, at any depth, and no key at all for the fields promoted
// from a nil embedded pointer. An input schema stays strict (a model that
// sends null for a list is told to send a list); an output schema must
// describe every value the tool can return.
func allowNulls(s *jsonschema.Schema, t reflect.Type) {
	if s == nil {
		return
	}
	nullable := false
	for t.Kind() == reflect.Pointer {
		nullable, t = true, t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Interface:
		nullable = true
	}
	if nullable {
		addNull(s)
	}
	if ownEncoding(t) {
		return // the schema says what the type's own encoding writes
	}
	switch t.Kind() {
	case reflect.Struct:
		if s.Properties == nil {
			return
		}
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			index, ft, ok := decode.Field(t, p.Key)
			if !ok {
				continue
			}
			allowNulls(p.Value, ft)
			if throughPointer(t, index) {
				s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == p.Key })
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return // bytes are one base64 string
		}
		allowNulls(s.Items, t.Elem())
	case reflect.Map:
		allowNulls(s.AdditionalProperties, t.Elem())
		if s.PatternProperties != nil {
			for _, ps := range s.PatternProperties {
				allowNulls(ps, t.Elem())
			}
		}
	}
}

// addNull lets s accept null besides what it accepts already. Only type,
// enum, const and the combinators can refuse a null: every other keyword
// applies to values of its own type.
func addNull(s *jsonschema.Schema) {
	switch {
	case s.Type != "" && s.Type != "null":
		if s.Extras == nil {
			s.Extras = map[string]any{}
		}
		// invopop's Type holds one name; a list goes in Extras, which it
		// encodes into the same object.
		s.Extras["type"] = []string{s.Type, "null"}
		s.Type = ""
	case len(s.OneOf) > 0:
		s.OneOf = append(s.OneOf, &jsonschema.Schema{Type: "null"})
	case len(s.AnyOf) > 0:
		s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: "null"})
	}
	if s.Const != nil {
		s.Enum, s.Const = []any{s.Const}, nil // an enum can take null beside it
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, nil) {
		s.Enum = append(s.Enum, nil)
	}
}

// ownEncoding reports whether t writes its own JSON.
func ownEncoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshalerType) || pt.Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || pt.Implements(textMarshalerType)
}

// throughPointer reports whether the field at index in struct t is reached
// through an embedded pointer, which encoding/json skips when nil.
func throughPointer(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		f := t.Field(i).Type
		if f.Kind() == reflect.Pointer {
			return true
		}
		t = f
	}
	return false
}
