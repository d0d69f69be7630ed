package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxDepth bounds the nesting of a schema document. Real tool schemas nest a
// few levels; the bound keeps the recursive walkers' work and stack small on
// hostile input.
const maxDepth = 256

type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// node is a JSON value that keeps the order of object keys: property order
// is what a model reads, and Gemini's propertyOrdering is made from it.
type node struct {
	kind kind
	b    bool
	s    string // a string's value, or a number's literal
	arr  []*node
	keys []string
	vals []*node        // parallel to keys
	idx  map[string]int // keys' positions, built once an object is large
}

// indexAt is the size from which an object indexes its keys: below it a
// linear scan is faster.
const indexAt = 16

func newObject() *node         { return &node{kind: kObject} }
func newString(s string) *node { return &node{kind: kString, s: s} }
func newBool(b bool) *node     { return &node{kind: kBool, b: b} }
func newArray(a ...*node) *node {
	return &node{kind: kArray, arr: a}
}

func newNumber(s string) *node { return &node{kind: kNumber, s: s} }

// get returns the member k of an object, or nil.
func (n *node) get(k string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	if len(n.keys) >= indexAt {
		if n.idx == nil {
			n.idx = make(map[string]int, len(n.keys))
			for i, key := range n.keys {
				n.idx[key] = i
			}
		}
		if i, ok := n.idx[k]; ok {
			return n.vals[i]
		}
		return nil
	}
	for i, key := range n.keys {
		if key == k {
			return n.vals[i]
		}
	}
	return nil
}

func (n *node) has(k string) bool { return n.get(k) != nil }

// set replaces member k, or appends it.
func (n *node) set(k string, v *node) {
	if n.idx != nil {
		if i, ok := n.idx[k]; ok {
			n.vals[i] = v
			return
		}
		n.idx[k] = len(n.keys)
	} else {
		for i, key := range n.keys {
			if key == k {
				n.vals[i] = v
				return
			}
		}
	}
	n.keys = append(n.keys, k)
	n.vals = append(n.vals, v)
}

// del removes member k, if present.
func (n *node) del(k string) {
	n.idx = nil
	for i, key := range n.keys {
		if key == k {
			n.keys = append(n.keys[:i:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i:i], n.vals[i+1:]...)
			return
		}
	}
}

// str returns the member k when it is a string.
func (n *node) str(k string) (string, bool) {
	v := n.get(k)
	if v == nil || v.kind != kString {
		return "", false
	}
	return v.s, true
}

// clone copies n deeply.
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := &node{kind: n.kind, b: n.b, s: n.s}
	if n.arr != nil {
		c.arr = make([]*node, len(n.arr))
		for i, e := range n.arr {
			c.arr[i] = e.clone()
		}
	}
	if n.keys != nil {
		c.keys = append([]string(nil), n.keys...)
		c.vals = make([]*node, len(n.vals))
		for i, e := range n.vals {
			c.vals[i] = e.clone()
		}
	}
	return c
}

// parse reads one JSON document. Duplicate keys are refused: a schema with
// two "type"s means two different things to two readers.
func parse(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the schema")
	}
	return n, nil
}

func parseValue(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("the schema nests deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				if o.has(k) {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := newArray()
			for dec.More() {
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a.arr = append(a.arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return newString(t), nil
	case json.Number:
		return newNumber(string(t)), nil
	case bool:
		return newBool(t), nil
	case nil:
		return &node{kind: kNull}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// marshal writes n as compact JSON, keys in order, without HTML escaping.
func (n *node) marshal() json.RawMessage {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes()
}

func (n *node) write(b *bytes.Buffer) {
	switch n.kind {
	case kNull:
		b.WriteString("null")
	case kBool:
		b.WriteString(strconv.FormatBool(n.b))
	case kNumber:
		b.WriteString(n.s)
	case kString:
		writeString(b, n.s)
	case kArray:
		b.WriteByte('[')
		for i, e := range n.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	case kObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
}

// compact renders n as JSON for a description, cut to max bytes.
func (n *node) compact(max int) string {
	s := string(n.marshal())
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }

// pointerToken escapes a JSON pointer token (RFC 6901).
func pointerToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// unescapeToken undoes pointerToken.
func unescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// resolve follows a local reference ("#", "#/$defs/x") from root. It
// reports false for anything else: anchors, other documents, missing
// targets.
func resolve(root *node, ref string) (*node, bool) {
	if ref == "#" {
		return root, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = unescapeToken(tok)
		switch cur.kind {
		case kObject:
			cur = cur.get(tok)
		case kArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.arr) || strconv.Itoa(i) != tok {
				return nil, false
			}
			cur = cur.arr[i]
		default:
			return nil, false
		}
		if cur == nil {
			return nil, false
		}
	}
	return cur, true
}

// types returns the "type" of a subschema as a list, and whether it has one.
func (n *node) types() ([]string, bool) {
	t := n.get("type")
	if t == nil {
		return nil, false
	}
	switch t.kind {
	case kString:
		return []string{t.s}, true
	case kArray:
		out := make([]string, 0, len(t.arr))
		for _, e := range t.arr {
			if e.kind == kString {
				out = append(out, e.s)
			}
		}
		return out, true
	}
	return nil, true
}

// nonNegInt reads a non-negative integer literal ("3", "3.0", "3e0").
func nonNegInt(n *node) (int64, bool) {
	if n == nil || n.kind != kNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.s, 64)
	if err != nil || f < 0 || f != float64(int64(f)) || f > 1<<53 {
		return 0, false
	}
	return int64(f), true
}
