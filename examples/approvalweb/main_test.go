package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun plays the script with its approvals answered on the page's HTTP
// API, as go run . -answer does.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	require.NoError(t, run(context.Background(), dir, "127.0.0.1:0", true, &out))
	got := out.String()

	assert.Regexp(t, `^Approvals are answered at http://127\.0\.0\.1:\d+/approvals/\n`, got)
	// The read ran without a question; the fix waited on the page, which
	// showed its diff, and ran once allowed.
	assert.Contains(t, got, "→ read_file {\"path\":\"wordcount.go\"}\n  ← ok\n")
	assert.Contains(t, got, "  person, on the page: Edit wordcount.go\n")
	assert.Contains(t, got, "    - \treturn len(strings.Split(s, \" \"))\n    + \treturn len(strings.Fields(s))\n")
	// The command, exactly as it will run.
	assert.Regexp(t, `  person, on the page: Run a command in the workspace \(timeout 2m0s\)[^\n]*\n    \$ go test \./\.\.\.\n`, got)
	assert.Regexp(t, `Exit code 0, after [^\n]+\n    --- stdout\n    ok  \texample.com/wordcount`, got)
	// The deny's reason reached the model.
	assert.Contains(t, got, "  ← denied\n    The call to edit_file was not allowed to run: the user said: leave the README to the docs team.")
	assert.Equal(t, 3, strings.Count(got, "… waiting for an answer on the page"))

	b, err := os.ReadFile(filepath.Join(dir, "wordcount.go"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "len(strings.Fields(s))")
	b, err = os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, "# wordcount\n\nCounts the words of a text.\n", string(b))
}

// Stopped while waiting (Ctrl-C): run returns, and says why.
func TestRunStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out watchWriter
	out.onWrite = func(s string) {
		if strings.Contains(s, "waiting for an answer") {
			cancel()
		}
	}
	err := run(ctx, t.TempDir(), "127.0.0.1:0", false, &out)
	assert.ErrorIs(t, err, context.Canceled)
}

// watchWriter hands each write to onWrite.
type watchWriter struct{ onWrite func(string) }

func (w *watchWriter) Write(p []byte) (int, error) {
	w.onWrite(string(p))
	return len(p), nil
}
