// Package decode assigns a validated JSON tree (map[string]any, []any,
// string, json.Number, bool, nil) to a Go value.
//
// It is the second half of preflight's single decode: the tree the schema
// validator saw is the value the typed tool receives, with no second parse of
// the bytes. Field names follow encoding/json exactly but matching is exact
// (never case-insensitive), and integral numbers written as 5.0 or 1e2 fill
// integer fields, as JSON Schema counts them as integers.
package decode

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
)

// Error says which value could not be assigned and why.
type Error struct {
	Pointer  string // RFC 6901 pointer of the value
	Expected string // what the Go type needs
	Got      string // what the value was
	Detail   string
}

func (e *Error) Error() string {
	msg := "at " + orRoot(e.Pointer) + ": expected " + e.Expected
	if e.Got != "" {
		msg += ", got " + e.Got
	}
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func orRoot(p string) string {
	if p == "" {
		return "the top level"
	}
	return p
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType      = reflect.TypeFor[json.Number]()
	rawType         = reflect.TypeFor[json.RawMessage]()
)

// Into assigns v to the value dst points to.
func Into(dst any, v any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &Error{Expected: "a non-nil pointer destination", Got: fmt.Sprintf("%T", dst)}
	}
	d := decoder{}
	return d.value(rv.Elem(), v)
}

type decoder struct {
	path []string
}

func (d *decoder) fail(expected string, v any, detail string) error {
	var b strings.Builder
	for _, t := range d.path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return &Error{Pointer: b.String(), Expected: expected, Got: Kind(v), Detail: detail}
}

// Kind names the JSON type of a tree value.
func Kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "number"
		}
		return "integer"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

func (d *decoder) value(rv reflect.Value, v any) error {
	t := rv.Type()
	// Special types first, as encoding/json checks them.
	switch t {
	case numberType:
		n, ok := v.(json.Number)
		if !ok {
			if v == nil {
				return nil
			}
			return d.fail("number", v, "")
		}
		rv.SetString(string(n))
		return nil
	case rawType:
		raw, err := json.Marshal(v)
		if err != nil {
			return d.fail("JSON value", v, err.Error())
		}
		rv.SetBytes(raw)
		return nil
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && rv.CanAddr() {
		pt := reflect.PointerTo(t)
		if pt.Implements(jsonUnmarshaler) {
			raw, err := json.Marshal(v)
			if err == nil {
				err = rv.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw)
			}
			if err != nil {
				return d.fail(t.String(), v, err.Error())
			}
			return nil
		}
		if s, ok := v.(string); ok && pt.Implements(textUnmarshaler) {
			if err := rv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
				return d.fail(t.String(), v, err.Error())
			}
			return nil
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v == nil {
			rv.SetZero()
			return nil
		}
		if rv.IsNil() {
			rv.Set(reflect.New(t.Elem()))
		}
		return d.value(rv.Elem(), v)
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return d.fail(t.String(), v, "interface with methods")
		}
		if v == nil {
			rv.SetZero()
			return nil
		}
		pv, err := d.plain(v)
		if err != nil {
			return err
		}
		rv.Set(reflect.ValueOf(pv))
		return nil
	}
	if v == nil {
		// As encoding/json: null leaves a non-pointer value unchanged.
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return d.fail("string", v, "")
		}
		rv.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return d.fail("boolean", v, "")
		}
		rv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return d.fail("integer", v, "")
		}
		i, err := intOf(n, t.Bits())
		if err != nil {
			return d.fail("integer", v, err.Error())
		}
		rv.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, ok := v.(json.Number)
		if !ok {
			return d.fail("integer", v, "")
		}
		u, err := uintOf(n, t.Bits())
		if err != nil {
			return d.fail("non-negative integer", v, err.Error())
		}
		rv.SetUint(u)
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return d.fail("number", v, "")
		}
		f, err := parseFloat(string(n), t.Bits())
		if err != nil {
			return d.fail("number", v, string(n)+" is out of range for a "+strconv.Itoa(t.Bits())+"-bit float")
		}
		rv.SetFloat(f)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			s, ok := v.(string)
			if !ok {
				return d.fail("base64 string", v, "")
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return d.fail("base64 string", v, "not valid base64")
			}
			rv.SetBytes(b)
			return nil
		}
		a, ok := v.([]any)
		if !ok {
			return d.fail("array", v, "")
		}
		s := reflect.MakeSlice(t, len(a), len(a))
		for i, e := range a {
			d.path = append(d.path, strconv.Itoa(i))
			if err := d.value(s.Index(i), e); err != nil {
				return err
			}
			d.path = d.path[:len(d.path)-1]
		}
		rv.Set(s)
	case reflect.Array:
		a, ok := v.([]any)
		if !ok {
			return d.fail("array", v, "")
		}
		if len(a) != t.Len() {
			return d.fail("array of "+strconv.Itoa(t.Len())+" items", v, strconv.Itoa(len(a))+" items")
		}
		for i, e := range a {
			d.path = append(d.path, strconv.Itoa(i))
			if err := d.value(rv.Index(i), e); err != nil {
				return err
			}
			d.path = d.path[:len(d.path)-1]
		}
	case reflect.Map:
		return d.mapValue(rv, v)
	case reflect.Struct:
		return d.structValue(rv, v)
	default:
		return d.fail(t.String(), v, "unsupported Go type")
	}
	return nil
}

