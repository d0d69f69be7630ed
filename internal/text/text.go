// Package text makes strings safe to show a model or a human approver:
// escaped, bounded, and cut on character boundaries.
package text

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Clean returns s with everything a model must not receive raw made
// visible: C0 controls other than newline and tab, DEL and C1 controls
// become \xNN escapes, and invalid UTF-8 bytes become U+FFFD. It returns s
// itself, without allocating, when there is nothing to change.
func Clean(s string) string { return clean(s, false) }

// CleanModel is Clean for the model view: unless keepInvisible is set, it
// also escapes the characters that are invisible or reorder text when
// displayed, a known channel for instructions a person reading the same
// text would not see: bidirectional controls, zero-width spaces and word
// joiners, the byte order mark, and the Unicode tag characters
// (U+E0000–U+E007F). The joiners scripts and emoji need (ZWJ, ZWNJ) and
// variation selectors are kept.
func CleanModel(s string, keepInvisible bool) string { return clean(s, !keepInvisible) }

// Invisible reports whether r is one of the characters CleanModel escapes
// besides the controls.
func Invisible(r rune) bool {
	switch {
	case r == 0x061C, r == 0x180E, r == 0x200B, r == 0x200E, r == 0x200F, r == 0xFEFF:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069:
		return true
	case r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}

func clean(s string, invisible bool) string {
	i := firstUnclean(s, invisible)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				writeEscape(&b, rune(c))
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r >= 0x80 && r <= 0x9f, invisible && Invisible(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func firstUnclean(s string, invisible bool) int {
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are printable ASCII, which most
		// text is: a word with a byte that may need a look (a control, DEL,
		// a newline, a tab, a byte of a longer character) is read byte by
		// byte below.
		if i+8 <= len(s) && printableASCII(s[i:i+8]) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f || invisible && Invisible(r) {
			return i
		}
		i += size
	}
	return -1
}

// printableASCII reports whether the eight bytes of w are each between
// 0x20 and 0x7e.
func printableASCII(w string) bool {
	_ = w[7]
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	del := x ^ (0x7f * ones)
	// A byte with its high bit set, one below 0x20, one equal to 0x7f
	// (zero after the xor): each sets a high bit here.
	return (x|(x-0x20*ones)&^x|(del-ones)&^del)&highs == 0
}

func writeEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	if r < 0x100 {
		b.WriteString(`\x`)
		b.WriteByte(hex[r>>4])
		b.WriteByte(hex[r&0xf])
		return
	}
	if r > 0xFFFF {
		b.WriteString(`\U`)
		for s := 28; s >= 0; s -= 4 {
			b.WriteByte(hex[(r>>s)&0xf])
		}
		return
	}
	b.WriteString(`\u`)
	for s := 12; s >= 0; s -= 4 {
		b.WriteByte(hex[(r>>s)&0xf])
	}
}

// Visible is Clean for text a human approves: it also makes visible the
// characters that can disguise text (bidirectional controls, zero-width and
// other format characters), and escapes newlines and tabs too when oneLine
// is set.
func Visible(s string, oneLine bool) string {
	var b strings.Builder
	for _, r := range Clean(s) {
		switch {
		case oneLine && (r == '\n' || r == '\t'):
			writeEscape(&b, r)
		case r != '\n' && r != '\t' && (unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)):
			writeEscape(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Quote returns s as a Go-syntax double-quoted string (every control and
// non-printable character escaped), cut to at most max bytes of the
// original with the number of bytes left out noted.
func Quote(s string, max int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := Cut(s, max)
	return strconv.Quote(cut) + "… (" + strconv.Itoa(len(s)-len(cut)) + " more bytes)"
}

// AppendQuote appends Quote(s, max) to dst.
func AppendQuote(dst []byte, s string, max int) []byte {
	if len(s) <= max {
		return strconv.AppendQuote(dst, s)
	}
	cut := Cut(s, max)
	dst = strconv.AppendQuote(dst, cut)
	dst = append(dst, "… ("...)
	dst = strconv.AppendInt(dst, int64(len(s)-len(cut)), 10)
	return append(dst, " more bytes)"...)
}

// QuoteASCII is Quote with every non-ASCII character escaped too, for
// names and keys, where a look-alike letter from another script must show.
func QuoteASCII(s string, max int) string {
	if len(s) <= max {
		return strconv.QuoteToASCII(s)
	}
	cut := Cut(s, max)
	return strconv.QuoteToASCII(cut) + "… (" + strconv.Itoa(len(s)-len(cut)) + " more bytes)"
}

// Cut returns the longest prefix of s of at most max bytes that ends on a
// character boundary.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// Tail returns the longest suffix of s of at most n bytes that starts on
// a character boundary.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - max(n, 0)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// CutLine is Cut that prefers to end after a newline: when one falls in
// the last quarter of the prefix Cut returns, the prefix ends there, so a
// reader gets whole lines.
func CutLine(s string, max int) string {
	c := Cut(s, max)
	if len(c) == len(s) {
		return c
	}
	if i := strings.LastIndexByte(c, '\n'); i >= 0 && i >= len(c)-len(c)/4 {
		return c[:i+1]
	}
	return c
}

// Bound returns s unchanged when it fits in max bytes, and otherwise cuts it
// on a character boundary and appends a note of how much was left out; the
// result is never longer than max (for max ≥ 64).
func Bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	note := "\n… [" + strconv.Itoa(len(s)) + " bytes in all; cut to fit]"
	return Cut(s, max-len(note)) + note
}

// HeadTail returns s unchanged when it fits in max bytes. Otherwise it keeps
// the head (two thirds) and the tail (one third), cut on character
// boundaries, joined by a marker that says how many bytes were left out,
// and returns that count. The result is never longer than max (for max ≥
// 96); the start and the end of an output are where a reader looks.
func HeadTail(s string, max int) (string, int) {
	out, headEnd, tailStart := HeadTailMarked(s, max, func(n int) string { return "\n[… " + strconv.Itoa(n) + " bytes cut here …]\n" })
	return out, tailStart - headEnd
}

// HeadTailMarked is HeadTail with the caller's marker, which is given the
// number of bytes cut; marker(n) must be no longer than marker(len(s)) for
// any n ≤ len(s). It also returns where the cut starts and ends in s:
// s[headEnd:tailStart] is what was left out, and both ends are character
// boundaries. When max has no room for the marker, only the head is kept,
// with no marker, and tailStart is len(s).
func HeadTailMarked(s string, max int, marker func(cut int) string) (out string, headEnd, tailStart int) {
	if len(s) <= max {
		return s, len(s), len(s)
	}
	// The marker's length depends on the count it prints; size it for the
	// largest count possible, len(s).
	room := max - len(marker(len(s)))
	if room <= 0 {
		head := Cut(s, max)
		return head, len(head), len(s)
	}
	head := CutLine(s, room*2/3)
	tailStart = len(s) - (room - len(head))
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	// Start the tail on a line too, when a line starts early enough in it.
	if i := strings.IndexByte(s[tailStart:], '\n'); i >= 0 && i < (len(s)-tailStart)/4 {
		tailStart += i + 1
	}
	return head + marker(tailStart-len(head)) + s[tailStart:], len(head), tailStart
}

// EscapeJSON returns the valid JSON b with the characters CleanModel
// escapes written as JSON escapes (\u202e, a surrogate pair for a tag
// character): the same value to any decoder, but nothing hidden in the
// bytes a model reads. In valid JSON such characters can only stand inside
// strings, and controls below U+0020 are escaped already. It returns b
// itself, without allocating, when there is nothing to change.
func EscapeJSON(b []byte, keepInvisible bool) []byte {
	i := firstUncleanJSON(b, !keepInvisible)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for {
		r, size := utf8.DecodeRune(b[i:])
		out = appendJSONEscape(append(out, b[:i]...), r)
		b = b[i+size:]
		if i = firstUncleanJSON(b, !keepInvisible); i < 0 {
			return append(out, b...)
		}
	}
}

// firstUncleanJSON is where the first character EscapeJSON escapes starts
// in b, or -1: DEL, a C1 control or, when invisible is set, a character
// Invisible reports.
func firstUncleanJSON(b []byte, invisible bool) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x80 && r <= 0x9f || invisible && Invisible(r) {
			return i
		}
		i += size
	}
	return -1
}

// appendJSONEscape appends r as a JSON escape, a surrogate pair above the
// Basic Multilingual Plane.
func appendJSONEscape(out []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	unit := func(out []byte, u rune) []byte {
		return append(out, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
	}
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		return unit(unit(out, hi), lo)
	}
	return unit(out, r)
}
