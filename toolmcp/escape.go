package toolmcp

import (
	"strings"
	"unicode/utf8"
)

// cleanModel makes text from a remote server safe to put in front of a
// model, by the rules the registry applies to every tool's output (the
// root package's model view): C0 controls other than newline and tab,
// DEL and C1 controls become \xNN escapes; characters that are invisible
// or reorder text when displayed (bidirectional controls, zero-width
// spaces and joiners, the byte order mark, Unicode tag characters) become
// \uNNNN or \UNNNNNNNN escapes, since they can carry instructions a person
// reading the same text would not see; invalid UTF-8 becomes U+FFFD. ZWJ
// and ZWNJ, which scripts and emoji need, stay.
func cleanModel(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f || invisible(r) {
			break
		}
		i += size
	}
	if i == len(s) {
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
		case r >= 0x80 && r <= 0x9f, invisible(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// invisible reports whether r is one of the characters cleanModel escapes
// besides the controls.
func invisible(r rune) bool {
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

func writeEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	switch {
	case r < 0x100:
		b.WriteString(`\x`)
		b.WriteByte(hex[r>>4])
		b.WriteByte(hex[r&0xf])
	case r > 0xFFFF:
		b.WriteString(`\U`)
		for s := 28; s >= 0; s -= 4 {
			b.WriteByte(hex[(r>>s)&0xf])
		}
	default:
		b.WriteString(`\u`)
		for s := 12; s >= 0; s -= 4 {
			b.WriteByte(hex[(r>>s)&0xf])
		}
	}
}
