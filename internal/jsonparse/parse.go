// Package jsonparse is the strict, linear-time JSON reader behind preflight.
//
// It reads a document once, in one pass, into the tree the schema validator
// checks and the typed decoder consumes: map[string]any, []any, string,
// json.Number, bool and nil. It rejects what encoding/json lets through and a
// model-written document must not carry: duplicate keys, invalid UTF-8,
// lone surrogate escapes, and anything past the configured limits. (Keys
// that differ only by case are the schema's business: see the schema
// package's FoldedKey, which refuses those that fold onto a declared
// property, and lets the distinct keys of free-form maps through.) Every limit is checked as the bytes are read, so
// the cost is linear in the input whatever it holds.
package jsonparse

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits bounds what Parse accepts. A zero field means no limit.
type Limits struct {
	MaxBytes       int // whole document
	MaxDepth       int // nesting of objects and arrays
	MaxStringBytes int // one string (key or value), after unescaping
	MaxNumberLen   int // one number token
	MaxExponent    int // absolute value of a number's written exponent
	MaxElements    int // members of one object or items of one array
}

type parser struct {
	data  []byte
	pos   int
	depth int
	lim   Limits
	keys  map[string]string // known keys, shared rather than copied
	path  tokens            // JSON pointer tokens of the value being read, for errors
}

// tokens is a stack of JSON pointer tokens: the first few in place, so
// that a parser holds no pointer into itself and reading a document of
// ordinary depth allocates no stack.
type tokens struct {
	first [8]string
	rest  []string
	n     int
}

func (t *tokens) push(s string) {
	if t.n < len(t.first) {
		t.first[t.n] = s
	} else {
		t.rest = append(t.rest, s)
	}
	t.n++
}

func (t *tokens) pop() {
	t.n--
	if t.n >= len(t.first) {
		t.rest = t.rest[:t.n-len(t.first)]
	} else {
		t.first[t.n] = ""
	}
}

// pointer is the RFC 6901 pointer of the tokens.
func (t *tokens) pointer() string {
	var b strings.Builder
	for i := range t.n {
		tok := ""
		if i < len(t.first) {
			tok = t.first[i]
		} else {
			tok = t.rest[i-len(t.first)]
		}
		b.WriteByte('/')
		b.WriteString(EscapePointerToken(tok))
	}
	return b.String()
}

// Parse reads exactly one JSON value from data, followed only by whitespace.
func Parse(data []byte, lim Limits) (any, *Error) {
	return ParseKeys(data, lim, nil)
}

