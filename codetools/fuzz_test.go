package codetools_test

import (
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// toolNamed returns the toolset's tool of that name.
func (p *project) toolNamed(t testing.TB, name string) tool.AnyTool {
	for _, d := range p.ts.Tools() {
		if d.Definition().Name == name {
			return d.(tool.AnyTool)
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// FuzzReadFile sends read_file arbitrary arguments over a real project:
// whatever the path, one bounded, clean result and no panic.
func FuzzReadFile(f *testing.F) {
	p := newProject(f, nil)
	tooltest.Fuzz(f, p.toolNamed(f, "read_file"), `{"path":"greet.go"}`, `{"path":"../outside/passwd"}`,
		`{"path":".env"}`, `{"path":"greet.go","detail_level":"full","offset":2,"limit":1}`)
}

// FuzzGrep sends grep arbitrary arguments, patterns included (a regular
// expression is a parser of what the model writes).
func FuzzGrep(f *testing.F) {
	p := newProject(f, nil)
	tooltest.Fuzz(f, p.toolNamed(f, "grep"), `{"pattern":"hello"}`, `{"pattern":"(?i)h.*o","context":2,"glob":"*.go"}`,
		`{"pattern":"x","path":"docs"}`)
}
