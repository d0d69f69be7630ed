package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestAnswersFromTheTerminal(t *testing.T) {
	// edit: yes; rm: no, with a reason; README edit: edit to another path.
	in := strings.NewReader("y\nn\nnot the build dir\ne\n{\"path\":\"NOTES.md\",\"content\":\"x\"}\n")
	var out strings.Builder
	require.NoError(t, run(context.Background(), in, &out, false))
	got := out.String()
	assert.Contains(t, got, "- \tprintln(\"hello\")\n+ \tprintln(\"hello, world\")", "the edit shows a diff")
	assert.Contains(t, got, "-> call_1 edit_file [ok]: wrote main.go")
	assert.Contains(t, got, "-> call_2 shell [ok]: (simulated) ran: ls -la", "read-only commands are not asked about")
	assert.Equal(t, 3, strings.Count(got, "allow?"))
	assert.Contains(t, got, "Why you are asked: deletes files; asked every time")
	assert.Contains(t, got, "Arguments: {\"command\":\"rm -rf build\"}", "the arguments that will run are shown")
	assert.Contains(t, got, "allow? [y]es / [n]o / [e]dit:", "no 'always' for ask-always")
	assert.Contains(t, got, "-> call_3 shell [denied]: The call to shell was not allowed to run: the user said: not the build dir.")
	assert.Contains(t, got, "-> call_4 edit_file [ok]: wrote NOTES.md")
}

func TestYesFlag(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), strings.NewReader(""), &out, true))
	assert.Equal(t, 3, strings.Count(out.String(), "-yes: allowed once"))
	assert.NotContains(t, out.String(), "[denied]")
}

func TestClosedInputDenies(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), strings.NewReader(""), &out, false))
	assert.Contains(t, out.String(), "-> call_1 edit_file [denied]")
}

func TestToolsConform(t *testing.T) {
	p := &project{files: map[string]string{}}
	tooltest.Conformance(t, tooltest.Suite{}, p.tools()...)
}

// The tools' definitions as a model sees them; the dialect tests check
// them against every provider's rules. go test -tooltest.update rewrites the file.
func TestDefinitionsGolden(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd((&project{files: map[string]string{}}).tools()...)
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}
