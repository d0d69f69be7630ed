package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/tooltest"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	assert.Contains(t, got, "10000 files in 100 pages, the last one src/file09999.go\n")
	assert.Contains(t, got, "invented:    Invalid arguments for list_files:\n- /cursor: this cursor is invalid")
	assert.Contains(t, got, "other args:  Invalid arguments for list_files:\n- /cursor: this cursor is for a different request")
	first := regexp.MustCompile(`first answer: \d+ bytes \((\d+) cut\), ends with: error: undefined: frobnicate`).FindStringSubmatch(got)
	require.NotNil(t, first, got)
	last := regexp.MustCompile(`read_output: \d+ calls read the (\d+) cut bytes; the last one says \[bytes \d+ to (\d+) of the (\d+) cut bytes; that is the end`).FindStringSubmatch(got)
	require.NotNil(t, last, got)
	assert.Equal(t, first[1], last[1], "every cut byte was read back")
	assert.Equal(t, first[1], last[2])
	assert.Equal(t, first[1], last[3])
}

func TestToolsConform(t *testing.T) {
	tooltest.Conformance(t, tooltest.Suite{}, listFiles(), buildLog())
}

// The tools' definitions as a model sees them (read_output included); the
// dialect tests check them against every provider's rules. go test
// -tooltest.update rewrites the file.
func TestDefinitionsGolden(t *testing.T) {
	tooltest.GoldenDefinitions(t, newRegistry().Definitions(), "testdata/definitions.golden.json")
}
