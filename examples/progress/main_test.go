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

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	assert.Contains(t, got, "b1     [##########] built pkg05\n  b1     finished: ok\nmodel sees: built 5 packages")
	assert.Contains(t, got, "b2     finished: timed_out\nmodel sees: The call to build timed out: it ran longer than its 200ms time limit.")
	assert.Contains(t, got, "  f1 [ok] fetched https://go.dev\n  f2 [ok] fetched https://pkg.go.dev\n  w1 [ok] noted: both fetched\n  f3 [ok]")
}

func TestToolsConform(t *testing.T) {
	tooltest.Conformance(t, tooltest.Suite{}, tools()...)
}

// The tools' definitions as a model sees them; the dialect tests check
// them against every provider's rules. go test -tooltest.update rewrites the file.
func TestDefinitionsGolden(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tools()...)
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}