// ParseKeys is [Parse] for a document whose object keys are likely to be
// among keys (a schema's declared names, each mapped to itself): such a
// key is that string rather than a copy of it. Only the allocation
// differs.
func ParseKeys(data []byte, lim Limits, keys map[string]string) (any, *Error) {
	if lim.MaxBytes > 0 && len(data) > lim.MaxBytes {
		return nil, &Error{Kind: TooLarge, Offset: lim.MaxBytes, Limit: lim.MaxBytes, Size: len(data)}
	}
	p := parser{data: data, lim: lim, keys: keys}
	p.skipSpace()
	if p.pos == len(data) {
		return nil, &Error{Kind: Empty}
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(data) {
		e := &Error{Kind: TrailingData, Offset: p.pos}
		switch data[p.pos] {
		case '{', '[', '"':
			e.Detail = "another JSON document"
		}
		return nil, e
	}
	return v, nil
}

func (p *parser) fail(kind ErrorKind, detail string) *Error {
	return &Error{Kind: kind, Offset: p.pos, Pointer: p.path.pointer(), Detail: detail}
}

func (p *parser) truncated(detail string) *Error {
	return &Error{Kind: Truncated, Offset: len(p.data), Pointer: p.path.pointer(), Detail: detail}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (any, *Error) {
	if p.pos >= len(p.data) {
		return nil, p.truncated("a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str(false)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	default:
		return nil, p.fail(Syntax, "expected a value, got "+describeByte(p.data, p.pos))
	}
}

func (p *parser) literal(word string) *Error {
	rest := p.data[p.pos:]
	n := min(len(rest), len(word))
	if string(rest[:n]) != word[:n] {
		return p.fail(Syntax, "expected "+strconv.Quote(word)+", got "+describeByte(p.data, p.pos))
	}
	if n < len(word) {
		return p.truncated(strconv.Quote(word))
	}
	p.pos += len(word)
	return nil
}

func (p *parser) enter() *Error {
	p.depth++
	if p.lim.MaxDepth > 0 && p.depth > p.lim.MaxDepth {
		e := p.fail(TooDeep, "")
		e.Limit = p.lim.MaxDepth
		return e
	}
	return nil
}

func (p *parser) object() (any, *Error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '{'
	m := make(map[string]any)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return m, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.truncated("a key")
		}
		if p.data[p.pos] != '"' {
			return nil, p.fail(Syntax, "expected a quoted key, got "+describeByte(p.data, p.pos))
		}
		keyStart := p.pos
		key, err := p.str(true)
		if err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			e := &Error{Kind: DuplicateKey, Offset: keyStart, Pointer: p.path.pointer(), Key: key}
			return nil, e
		}
		if p.lim.MaxElements > 0 && len(m) >= p.lim.MaxElements {
			e := p.fail(TooManyElements, "object members")
			e.Limit = p.lim.MaxElements
			return nil, e
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			p.path.push(key)
			return nil, p.truncated("':' after the key")
		}
		if p.data[p.pos] != ':' {
			return nil, p.fail(Syntax, "expected ':' after key "+strconv.Quote(key)+", got "+describeByte(p.data, p.pos))
		}
		p.pos++
		p.skipSpace()
		p.path.push(key)
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.path.pop()
		m[key] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.truncated("',' or '}'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return m, nil
		default:
			return nil, p.fail(Syntax, "expected ',' or '}' after a member, got "+describeByte(p.data, p.pos))
		}
	}
}

func (p *parser) array() (any, *Error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '['
	a := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return a, nil
	}
	for {
		if p.lim.MaxElements > 0 && len(a) >= p.lim.MaxElements {
			e := p.fail(TooManyElements, "array items")
			e.Limit = p.lim.MaxElements
			return nil, e
		}
		p.skipSpace()
		p.path.push(strconv.Itoa(len(a)))
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.path.pop()
		a = append(a, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.truncated("',' or ']'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			return a, nil
		default:
			return nil, p.fail(Syntax, "expected ',' or ']' after an item, got "+describeByte(p.data, p.pos))
		}
	}
}

