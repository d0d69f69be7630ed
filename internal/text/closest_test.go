package text

import (
	"math/rand/v2"
	"runtime"
	"slices"
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

// What is close enough to suggest, and what is not: a suggestion must
// share most of the name.
func TestClosest(t *testing.T) {
	tests := []struct {
		name       string
		candidates []string
		want       []string
	}{
		{"qurey", []string{"query", "limit"}, []string{"query"}},                                           // two neighbours swapped
		{"limt", []string{"query", "limit"}, []string{"limit"}},                                            // one deleted, in five
		{"pth", []string{"path"}, []string{"path"}},                                                        // one deleted, in four
		{"serch", []string{"search"}, []string{"search"}},                                                  // one in six
		{"pyhton", []string{"go", "rust", "python"}, []string{"python"}},                                   // swapped
		{"readfile", []string{"read_file"}, []string{"read_file"}},                                         // one inserted
		{"read-file", []string{"read_file"}, []string{"read_file"}},                                        // separators fold
		{"Search", []string{"search"}, []string{"search"}},                                                 // case folds
		{"s\u0435arch", []string{"search"}, []string{"search"}},                                            // a Cyrillic e
		{"id", []string{"ids"}, []string{"ids"}},                                                           // one inserted, in three
		{"url", []string{"base_url"}, []string{"base_url"}},                                                // contained
		{"file_path_name", []string{"path"}, []string{"path"}},                                             // contains it
		{"B", []string{"a", "b"}, []string{"b"}},                                                           // only the case differs
		{"b", []string{"a"}, nil},                                                                          // issue 27: nothing shared
		{"a", []string{"ab"}, nil},                                                                         // one in two
		{"to", []string{"do"}, nil},                                                                        // one in two
		{"ab", []string{"ba"}, nil},                                                                        // swapped, in two
		{"xyz", []string{"abc"}, nil},                                                                      // all different
		{"cat", []string{"dog"}, nil},                                                                      // all different
		{"name", []string{"text", "mode"}, nil},                                                            // two in four
		{"ur", []string{"base_url"}, nil},                                                                  // contained, but too short
		{"", []string{"a", "query"}, nil},                                                                  // nothing sent
		{"limt", []string{"lint", "limit"}, []string{"limit", "lint"}},                                     // nearest first, then by name
		{strings.Repeat("x", 300), []string{strings.Repeat("x", 299)}, []string{strings.Repeat("x", 299)}}, // long names are cut, not slow
	}
	for _, tt := range tests {
		t.Run(tt.name[:min(len(tt.name), 20)], func(t *testing.T) {
			got := Closest(tt.name, tt.candidates, 3)
			if len(got) == 0 {
				got = nil
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Closest(%q, %q) = %q, want %q", tt.name, tt.candidates, got, tt.want)
			}
		})
	}
}

// A candidate much longer than the name (an enum's value, say) cannot be
// within the edit limit, so its distance is not computed: that costs the
// product of the lengths, and a row of the candidate's length. What
// containment finds is still found.
func TestClosestLongCandidate(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	tests := []struct {
		name       string
		candidates []string
		want       []string
	}{
		{"far", []string{long}, []string{}},
		{"containing", []string{"yyy" + long}, []string{"yyy" + long}},
		{"near beside far", []string{long, "qurey"}, []string{"qurey"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "query"
			if tt.name == "containing" {
				name = "yyyx"
			}
			var got []string
			allocs := testing.AllocsPerRun(3, func() { got = Closest(name, tt.candidates, 2) })
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			Closest(name, tt.candidates, 2)
			runtime.ReadMemStats(&after)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Closest = %.20q, want %.20q", got, tt.want)
			}
			if b := after.TotalAlloc - before.TotalAlloc; b >= 1<<20 {
				t.Errorf("Closest allocated %d bytes (a distance row for the long candidate is 24 MB)", b)
			}
			if allocs > 4 {
				t.Errorf("Closest made %v allocations", allocs)
			}
		})
	}
}

// osaReference is the optimal string alignment distance over the whole
// matrix, as written in the textbook.
func osaReference(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// The distance agrees with the textbook's at every row length, on the
// stack (short and long buffers) and on the heap; prepared candidates
// give what Closest gives.
func TestDistanceAndCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "abcAB-_.é"
	word := func(n int) string {
		var b strings.Builder
		for range n {
			c := []rune(alphabet)
			b.WriteRune(c[r.IntN(len(c))])
		}
		return b.String()
	}
	for _, n := range []int{0, 1, 15, 16, 17, 40, 63, 64, 65, 90} {
		for range 50 {
			a, b := word(r.IntN(20)), word(n)
			if got, want := distance(a, b), osaReference([]rune(a), []rune(b)); got != want {
				t.Fatalf("distance(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	names := []string{"query", "path", "lang", "limit", "offset", "case_sensitive", "Quary", "pth", "golang", "python"}
	cands := NewCandidates(names)
	for _, name := range []string{"qurey", "pth", "GO", "lng", "offst", "case-sensitive", "zzz", "", strings.Repeat("x", 300)} {
		if got, want := cands.Closest(name, 3), Closest(name, names, 3); !slices.Equal(got, want) {
			t.Errorf("Candidates.Closest(%q) = %q, Closest = %q", name, got, want)
		}
	}
	if got := (*Candidates)(nil).Closest("x", 1); got != nil {
		t.Errorf("nil Candidates: %q", got)
	}
}
