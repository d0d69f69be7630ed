package tool

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
	"github.com/toolbelt-go/tool/internal/decode"
)

// SchemaOf returns the input schema generated for arguments of type T: an
// object schema from T's fields and their json, jsonschema and
// jsonschema_description tags (description, enum, minimum, maximum,
// pattern, default, examples, …), with unknown properties rejected. A field
// is required unless its json tag has omitempty or omitzero. A struct with
// no fields gives {"type":"object","properties":{}}.
//
// T must be a struct (or a pointer to one). Channels, functions, complex
// numbers and maps with keys other than strings or integers are rejected;
// so are recursive types.
func SchemaOf[T any]() (json.RawMessage, error) {
	return schemaForType(reflect.TypeFor[T]())
}

// generated keeps the schema generated for each type: types do not change,
// and a host that builds a registry per conversation makes the same tools
// many times.
var generated sync.Map // reflect.Type → generatedSchema

type generatedSchema struct {
	raw json.RawMessage
	err error
}

func schemaForType(t reflect.Type) (json.RawMessage, error) {
	if g, ok := generated.Load(t); ok {
		return slices.Clone(g.(generatedSchema).raw), g.(generatedSchema).err
	}
	raw, err := generateSchema(t, nil)
	if err == nil {
		err = checkSettable(t, nil, map[reflect.Type]bool{})
	}
	if err != nil {
		raw = nil
	}
	generated.Store(t, generatedSchema{raw, err})
	return slices.Clone(raw), err
}

var numberType = reflect.TypeFor[json.Number]()

