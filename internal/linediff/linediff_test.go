package linediff

import (
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one line changed", "a\nb\nc\nd\ne\nf\n", "a\nb\nc\nX\ne\nf\n",
			"@@ line 2\n  b\n  c\n- d\n+ X\n  e\n  f\n"},
		{"added at end", "a\n", "a\nb\n", "@@ line 1\n  a\n+ b\n"},
		{"from empty", "", "x\n", "@@ line 1\n+ x\n"},
		{"to empty", "x\ny", "", "@@ line 1\n- x\n- y\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nA\n3\n4\n5\n6\n7\nB\n9\n",
			"@@ line 1\n  1\n- 2\n+ A\n  3\n  4\n@@ line 6\n  6\n  7\n- 8\n+ B\n  9\n"},
		{"interleaved", "a\nb\nc\n", "a\nc\nd\n", "@@ line 1\n  a\n- b\n  c\n+ d\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unified(tt.old, tt.new); got != tt.want {
				t.Errorf("Unified:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// Past maxCells the middle is shown as blocks, in bounded time.
func TestUnifiedLargeFallsBackToBlocks(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString("old line " + string(rune('a'+i%26)) + "\n")
		b.WriteString("new line " + string(rune('a'+i%26)) + "\n")
	}
	got := Unified(a.String(), b.String())
	if n := strings.Count(got, "\n- "); n != 3000 {
		t.Errorf("%d removed lines, want 3000", n)
	}
	if n := strings.Count(got, "\n+ "); n != 3000 {
		t.Errorf("%d added lines, want 3000", n)
	}
}
