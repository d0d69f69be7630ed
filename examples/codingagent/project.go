package main

// project is the small repository the scripted model works on: a word
// counter with a bug its test finds. It is copied to a temporary
// directory for each run.
var project = map[string]string{
	"go.mod": "module example.com/wordcount\n\ngo 1.25\n",
	"README.md": `# wordcount

Counts the words of a text.
`,
	"wordcount.go": `// Package wordcount counts words.
package wordcount

import "strings"

// Count returns how many words s holds.
func Count(s string) int {
	return len(strings.Split(s, " "))
}
`,
	"wordcount_test.go": `package wordcount

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"hello world", 2},
		{"", 0},
		{"  spaced   out  ", 2},
	} {
		if got := Count(c.in); got != c.want {
			t.Errorf("Count(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
`,
	".env":       "WORDCOUNT_API_TOKEN=not-for-the-model\n",
	".gitignore": "*.out\n",
}
