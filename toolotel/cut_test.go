package toolotel

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCut checks the bound on every text the package records: never
// longer than asked, a prefix of the text, never splitting a character.
func FuzzCut(f *testing.F) {
	for _, s := range []string{"", "abc", "héllo wörld", strings.Repeat("€", 50), "\xff\xfe invalid", "a\x00b"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 600
		if n < 0 {
			n = -n // every bound from 0 up, including those shorter than the marker
		}
		got := cut(s, n)
		if len(got) > n {
			t.Fatalf("cut(%q, %d) is %d bytes", s, n, len(got))
		}
		body := strings.TrimSuffix(got, "…")
		if !strings.HasPrefix(s, body) {
			t.Fatalf("cut(%q, %d) = %q is not a prefix", s, n, got)
		}
		if body != s && len(body) < len(s) && utf8.ValidString(s) && !utf8.ValidString(body) {
			t.Fatalf("cut(%q, %d) = %q splits a character", s, n, got)
		}
	})
}
