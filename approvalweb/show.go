package approvalweb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolbelt-go/tool/internal/text"
)

// minSpaceRun is the shortest run of spaces inside a line that the page
// shows as a mark that counts them: a command padded with hundreds of
// spaces cannot push what follows out of sight. Spaces that indent a line
// are shown as they are.
const minSpaceRun = 8

// What the page shows is what runs. Each text is written as HTML here,
// never by the template: characters that do not show (controls,
// bidirectional and zero-width characters, the byte order mark, tag
// characters) become an element of their own, styled and labelled (class
// "esc"), which no text can reproduce; the text around them is escaped
// for HTML. So a real U+202E and the six characters \u202e never look the
// same, nor an ESC byte and the text \x1b.

// shownHTML writes s, a string of the approval request (made visible by
// the approval step: escapes that read back exactly), as HTML.
func shownHTML(s string) template.HTML {
	var w htmlWriter
	text.ReadVisible(s, w.text, w.char)
	return w.html()
}

// rawHTML writes s, a value as it was given (a session), as HTML.
func rawHTML(s string) template.HTML {
	var w htmlWriter
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || text.Hidden(r, true) {
			w.text(s[start:i])
			if r == utf8.RuneError {
				w.invalid(s[i])
			} else {
				w.char(r)
			}
			start = i + size
		}
		i += size
	}
	w.text(s[start:])
	return w.html()
}

// argsHTML writes the canonical JSON of a call's arguments, indented, as
// HTML: every string as it will be read, hidden characters and JSON
// escapes of them marked.
func argsHTML(canonical []byte) template.HTML {
	var ind bytes.Buffer
	src := canonical
	if json.Indent(&ind, canonical, "", "  ") == nil {
		src = ind.Bytes()
	}
	var w htmlWriter
	s := string(src)
	start, inString := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			inString = !inString
			i++
		case inString && c == '\\':
			if i+6 <= len(s) && s[i+1] == 'u' {
				if r, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil && text.Hidden(rune(r), true) && !(r >= 0xd800 && r <= 0xdfff) {
					w.text(s[start:i])
					w.char(rune(r))
					i += 6
					start = i
					continue
				}
			}
			i = min(i+2, len(s)) // an escape: \" \\ \n \uXXXX stays as JSON writes it
		case c < utf8.RuneSelf:
			if text.Hidden(rune(c), false) { // DEL; a control a program wrote
				w.text(s[start:i])
				w.char(rune(c))
				start = i + 1
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || text.Hidden(r, true) {
				w.text(s[start:i])
				if r == utf8.RuneError {
					w.invalid(c)
				} else {
					w.char(r)
				}
				start = i + size
			}
			i += size
		}
	}
	if start > len(s) {
		start = len(s)
	}
	w.text(s[start:])
	return w.html()
}

// editJSON is the text an edit box starts with: the canonical arguments,
// indented, with each hidden character written as a JSON escape (the same
// value, and no character a textarea would not show).
func editJSON(canonical []byte) string {
	var ind bytes.Buffer
	src := canonical
	if json.Indent(&ind, canonical, "", "  ") == nil {
		src = ind.Bytes()
	}
	var b strings.Builder
	b.Grow(len(src))
	s := string(src)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && text.Hidden(r, false) && r >= 0x20 {
			if r > 0xffff {
				r1, r2 := utf16Pair(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// htmlWriter builds the HTML of a text: its runs escaped, hidden
// characters and long runs of spaces marked. A run of the same hidden
// character is one mark that counts it (U+200B×5000): thousands of
// characters hidden in a row cost the page one mark, not thousands.
type htmlWriter struct {
	b         strings.Builder
	lineStart bool // the next text starts a line: leading spaces indent it
	started   bool
	run       rune // the hidden character of the run not yet written
	runs      int  // how many times it repeats; 0: no run
}

func (w *htmlWriter) html() template.HTML {
	w.flush()
	return template.HTML(w.b.String())
}

// text writes a run of text, escaped; a run of minSpaceRun spaces or more
// that does not start a line is written as a mark that counts them.
func (w *htmlWriter) text(s string) {
	if s == "" {
		return
	}
	w.flush()
	if !w.started {
		w.started, w.lineStart = true, true
	}
	for s != "" {
		i := strings.Index(s, strings.Repeat(" ", minSpaceRun))
		if i < 0 {
			w.plain(s)
			return
		}
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		w.plain(s[:i])
		if w.lineStart && i == 0 || i > 0 && s[i-1] == '\n' {
			w.plain(s[i:j]) // indentation
		} else {
			n := j - i
			fmt.Fprintf(&w.b, `<span class="esc spaces" role="img" aria-label="%d spaces" title="%d spaces">␣×%d</span>`, n, n, n)
			w.lineStart = false
		}
		s = s[j:]
	}
}

func (w *htmlWriter) plain(s string) {
	if s == "" {
		return
	}
	w.b.WriteString(html.EscapeString(s))
	w.lineStart = s[len(s)-1] == '\n'
}

// char writes a character that does not show as a mark of its own: its
// code point, styled apart, with a label a screen reader reads. The same
// character again at once adds to its count.
func (w *htmlWriter) char(r rune) {
	w.started, w.lineStart = true, false
	if w.runs > 0 && w.run == r {
		w.runs++
		return
	}
	w.flush()
	w.run, w.runs = r, 1
}

// flush writes the mark of the run of a hidden character, if any.
func (w *htmlWriter) flush() {
	if w.runs == 0 {
		return
	}
	r, n := w.run, w.runs
	w.runs = 0
	what := "hidden character"
	if r < 0x20 || r >= 0x7f && r <= 0x9f {
		what = "control character"
	}
	if n == 1 {
		fmt.Fprintf(&w.b, `<span class="esc" role="img" aria-label="%s U+%04X" title="%s U+%04X">U+%04X</span>`, what, r, what, r, r)
		return
	}
	fmt.Fprintf(&w.b, `<span class="esc" role="img" aria-label="%d × %s U+%04X" title="%d × %s U+%04X">U+%04X×%d</span>`, n, what, r, n, what, r, r, n)
}

// invalid writes a byte that is not UTF-8.
func (w *htmlWriter) invalid(c byte) {
	w.flush()
	w.started = true
	fmt.Fprintf(&w.b, `<span class="esc" role="img" aria-label="invalid byte 0x%02X" title="invalid byte 0x%02X">0x%02X</span>`, c, c, c)
	w.lineStart = false
}
