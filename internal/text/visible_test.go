package text

import (
	"strings"
	"testing"
)

// readBack is what ReadVisible reads s as: the text, and each escaped
// character in ⟦ ⟧.
func readBack(s string) string {
	var b strings.Builder
	ReadVisible(s, func(t string) { b.WriteString(t) }, func(r rune) { b.WriteString("⟦" + string(r) + "⟧") })
	return b.String()
}

func TestVisibleExact(t *testing.T) {
	tests := []struct {
		name, in, want, read string
		oneLine              bool
	}{
		{name: "a real U+202E", in: "team\u202e", want: `team\u202e`, read: "team⟦\u202e⟧"},
		{name: "the six characters \\u202e", in: `team\u202e`, want: `team\\u202e`, read: `team\u202e`},
		{name: "an ESC byte", in: "printf '\x1b[31m'", want: `printf '\x1b[31m'`, read: "printf '⟦\x1b⟧[31m'"},
		{name: "the text \\x1b", in: `printf '\x1b[31m'`, want: `printf '\\x1b[31m'`, read: `printf '\x1b[31m'`},
		{name: "a backslash before a real ESC", in: "a\\\x1b", want: `a\\\x1b`, read: "a\\⟦\x1b⟧"},
		{name: "two backslashes before the text x41", in: `a\\x41`, want: `a\\\\x41`, read: `a\\x41`},
		{name: "backslashes before nothing that reads as an escape", in: `C:\Users\bob\\server \u12 \xZZ \u00E9 \`, want: `C:\Users\bob\\server \u12 \xZZ \u00E9 \`, read: `C:\Users\bob\\server \u12 \xZZ \u00E9 \`},
		{name: "a tag character", in: "x\U000E0041", want: `x\U000e0041`, read: "x⟦\U000E0041⟧"},
		{name: "one line: a newline and the text \\x0a", in: "a\n\\x0a", oneLine: true, want: `a\x0a\\x0a`, read: "a⟦\n⟧\\x0a"},
		{name: "several lines keep their newlines", in: "a\n\\x0a", want: "a\n\\\\x0a", read: "a\n\\x0a"},
		{name: "invalid UTF-8 is U+FFFD", in: "a\xffb", want: "a\ufffdb", read: "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := VisibleExact(tt.in, tt.oneLine)
			if got != tt.want {
				t.Errorf("VisibleExact(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if r := readBack(got); r != tt.read {
				t.Errorf("ReadVisible(%q) = %q, want %q", got, r, tt.read)
			}
		})
	}
	if a, b := VisibleExact("team\u202e", true), VisibleExact(`team\u202e`, true); a == b {
		t.Errorf("a real U+202E and the text \\u202e both read %q", a)
	}
}

// FuzzVisibleExact: what VisibleExact writes holds no hidden character,
// reads back as exactly what was written (invalid bytes as U+FFFD), and
// is what Visible writes when no backslash stands before an escape.
func FuzzVisibleExact(f *testing.F) {
	for _, s := range []string{"team\u202e", `team\u202e`, "a\\\x1b", `\\\x41\u00e9`, "\\\\\u200b\n\t\\x0", "C:\\Users\\x", "\xff\\\xfe"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, oneLine bool) {
		got := VisibleExact(s, oneLine)
		for _, r := range got {
			if hidden(r, oneLine) {
				t.Fatalf("VisibleExact(%q) = %q still holds %U", s, got, r)
			}
		}
		var b strings.Builder
		ReadVisible(got, func(t string) { b.WriteString(t) }, func(r rune) {
			if !hidden(r, oneLine) {
				t.Fatalf("ReadVisible(%q) read %U as an escaped character, which VisibleExact writes as it is", got, r)
			}
			b.WriteRune(r)
		})
		if want := validRunes(s); b.String() != want {
			t.Fatalf("VisibleExact(%q) = %q reads back as %q", s, got, b.String())
		}
		if !strings.Contains(got, `\\`) && got != Visible(s, oneLine) {
			t.Fatalf("VisibleExact(%q) = %q, Visible = %q: they differ with no doubled backslash", s, got, Visible(s, oneLine))
		}
	})
}

// validRunes is s with each invalid byte as U+FFFD, one for one, as Clean
// writes it (strings.ToValidUTF8 writes one for a run).
func validRunes(s string) string {
	var b strings.Builder
	for _, r := range s { // an invalid byte ranges as U+FFFD, one byte at a time
		b.WriteRune(r)
	}
	return b.String()
}
