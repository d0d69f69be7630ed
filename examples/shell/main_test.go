//go:build unix

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	assert.Contains(t, got, "[ok] hello from sh\n(exit status 3)")
	assert.Contains(t, got, "[ok] API key: not set\n")
	assert.Regexp(t, `\[timed_out\] after \d+\.\ds: Error: sh ran longer than its 1s time limit and was stopped\n`, got) // any load
	assert.Equal(t, 3, strings.Count(got, "background sleep: gone\n"), got)
	assert.NotContains(t, got, "STILL RUNNING")
	assert.Regexp(t, `\[ok\]\n\s+3 a.txt\n\s+5 b.txt\n\s+8 total\n`, got)
	assert.Contains(t, got, "[failed] Error: count_lines exited with status 1. The end of its stderr:\nwc: missing.txt")
	if process.DetectSandbox().Mode != process.SandboxNone {
		assert.Regexp(t, `sandbox\]\n3\ncannot write here\ncannot see the home directory\n$`, got)
	}
}

// The tools' definitions as a model sees them; the dialect tests check
// them against every provider's rules. go test -tooltest.update rewrites the file.
func TestDefinitionsGolden(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(runShell(), countLines(t.TempDir()))
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}