// str reads a string starting at the opening quote; a key found in
// p.keys is the string kept there.
func (p *parser) str(key bool) (string, *Error) {
	start := p.pos + 1
	i := start
	// Fast path: no escapes.
	for i < len(p.data) {
		c := p.data[i]
		if c == '"' {
			if err := p.checkStringLen(i - start); err != nil {
				return "", err
			}
			p.pos = i + 1
			if key {
				if k, ok := p.keys[string(p.data[start:i])]; ok {
					return k, nil
				}
			}
			return string(p.data[start:i]), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			p.pos = i
			return "", p.fail(Syntax, "raw control character "+describeByte(p.data, i)+" inside a string; escape it")
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p.data[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(p.data[i:]) {
				p.pos = i
				return "", p.truncated("the rest of a string")
			}
			p.pos = i
			return "", p.fail(InvalidUTF8, "")
		}
		i += size
	}
	if i >= len(p.data) {
		p.pos = i
		return "", p.truncated("the rest of a string")
	}
	return p.slowString(start, i)
}

// slowString continues a string that contains escapes; the bytes from start
// to i are already checked.
func (p *parser) slowString(start, i int) (string, *Error) {
	var b strings.Builder
	b.Grow(i - start + 16)
	b.Write(p.data[start:i])
	for {
		if p.lim.MaxStringBytes > 0 && b.Len() > p.lim.MaxStringBytes {
			p.pos = i
			return "", p.checkStringLen(b.Len())
		}
		if i >= len(p.data) {
			p.pos = i
			return "", p.truncated("the rest of a string")
		}
		c := p.data[i]
		switch {
		case c == '"':
			if err := p.checkStringLen(b.Len()); err != nil {
				return "", err
			}
			p.pos = i + 1
			return b.String(), nil
		case c == '\\':
			if i+1 >= len(p.data) {
				p.pos = i
				return "", p.truncated("an escape sequence")
			}
			esc := p.data[i+1]
			switch esc {
			case '"', '\\', '/':
				b.WriteByte(esc)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, n, err := p.unicodeEscape(i)
				if err != nil {
					return "", err
				}
				b.WriteRune(r)
				i += n
				continue
			default:
				p.pos = i
				return "", p.fail(Syntax, "invalid escape "+strconv.Quote(string([]byte{'\\', esc}))+" inside a string")
			}
			i += 2
		case c < 0x20:
			p.pos = i
			return "", p.fail(Syntax, "raw control character "+describeByte(p.data, i)+" inside a string; escape it")
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRune(p.data[i:])
			if r == utf8.RuneError && size == 1 {
				p.pos = i
				if !utf8.FullRune(p.data[i:]) {
					return "", p.truncated("the rest of a string")
				}
				return "", p.fail(InvalidUTF8, "")
			}
			b.Write(p.data[i : i+size])
			i += size
		}
	}
}

// unicodeEscape decodes \uXXXX at i (and its low surrogate pair, if any),
// returning the rune and the number of bytes consumed.
func (p *parser) unicodeEscape(i int) (rune, int, *Error) {
	r, err := p.hex4(i)
	if err != nil {
		return 0, 0, err
	}
	if r < 0xD800 || r > 0xDFFF {
		return r, 6, nil
	}
	if r >= 0xDC00 {
		p.pos = i
		return 0, 0, p.fail(LoneSurrogate, strconv.Quote(string(p.data[i:i+6])))
	}
	// High surrogate: a low one must follow.
	if i+6 >= len(p.data) || (i+7 >= len(p.data) && p.data[i+6] == '\\') {
		p.pos = i
		return 0, 0, p.truncated("the low half of a surrogate pair")
	}
	if p.data[i+6] != '\\' || p.data[i+7] != 'u' {
		p.pos = i
		return 0, 0, p.fail(LoneSurrogate, strconv.Quote(string(p.data[i:i+6])))
	}
	r2, err := p.hex4(i + 6)
	if err != nil {
		return 0, 0, err
	}
	if r2 < 0xDC00 || r2 > 0xDFFF {
		p.pos = i
		return 0, 0, p.fail(LoneSurrogate, strconv.Quote(string(p.data[i:i+6])))
	}
	return 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00), 12, nil
}

