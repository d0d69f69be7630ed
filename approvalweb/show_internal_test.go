package approvalweb

import (
	"encoding/json"
	"fmt"
	"html"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/internal/canon"
	"github.com/toolbelt-go/tool/internal/text"
)

var markRE = regexp.MustCompile(`<span class="esc( spaces)?" role="img" aria-label="([^"]*)" title="([^"]*)">([^<]*)</span>`)

// readHTML reads what show.go wrote back: the text, with each mark as
// what it stands for (asJSON: a character as a JSON escape). It fails the
// test on any other markup, and on a hidden character left in the text.
func readHTML(t *testing.T, h string, asJSON bool) string {
	t.Helper()
	var b strings.Builder
	last, lastRune := 0, rune(-1)
	plain := func(s string) {
		if strings.ContainsAny(s, "<>") {
			t.Fatalf("markup other than the marks in %q", h)
		}
		u := html.UnescapeString(s)
		for _, r := range u {
			if text.Hidden(r, false) {
				t.Fatalf("a hidden character %U left as it is in %q", r, h)
			}
		}
		b.WriteString(u)
	}
	for _, m := range markRE.FindAllStringSubmatchIndex(h, -1) {
		plain(h[last:m[0]])
		label := h[m[4]:m[5]]
		switch {
		case m[2] >= 0: // spaces
			n, err := strconv.Atoi(strings.TrimSuffix(label, " spaces"))
			if err != nil || n < minSpaceRun || h[m[8]:m[9]] != "␣×"+strconv.Itoa(n) {
				t.Fatalf("a bad mark of spaces in %q", h)
			}
			b.WriteString(strings.Repeat(" ", n))
			lastRune = -1
		case strings.HasPrefix(label, "invalid byte 0x"):
			c, _ := strconv.ParseUint(strings.TrimPrefix(label, "invalid byte 0x"), 16, 8)
			b.WriteByte(byte(c))
			lastRune = -1
		default:
			// "hidden character U+200B" shown U+200B, or "3 × hidden
			// character U+200B" shown U+200B×3: a run of one character.
			n, what := 1, label
			if count, rest, ok := strings.Cut(label, " × "); ok {
				var err error
				if n, err = strconv.Atoi(count); err != nil || n < 2 {
					t.Fatalf("a bad count in the mark %q in %q", label, h)
				}
				what = rest
			}
			i := strings.Index(what, "U+")
			if i < 0 {
				t.Fatalf("a bad mark %q in %q", label, h)
			}
			r, err := strconv.ParseUint(what[i+2:], 16, 32)
			shown := what[i:]
			if n > 1 {
				shown += "×" + strconv.Itoa(n)
			}
			if err != nil || h[m[8]:m[9]] != shown || h[m[6]:m[7]] != label || !text.Hidden(rune(r), true) {
				t.Fatalf("a bad mark %q in %q", label, h)
			}
			if last == m[0] && lastRune == rune(r) {
				t.Fatalf("a run of %U written as two marks in %q", r, h)
			}
			for range n {
				if asJSON && r <= 0xffff {
					fmt.Fprintf(&b, `\u%04x`, r)
				} else {
					// A character past U+FFFF (a tag character) is
					// two escapes in JSON; as it is, it reads the same.
					b.WriteRune(rune(r))
				}
			}
			lastRune = rune(r)
		}
		last = m[1]
	}
	plain(h[last:])
	return b.String()
}

func TestShownHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"team\u202e", `team<span class="esc" role="img" aria-label="hidden character U+202E" title="hidden character U+202E">U+202E</span>`},
		{`team\u202e`, `team\u202e`},
		{"a\x1bb", `a<span class="esc" role="img" aria-label="control character U+001B" title="control character U+001B">U+001B</span>b`},
		{"a\x1b\x1b\x1bb\x1b", `a<span class="esc" role="img" aria-label="3 × control character U+001B" title="3 × control character U+001B">U+001B×3</span>b<span class="esc" role="img" aria-label="control character U+001B" title="control character U+001B">U+001B</span>`},
		{"\u200b\u200b\u200c", `<span class="esc" role="img" aria-label="2 × hidden character U+200B" title="2 × hidden character U+200B">U+200B×2</span><span class="esc" role="img" aria-label="hidden character U+200C" title="hidden character U+200C">U+200C</span>`},
		{`<b>&"'`, `&lt;b&gt;&amp;&#34;&#39;`},
		{"x" + strings.Repeat(" ", 9) + "y", `x<span class="esc spaces" role="img" aria-label="9 spaces" title="9 spaces">␣×9</span>y`},
		{strings.Repeat(" ", 9) + "indented\n" + strings.Repeat(" ", 8) + "too", strings.Repeat(" ", 9) + "indented\n" + strings.Repeat(" ", 8) + "too"},
		{"a" + strings.Repeat(" ", 7) + "b", "a" + strings.Repeat(" ", 7) + "b"},
	}
	for _, tt := range tests {
		if got := string(shownHTML(text.VisibleExact(tt.in, false))); got != tt.want {
			t.Errorf("shownHTML(VisibleExact(%q)) =\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
}

// FuzzShowHTML: what the page writes of any text is the text, HTML
// escaped, with a mark for each character that does not show and each
// long run of spaces, and no other markup: read back, it is the text.
func FuzzShowHTML(f *testing.F) {
	for _, s := range []string{"team\u202e", `team\u202e`, "a\x1b\\x1b", "\x1b\x1b\x1b\u200b\u200b", "\xff\xff", "<script>\u2066", "x          y\n          z", "\xff\\\xfe"} {
		f.Add(s)
	}
	f.Fuzz(showsExactly)
}

// showsExactly checks that each writer of show.go reads back as s.
func showsExactly(t *testing.T, s string) {
	if len(s) > 4<<10 {
		// Every property here is of a character and its neighbours; a
		// longer text only makes the fuzzer slow (each of its hidden
		// characters is a hundred bytes of HTML to read back), and its
		// minimizing took a minute for each new input.
		t.Skip()
	}
	valid := strings.ToValidUTF8(s, "")
	if got := readHTML(t, string(shownHTML(text.VisibleExact(valid, false))), false); got != valid {
		t.Fatalf("shownHTML of %q reads back as %q", valid, got)
	}
	if got := readHTML(t, string(rawHTML(s)), false); got != s {
		t.Fatalf("rawHTML(%q) reads back as %q", s, got)
	}
	var v any = map[string]any{"command": s, "list": []any{valid, "x"}}
	c := canon.Encode(v)
	back := readHTML(t, string(argsHTML(c)), true)
	var got any
	if err := json.Unmarshal([]byte(back), &got); err != nil {
		t.Fatalf("argsHTML(%s) reads back as %q, not JSON: %v", c, back, err)
	}
	var want any
	_ = json.Unmarshal(c, &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("argsHTML(%s) reads back as %s", c, back)
	}
	e := editJSON(c)
	for _, r := range e {
		if text.Hidden(r, false) {
			t.Fatalf("editJSON(%s) holds %U as it is", c, r)
		}
	}
	var edited any
	if err := json.Unmarshal([]byte(e), &edited); err != nil || !reflect.DeepEqual(edited, want) {
		t.Fatalf("editJSON(%s) = %s: not the same value (%v)", c, e, err)
	}
}
