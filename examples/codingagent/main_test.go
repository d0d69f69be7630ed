package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
	"github.com/toolbelt-go/tool/workspace"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	require.NoError(t, run(context.Background(), dir, strings.NewReader(""), &out, true))
	got := out.String()

	// The read-only command ran without a question; the tests ran twice,
	// failing, then passing, each after approval.
	assert.Contains(t, got, "→ run_shell {\"command\":\"wc -l *.go\"}\n  ← ok\n")
	assert.Contains(t, got, "Count(\"  spaced   out  \") = 8, want 2")
	assert.Regexp(t, `Exit code 0, after [^\n]+\n    --- stdout\n    ok  \texample.com/wordcount`, got)
	// The search of the whole tree: in a sandbox, it runs without a
	// question and finds nothing, .env hidden; without one, it is asked
	// about, and -yes denies reads.
	if mode := process.DetectSandbox(); mode.Mode != process.SandboxNone {
		assert.Contains(t, got, "Commands run in a "+mode.Mode.String()+" sandbox")
		assert.Contains(t, got, "grep -rn API_TOKEN . || echo no match\"}\n  ← ok\n    Exit code 0, after")
		assert.Equal(t, 2, strings.Count(got, "│ Allow Run a shell command to run?"), got)
	} else {
		assert.Contains(t, got, "No sandbox here")
		assert.Contains(t, got, "-yes: writes only; denied")
		assert.Equal(t, 3, strings.Count(got, "│ Allow Run a shell command to run?"), got)
	}
	assert.NotContains(t, got, "API_TOKEN=")
	// The fix was shown as a diff before it was made.
	assert.Contains(t, got, "   │ - \treturn len(strings.Split(s, \" \"))\n   │ + \treturn len(strings.Fields(s))\n")
	// The refusals.
	assert.Contains(t, got, "Error: path escapes the workspace: \"../../etc/passwd\"")
	assert.Contains(t, got, "Error: path is protected: \".env\"")
	assert.NotContains(t, got, "not-for-the-model")
	assert.Contains(t, got, "Error: README.md changed since you last read it")

	b, err := os.ReadFile(filepath.Join(dir, "wordcount.go"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "len(strings.Fields(s))")
	b, err = os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, "# wordcount\n\nCounts the words of a text: runs of letters between spaces.\n\nMaintained by the docs team.\n", string(b))
}

// TestDeniedEdit: answering no leaves the file as it was, and the model is
// told.
func TestDeniedEdit(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	steps := []step{script[3], script[6]} // read wordcount.go, then fix it
	require.Equal(t, "edit_file", steps[1].tool)
	require.NoError(t, play(context.Background(), dir, steps, strings.NewReader("n\n"), &out, false))
	assert.Contains(t, out.String(), "allow? [y]es / [n]o / [a]lways: ")
	assert.Contains(t, out.String(), "  ← denied\n    The call to edit_file was not allowed to run: the user said: not now.")
	b, err := os.ReadFile(filepath.Join(dir, "wordcount.go"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `strings.Split(s, " ")`)
}

// The toolset's definitions as a model sees them; the dialect tests check
// them against every provider's rules. go test -tooltest.update rewrites the file.
func TestDefinitionsGolden(t *testing.T) {
	ws, err := workspace.Open(t.TempDir(), nil)
	require.NoError(t, err)
	defer ws.Close()
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	// run_shell's description names the sandbox: bubblewrap's, whatever
	// this machine offers.
	reg.MustAdd(codetools.New(ws, &codetools.Options{Sandbox: &codetools.SandboxOptions{Mode: process.SandboxBubblewrap}}).Tools()...)
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}