func (p *parser) hex4(i int) (rune, *Error) {
	if i+6 > len(p.data) {
		for j := i + 2; j < len(p.data); j++ {
			if hexVal(p.data[j]) < 0 {
				p.pos = j
				return 0, p.fail(Syntax, "invalid \\u escape inside a string")
			}
		}
		p.pos = i
		return 0, p.truncated("a \\u escape")
	}
	var r rune
	for j := i + 2; j < i+6; j++ {
		h := hexVal(p.data[j])
		if h < 0 {
			p.pos = j
			return 0, p.fail(Syntax, "invalid \\u escape inside a string")
		}
		r = r<<4 | rune(h)
	}
	return r, nil
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (p *parser) checkStringLen(n int) *Error {
	if p.lim.MaxStringBytes > 0 && n > p.lim.MaxStringBytes {
		e := p.fail(StringTooLong, "")
		e.Limit = p.lim.MaxStringBytes
		return e
	}
	return nil
}

// number reads an RFC 8259 number. Its literal text is kept as json.Number,
// so no precision is lost before the schema sees it.
func (p *parser) number() (any, *Error) {
	start := p.pos
	i := p.pos
	d := p.data
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
			if p.lim.MaxNumberLen > 0 && i-start > p.lim.MaxNumberLen {
				return n
			}
		}
		return n
	}
	tooLong := func() *Error {
		p.pos = start
		e := p.fail(NumberTooLong, "")
		e.Limit = p.lim.MaxNumberLen
		return e
	}
	endOrBad := func(what string) *Error {
		if i >= len(d) {
			p.pos = i
			return p.truncated(what)
		}
		p.pos = i
		return p.fail(Syntax, "expected "+what+" in a number, got "+describeByte(d, i))
	}
	if i >= len(d) {
		return nil, endOrBad("a digit")
	}
	if d[i] == '0' {
		i++
		if i < len(d) && d[i] >= '0' && d[i] <= '9' {
			p.pos = i
			return nil, p.fail(Syntax, "a number cannot have a leading zero")
		}
	} else if digits() == 0 {
		return nil, endOrBad("a digit")
	}
	if p.lim.MaxNumberLen > 0 && i-start > p.lim.MaxNumberLen {
		return nil, tooLong()
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return nil, endOrBad("a digit after '.'")
		}
	}
	hasExp := false
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		hasExp = true
		i++
		neg := false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			neg = d[i] == '-'
			i++
		}
		expStart := i
		if digits() == 0 {
			return nil, endOrBad("a digit in the exponent")
		}
		if p.lim.MaxExponent > 0 && !(p.lim.MaxNumberLen > 0 && i-start > p.lim.MaxNumberLen) {
			exp := 0
			for _, c := range d[expStart:i] {
				exp = exp*10 + int(c-'0')
				if exp > p.lim.MaxExponent {
					p.pos = start
					e := p.fail(ExponentTooLarge, "")
					e.Limit = p.lim.MaxExponent
					if neg {
						e.Detail = "-"
					}
					return nil, e
				}
			}
		}
	}
	if p.lim.MaxNumberLen > 0 && i-start > p.lim.MaxNumberLen {
		return nil, tooLong()
	}
	// Without an exponent a number of bounded length fits a float64; with
	// one it may not, and then nothing downstream can hold it (a float64
	// field, a JavaScript reader), so it is refused here, where the message
	// can say why.
	if hasExp {
		if f, err := strconv.ParseFloat(string(d[start:i]), 64); err != nil && math.IsInf(f, 0) {
			p.pos = start
			return nil, p.fail(NumberOutOfRange, "")
		}
	}
	p.pos = i
	return json.Number(d[start:i]), nil
}

// CheckNumber holds one number literal to the rule Parse holds a
// document's numbers to: at most MaxNumberLen characters, an exponent
// within ±MaxExponent, and within what a float64 holds. A schema's own
// numbers go through it, so that a schema needs no number its arguments
// could not carry (and checking arguments against it stays cheap).
func CheckNumber(lit string, lim Limits) *Error {
	p := parser{data: []byte(lit), lim: Limits{MaxNumberLen: lim.MaxNumberLen, MaxExponent: lim.MaxExponent}}
	if len(lit) == 0 {
		return &Error{Kind: Syntax, Detail: "not a number"}
	}
	if _, err := p.number(); err != nil {
		return err
	}
	if p.pos != len(lit) {
		return p.fail(Syntax, "not a number")
	}
	return nil
}

// FoldKey maps s to a canonical representative of its Unicode simple case
// folding orbit, so that two keys are EqualFold exactly when their fold keys
// are equal.
func FoldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

func foldRune(r rune) rune {
	lo := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < lo {
			lo = f
		}
	}
	return lo
}

func describeByte(d []byte, i int) string {
	if i >= len(d) {
		return "the end of the input"
	}
	c := d[i]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

// EscapePointerToken escapes one RFC 6901 reference token.
func EscapePointerToken(t string) string {
	if strings.IndexByte(t, '~') < 0 && strings.IndexByte(t, '/') < 0 {
		return t
	}
	t = strings.ReplaceAll(t, "~", "~0")
	return strings.ReplaceAll(t, "/", "~1")
}

// pointerUnescaper reads "~1" and "~0" in one pass, so that "~01" is "~1".
var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// UnescapePointerToken undoes [EscapePointerToken].
func UnescapePointerToken(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return pointerUnescaper.Replace(t)
}