// generateSchema reflects the schema of struct type t; adjust, when not
// nil, changes it before it is encoded.
func generateSchema(t reflect.Type, adjust func(*jsonschema.Schema, reflect.Type)) (raw json.RawMessage, err error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("argument type %v is not a struct; tool arguments are a JSON object", t)
	}
	if err := checkType(t, nil, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	if err := checkTags(t); err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			raw, err = nil, fmt.Errorf("cannot generate a schema for %v: %v", t, p)
		}
	}()
	r := &jsonschema.Reflector{
		DoNotReference: true,
		ExpandedStruct: true,
		Mapper:         numberSchema,
	}
	s := r.ReflectFromType(t)
	s.Version, s.ID = "", ""
	if adjust != nil {
		adjust(s, t)
	}
	if s.Properties == nil || s.Properties.Len() == 0 {
		// invopop omits empty properties in some versions; providers want
		// the key present.
		return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`), nil
	}
	out, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the schema for %v: %w", t, err)
	}
	if err := checkFieldsAgree(t, out); err != nil {
		return nil, err
	}
	return out, nil
}

// numberSchema gives the schema of Go's sized number types their range,
// so that the model is told, and nothing the schema lets through then fails
// to decode into the field: int8 to int32 and uint8 to uint32 get both
// bounds, every unsigned type a minimum of 0, float32 its range. (int,
// int64 and float64 are left without: their limits are past anything a
// model means, and preflight refuses numbers beyond a float64; an int64
// field given 1e300 gets an error that names its range.) A field's own
// minimum and maximum tags override these.
func numberSchema(t reflect.Type) *jsonschema.Schema {
	if t == numberType {
		return &jsonschema.Schema{Type: "number"}
	}
	if t.PkgPath() != "" && (t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType)) {
		return nil // a named type with its own JSON form
	}
	integer := func(lo, hi string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "integer", Minimum: json.Number(lo)}
		if hi != "" {
			s.Maximum = json.Number(hi)
		}
		return s
	}
	switch t.Kind() {
	case reflect.Int8:
		return integer("-128", "127")
	case reflect.Int16:
		return integer("-32768", "32767")
	case reflect.Int32:
		return integer("-2147483648", "2147483647")
	case reflect.Uint8:
		return integer("0", "255")
	case reflect.Uint16:
		return integer("0", "65535")
	case reflect.Uint32:
		return integer("0", "4294967295")
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return integer("0", "")
	case reflect.Float32:
		return &jsonschema.Schema{Type: "number", Minimum: json.Number("-3.4028234663852886e38"), Maximum: json.Number("3.4028234663852886e38")}
	}
	return nil
}

// outputSchemaFor returns the schema of a typed tool's structured output
// when its result type is a struct (or a pointer to one) that encodes as
// an object, and nil otherwise: strings become text, not structured
// output; slices, maps and types with their own JSON encoding have no
// schema a client could rely on.
//
// The schema describes what encoding/json writes for the type, null
// included: a client may check every structured result against it (the
// MCP TypeScript SDK does, and fails the call when the check fails), so a
// nil slice, map, pointer or interface anywhere in the result must pass.
func outputSchemaFor(t reflect.Type) json.RawMessage {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == resultType || t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return nil
	}
	if g, ok := generatedOutput.Load(t); ok {
		return slices.Clone(g.(json.RawMessage))
	}
	s, err := generateSchema(t, allowNulls)
	if err != nil {
		s = nil
	}
	generatedOutput.Store(t, s)
	return slices.Clone(s)
}

// generatedOutput keeps each type's output schema, as generated keeps
// input schemas.
var generatedOutput sync.Map // reflect.Type → json.RawMessage

var (
	resultType        = reflect.TypeFor[Result]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// checkType walks t and rejects what cannot be a tool argument, before the
// schema generator sees it (it loops forever on recursive types).
func checkType(t reflect.Type, path []string, onPath map[reflect.Type]bool) error {
	where := func() string {
		if len(path) == 0 {
			return t.String()
		}
		return "field " + strings.Join(path, ".") + " (" + t.String() + ")"
	}
	if t == numberType || t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer, reflect.Uintptr:
		return fmt.Errorf("%s: a %v cannot be a tool argument", where(), t.Kind())
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return fmt.Errorf("%s: only the empty interface can hold JSON arguments", where())
		}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkType(t.Elem(), path, onPath)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return fmt.Errorf("%s: map keys must be strings or integers", where())
		}
		return checkType(t.Elem(), path, onPath)
	case reflect.Struct:
		if onPath[t] {
			return fmt.Errorf("%s: recursive types are not supported as tool arguments; supply InputSchema and take json.RawMessage instead", where())
		}
		onPath[t] = true
		defer delete(onPath, t)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			if f.Tag.Get("json") == "-" {
				continue
			}
			if err := checkType(f.Type, append(slices.Clip(path), f.Name), onPath); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSettable rejects an argument type with a field the decoder cannot
// set: an embedded pointer to an unexported struct type. encoding/json
// promotes its fields, so the schema would offer them, and then refuses
// every call that uses them ("cannot set embedded pointer to unexported
// struct"): the tool could never be called with them.
func checkSettable(t reflect.Type, path []string, seen map[reflect.Type]bool) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || ownEncoding(t) {
		return nil
	}
	seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		where := append(slices.Clip(path), f.Name)
		if f.Anonymous && !f.IsExported() && f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct && hasJSONFields(f.Type.Elem()) {
			return fmt.Errorf("field %s (%v): an embedded pointer to an unexported struct type, whose fields the decoder cannot set "+
				"(encoding/json refuses to allocate it), so every call using them would fail; embed %s by value or export its type",
				strings.Join(where, "."), f.Type, f.Type.Elem().Name())
		}
		if err := checkSettable(f.Type, where, seen); err != nil {
			return err
		}
	}
	return nil
}

// hasJSONFields reports whether struct type t gives encoding/json any
// field: an exported one, or one promoted from an embedded struct.
func hasJSONFields(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" {
			continue
		}
		if f.IsExported() {
			return true
		}
		if ft := f.Type; f.Anonymous {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && hasJSONFields(ft) {
				return true
			}
		}
	}
	return false
}

// checkFieldsAgree makes sure the properties the schema lists are exactly
// the fields the decoder fills, so nothing validated is dropped and nothing
// unvalidated is set.
func checkFieldsAgree(t reflect.Type, schema []byte) error {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return err
	}
	fields := decode.Fields(t)
	for _, f := range fields {
		if _, ok := s.Properties[f]; !ok {
			return fmt.Errorf("field %q of %v decodes from JSON but is missing from the generated schema (check its jsonschema tags)", f, t)
		}
	}
	for p := range s.Properties {
		if !slices.Contains(fields, p) {
			return fmt.Errorf("schema property %q of %v matches no field the decoder would fill", p, t)
		}
	}
	return nil
}

var (
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)
