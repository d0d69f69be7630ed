// Package linediff renders the difference between two texts line by line,
// for approval previews and golden-file failures.
package linediff

import (
	"strconv"
	"strings"
)

// maxCells bounds the work of the exact diff (lines of old times lines of
// new, after the common head and tail are set aside); above it the middle is
// shown as one removed block and one added block.
const maxCells = 1 << 20

// Context is how many unchanged lines are kept around each change.
const Context = 2

// Unified renders the change from old to new: removed lines start with
// "- ", added lines with "+ ", unchanged lines near a change with two
// spaces, and "@@ line N" (N counted in old) opens each hunk. It returns ""
// when the texts are equal.
func Unified(old, new string) string {
	if old == new {
		return ""
	}
	ops := diff(split(old), split(new))
	show := make([]bool, len(ops))
	for i, o := range ops {
		if o.kind != ' ' {
			for j := max(0, i-Context); j <= min(len(ops)-1, i+Context); j++ {
				show[j] = true
			}
		}
	}
	var out strings.Builder
	for i, o := range ops {
		if !show[i] {
			continue
		}
		if i == 0 || !show[i-1] {
			out.WriteString("@@ line " + strconv.Itoa(o.oldLine+1) + "\n")
		}
		out.WriteString(string(o.kind) + " " + o.text + "\n")
	}
	return out.String()
}

type op struct {
	kind    byte // ' ', '-', '+'
	text    string
	oldLine int // where in old the op is (for '+', the line it comes before)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func diff(a, b []string) []op {
	var ops []op
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		ops = append(ops, op{' ', a[head], head})
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	if len(ma)*len(mb) <= maxCells {
		ops = append(ops, lcs(ma, mb, head)...)
	} else {
		for i, l := range ma {
			ops = append(ops, op{'-', l, head + i})
		}
		for _, l := range mb {
			ops = append(ops, op{'+', l, head + len(ma)})
		}
	}
	for i := len(a) - tail; i < len(a); i++ {
		ops = append(ops, op{' ', a[i], i})
	}
	return ops
}

// lcs diffs a and b exactly by longest common subsequence.
func lcs(a, b []string, offset int) []op {
	n, m := len(a), len(b)
	// t[i][j] = LCS length of a[i:] and b[j:]
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], offset + i})
			i++
			j++
		case i < n && (j == m || t[i+1][j] >= t[i][j+1]):
			ops = append(ops, op{'-', a[i], offset + i})
			i++
		default:
			ops = append(ops, op{'+', b[j], offset + i})
			j++
		}
	}
	return ops
}
