// Package canon writes the canonical JSON of a validated argument tree:
// what a raw tool and a program receive, what an approval covers and what a
// cursor binds. Object keys are sorted, strings are escaped the way
// encoding/json escapes them but without the HTML escapes, and every
// number is written in one form for its exact value, so that the same
// arguments always give the same bytes however the model wrote them: 5,
// 5.0, 0.5e1 and 5E0 are all 5.
package canon

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Encode returns the canonical JSON of v, a tree of map[string]any, []any,
// string, json.Number, bool and nil (what preflight validates). Values of
// other types are written as encoding/json writes them.
func Encode(v any) []byte {
	return appendValue(make([]byte, 0, 128), v)
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return AppendString(b, x)
	case json.Number:
		return append(b, Number(string(x))...)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, k)
			b = append(b, ':')
			b = appendValue(b, x[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	}
	out, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, out...)
}

// AppendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, U+2028 and U+2029 escaped (as encoding/json does),
// invalid UTF-8 replaced by U+FFFD, and nothing else.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			if r == utf8.RuneError {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Number returns the canonical form of a valid JSON number literal: the
// same exact value, with no sign on zero, no leading or trailing zeros, and
// an exponent only when the plain form would be long. An integral value
// within 21 digits is written as an integer ("5", "100"), so a program
// that reads integers reads it; other values as a decimal ("0.25", "1.5")
// or with an exponent ("1e-7", "1.5e+30").
func Number(lit string) string {
	neg := strings.HasPrefix(lit, "-")
	s := strings.TrimPrefix(lit, "-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil {
			return lit // not a literal preflight lets through
		}
		exp = e
		s = s[:i]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		exp -= len(s) - i - 1
		s = s[:i] + s[i+1:]
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return "0"
	}
	for strings.HasSuffix(s, "0") {
		s = s[:len(s)-1]
		exp++
	}
	// The value is s × 10^exp, s without leading or trailing zeros.
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	n := len(s)
	point := n + exp // digits before the decimal point
	switch {
	case exp >= 0 && point <= 21:
		b.WriteString(s)
		b.WriteString(strings.Repeat("0", exp))
	case exp < 0 && point > 0:
		b.WriteString(s[:point])
		b.WriteByte('.')
		b.WriteString(s[point:])
	case exp < 0 && point > -6:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		b.WriteString(s)
	default:
		b.WriteString(s[:1])
		if n > 1 {
			b.WriteByte('.')
			b.WriteString(s[1:])
		}
		e := point - 1
		b.WriteByte('e')
		if e > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(e))
	}
	return b.String()
}