func (d *decoder) mapValue(rv reflect.Value, v any) error {
	t := rv.Type()
	m, ok := v.(map[string]any)
	if !ok {
		return d.fail("object", v, "")
	}
	out := reflect.MakeMapWithSize(t, len(m))
	kt := t.Key()
	for k, e := range m {
		kv := reflect.New(kt).Elem()
		switch {
		case kt.Kind() == reflect.String && !reflect.PointerTo(kt).Implements(textUnmarshaler):
			kv.SetString(k)
		case reflect.PointerTo(kt).Implements(textUnmarshaler):
			if err := kv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(k)); err != nil {
				return d.fail(kt.String()+" key", k, err.Error())
			}
		case kv.CanInt():
			i, err := strconv.ParseInt(k, 10, kt.Bits())
			if err != nil {
				return d.fail("integer key", k, "")
			}
			kv.SetInt(i)
		case kv.CanUint():
			u, err := strconv.ParseUint(k, 10, kt.Bits())
			if err != nil {
				return d.fail("non-negative integer key", k, "")
			}
			kv.SetUint(u)
		default:
			return d.fail("string key", k, "unsupported key type "+kt.String())
		}
		ev := reflect.New(t.Elem()).Elem()
		d.path = append(d.path, k)
		if err := d.value(ev, e); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
		out.SetMapIndex(kv, ev)
	}
	rv.Set(out)
	return nil
}

func (d *decoder) structValue(rv reflect.Value, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return d.fail("object", v, "")
	}
	fields := fieldsOf(rv.Type())
	for k, e := range m {
		f, ok := fields[k]
		if !ok {
			continue // only reachable when the schema allows extra keys
		}
		fv, err := fieldByIndex(rv, f.index)
		if err != nil {
			d.path = append(d.path, k)
			return d.fail(f.typ.String(), e, err.Error())
		}
		d.path = append(d.path, k)
		if err := d.value(fv, e); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
	}
	return nil
}

// fieldByIndex walks index, allocating embedded struct pointers on the way.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, fmt.Errorf("cannot set embedded pointer to unexported struct %v", v.Type().Elem())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// plain converts a tree value for an interface{} destination the way
// encoding/json would: numbers become float64.
func (d *decoder) plain(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := parseFloat(string(x), 64)
		if err != nil {
			return nil, d.fail("number", v, string(x)+" is out of range")
		}
		return f, nil
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			d.path = append(d.path, k)
			pe, err := d.plain(e)
			if err != nil {
				return nil, err
			}
			d.path = d.path[:len(d.path)-1]
			m[k] = pe
		}
		return m, nil
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			d.path = append(d.path, strconv.Itoa(i))
			pe, err := d.plain(e)
			if err != nil {
				return nil, err
			}
			d.path = d.path[:len(d.path)-1]
			a[i] = pe
		}
		return a, nil
	}
	return v, nil
}

// intOf reads an integral number, however it is written (5, 5.0, 1e2), into
// an int of the given size.
// parseFloat is strconv.ParseFloat, except that a value too small for the
// float, which JSON Schema still counts as a number, becomes zero (as
// rounding to the nearest float says) instead of an error.
func parseFloat(s string, bits int) (float64, error) {
	f, err := strconv.ParseFloat(s, bits)
	if err != nil && f == 0 && errors.Is(err, strconv.ErrRange) {
		return f, nil
	}
	return f, err
}

func intOf(n json.Number, bits int) (int64, error) {
	if i, err := strconv.ParseInt(string(n), 10, bits); err == nil {
		return i, nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() {
		return 0, fmt.Errorf("%s is not a whole number", n)
	}
	num := r.Num()
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	if !num.IsInt64() || num.Int64() < lo || num.Int64() > hi {
		return 0, fmt.Errorf("%s is out of range: this field holds integers from %d to %d", n, lo, hi)
	}
	return num.Int64(), nil
}

func uintOf(n json.Number, bits int) (uint64, error) {
	if u, err := strconv.ParseUint(string(n), 10, bits); err == nil {
		return u, nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() {
		return 0, fmt.Errorf("%s is not a whole number", n)
	}
	num := r.Num()
	hi := uint64(math.MaxUint64) >> (64 - bits)
	if num.Sign() < 0 || !num.IsUint64() || num.Uint64() > hi {
		return 0, fmt.Errorf("%s is out of range: this field holds integers from 0 to %d", n, hi)
	}
	return num.Uint64(), nil
}
