package decode

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type Embedded struct {
	E string `json:"e"`
}

type target struct {
	Embedded
	I    int             `json:"i"`
	I8   int8            `json:"i8"`
	U    uint            `json:"u"`
	F    float32         `json:"f"`
	P    *int            `json:"p"`
	N    json.Number     `json:"n"`
	Raw  json.RawMessage `json:"raw"`
	B    []byte          `json:"b"`
	T    time.Time       `json:"t"`
	M    map[int]string  `json:"m"`
	A    [2]int          `json:"a"`
	Any  any             `json:"any"`
	Skip string          `json:"-"`
}

func TestInto(t *testing.T) {
	tree := map[string]any{
		"e": "emb", "i": json.Number("1e2"), "i8": json.Number("-5.0"), "u": json.Number("7"), "f": json.Number("0.5"),
		"p": json.Number("3"), "n": json.Number("12345678901234567890"), "raw": map[string]any{"k": []any{true}},
		"b": "aGk=", "t": "2026-11-22T10:00:00Z", "m": map[string]any{"4": "four"}, "a": []any{json.Number("1"), json.Number("2")},
		"any": map[string]any{"x": json.Number("1.5")}, "-": "ignored",
	}
	var got target
	if err := Into(&got, tree); err != nil {
		t.Fatal(err)
	}
	three := 3
	want := target{Embedded: Embedded{"emb"}, I: 100, I8: -5, U: 7, F: 0.5, P: &three, N: "12345678901234567890",
		Raw: json.RawMessage(`{"k":[true]}`), B: []byte("hi"), T: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		M: map[int]string{4: "four"}, A: [2]int{1, 2}, Any: map[string]any{"x": 1.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestIntoRejects(t *testing.T) {
	tests := []struct {
		name    string
		tree    map[string]any
		pointer string
	}{
		{"fraction", map[string]any{"i": json.Number("1.5")}, "/i"},
		{"overflow int8", map[string]any{"i8": json.Number("300")}, "/i8"},
		{"huge", map[string]any{"i": json.Number("1e30")}, "/i"},
		{"negative uint", map[string]any{"u": json.Number("-1")}, "/u"},
		{"string for int", map[string]any{"i": "5"}, "/i"},
		{"bad base64", map[string]any{"b": "%%%"}, "/b"},
		{"bad time", map[string]any{"t": "yesterday"}, "/t"},
		{"short array", map[string]any{"a": []any{json.Number("1")}}, "/a"},
		{"bad map key", map[string]any{"m": map[string]any{"x": "y"}}, "/m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got target
			err := Into(&got, tt.tree)
			de, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v, want *Error", err)
			}
			if de.Pointer != tt.pointer {
				t.Fatalf("pointer = %q, want %q (%v)", de.Pointer, tt.pointer, de)
			}
		})
	}
}

func TestFieldsFollowEncodingJSON(t *testing.T) {
	type A struct{ X, Y int }
	type B struct {
		X int
		Z int `json:"y"`
	}
	type both struct {
		A
		B
		W int `json:"w,omitempty"`
	}
	// X is ambiguous at equal depth and dropped; "y" is tagged in B and wins over A's "Y" only by exact name.
	got := Fields(reflect.TypeFor[both]())
	want := []string{"Y", "w", "y"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Fields = %v, want %v", got, want)
	}
}
