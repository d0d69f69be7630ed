package plan

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// scanner reads JSON tokens with preflight's rules; where the tree parser
// would refuse a document, or would take a path the plan does not follow,
// it reports false and the slow path reads the document again.
type scanner struct {
	data []byte
	pos  int
	lim  jsonparse.Limits

	defaults, maxDefaults int // filled so far, and the most allowed (0: any)
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) consume(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// readString reads a string: valid UTF-8, no raw control characters,
// escapes unescaped, surrogate escapes only in pairs, within the length
// limit.
func (s *scanner) readString() (string, bool) {
	if !s.consume('"') {
		return "", false
	}
	start := s.pos
	for i := start; i < len(s.data); i++ {
		c := s.data[i]
		switch {
		case c == '"':
			raw := s.data[start:i]
			if s.lim.MaxStringBytes > 0 && len(raw) > s.lim.MaxStringBytes || !utf8.Valid(raw) {
				return "", false
			}
			s.pos = i + 1
			return string(raw), true
		case c == '\\':
			return s.slowString(start)
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// slowString reads a string that holds escapes.
func (s *scanner) slowString(start int) (string, bool) {
	var b strings.Builder
	i := start
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			out := b.String()
			if s.lim.MaxStringBytes > 0 && len(out) > s.lim.MaxStringBytes || !utf8.ValidString(out) {
				return "", false
			}
			s.pos = i + 1
			return out, true
		case c < 0x20:
			return "", false
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s.data) {
			return "", false
		}
		switch e := s.data[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
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
			r, ok := hex4(s.data, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || i+6 > len(s.data) || s.data[i] != '\\' || s.data[i+1] != 'u' {
					return "", false // a lone surrogate: the slow path says so
				}
				lo, ok := hex4(s.data, i+2)
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return "", false
				}
				r = utf16.DecodeRune(r, lo)
				i += 6
			}
			b.WriteRune(r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return "", false
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (s *scanner) readBool() (bool, bool) {
	rest := s.data[s.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.pos += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.pos += 5
		return false, true
	}
	return false, false
}

// readNumber reads a number literal within the length limit; integer
// reports that it has no fraction and no exponent. A number with an
// exponent is read only when it is within the exponent limit (the range
// check is the decoder's).
func (s *scanner) readNumber() (lit string, integer, ok bool) {
	start, i, d := s.pos, s.pos, s.data
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if digits() == 0 {
		return "", false, false
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		i++
		integer = false
		if digits() == 0 {
			return "", false, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		integer = false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		expStart := i
		if digits() == 0 || i-expStart > 3 {
			return "", false, false // exponents past 999 are the slow path's
		}
		exp := 0
		for _, c := range d[expStart:i] {
			exp = exp*10 + int(c-'0')
		}
		if s.lim.MaxExponent > 0 && exp > s.lim.MaxExponent {
			return "", false, false
		}
	}
	if s.lim.MaxNumberLen > 0 && i-start > s.lim.MaxNumberLen {
		return "", false, false
	}
	if i < len(d) && (d[i] >= '0' && d[i] <= '9' || d[i] == '.' || d[i] == 'e' || d[i] == 'E' || d[i] == '-' || d[i] == '+') {
		return "", false, false // 01, 1.2.3: not a number the tree parser reads
	}
	s.pos = i
	return string(d[start:i]), integer, true
}
