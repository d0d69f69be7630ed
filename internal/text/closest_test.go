package text

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The ASCII fast paths of skeleton and distance agree with the general
// ones, which work rune by rune.
func TestClosestFastPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abAB-_. xyz"
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 2000 {
		a, b := word(r.IntN(12)), word(r.IntN(80)) // past 64: the heap rows
		if got, want := distance(a, b), osa([]rune(a), []rune(b)); got != want {
			t.Fatalf("distance(%q, %q) = %d, want %d", a, b, got, want)
		}
		var slow strings.Builder
		for _, c := range strings.ToLower(a) {
			if c == '-' || c == ' ' || c == '.' {
				c = '_'
			}
			slow.WriteRune(c)
		}
		if got := skeleton(a); got != slow.String() {
			t.Fatalf("skeleton(%q) = %q, want %q", a, got, slow.String())
		}
	}
	tests := []struct {
		a, b string
		want int
	}{
		{"", "abc", 3}, {"abc", "", 3}, {"golang", "go", 4}, {"ab", "ba", 1}, {"héllo", "hello", 1}, {"ｇo", "go", 1},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
