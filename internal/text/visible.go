package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// VisibleExact is Visible written so that it reads back exactly: a run of
// backslashes that stands before text that reads as one of its escapes
// (\xNN, \uNNNN or \UNNNNNNNN, in lower-case hex, as Visible writes them)
// or before an escape it writes is doubled, and one more backslash starts
// each escape. So the escape of a real U+202E (\u202e) and the six
// characters \u202e (\\u202e) never look the same, and [ReadVisible]
// tells them apart; text with no backslash before such a sequence is
// written as Visible writes it.
func VisibleExact(s string, oneLine bool) string {
	if !strings.Contains(s, `\`) {
		return Visible(s, oneLine)
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		if s[i] == '\\' {
			j := i
			for j < len(s) && s[j] == '\\' {
				j++
			}
			n := j - i
			if j < len(s) && (escapeShaped(s[j:]) || hiddenAt(s[j:], oneLine)) {
				n *= 2
			}
			b.WriteString(strings.Repeat(`\`, n))
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case hidden(r, oneLine):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hidden reports whether Visible writes r as an escape.
func hidden(r rune, oneLine bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return oneLine
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)
}

// Hidden reports whether r is a character Visible writes as an escape: a
// control (newline and tab only when oneLine is set), or a format, line
// or paragraph separator character (bidirectional controls, zero-width
// characters, the byte order mark, tag characters).
func Hidden(r rune, oneLine bool) bool { return hidden(r, oneLine) }

// hiddenAt reports whether s starts with a character Visible writes as an
// escape (an invalid byte is written as U+FFFD, which it does not).
func hiddenAt(s string, oneLine bool) bool {
	r, size := utf8.DecodeRuneInString(s)
	return !(r == utf8.RuneError && size == 1) && hidden(r, oneLine)
}

// escapeLen returns the length of the escape s starts with, as
// writeEscape writes one (\xNN, \uNNNN, \UNNNNNNNN, lower-case hex), or 0:
// s starts after the backslash.
func escapeLen(s string) int {
	if s == "" {
		return 0
	}
	var n int
	switch s[0] {
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0
	}
	if len(s) < 1+n {
		return 0
	}
	for _, c := range []byte(s[1 : 1+n]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0
		}
	}
	return 1 + n
}

func escapeShaped(s string) bool { return escapeLen(s) > 0 }

// ReadVisible reads s, text [VisibleExact] wrote, back into what it
// stands for: it calls plain for each run of text as it was, and char for
// each character written as an escape, in order. Applied to any other
// text, it reads each escape that has an odd run of backslashes before it
// as a character.
func ReadVisible(s string, plain func(string), char func(rune)) {
	start := 0 // of the plain text not yet given
	var lit strings.Builder
	flush := func(end int) {
		if lit.Len() > 0 {
			lit.WriteString(s[start:end])
			plain(lit.String())
			lit.Reset()
		} else if end > start {
			plain(s[start:end])
		}
		start = end
	}
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		n := j - i
		e := escapeLen(s[j:])
		if e == 0 {
			i = j // backslashes as they are
			continue
		}
		// n/2 backslashes of the text, then an escape if n is odd, or
		// the escape-shaped text itself if n is even.
		lit.WriteString(s[start:i])
		lit.WriteString(strings.Repeat(`\`, n/2))
		start = j
		if n%2 == 0 {
			i = j + e
			continue
		}
		start = j + e
		flush(start) // nothing new: gives what came before
		char(decodeEscape(s[j : j+e]))
		i = j + e
	}
	flush(len(s))
}

// decodeEscape reads an escape writeEscape wrote, without its backslash.
func decodeEscape(e string) rune {
	var r rune
	for _, c := range []byte(e[1:]) {
		r <<= 4
		if c <= '9' {
			r |= rune(c - '0')
		} else {
			r |= rune(c-'a') + 10
		}
	}
	return r
}
