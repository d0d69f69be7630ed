package tooltest_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// A test package with golden files of its own defines -update. That this
// runs in the same binary as tooltest, without a "flag redefined" panic at
// start, is the first half of the test.
var _ = flag.Bool("update", false, "rewrite this package's golden files")

func TestUpdatingFollowsEitherFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  string // the flag set to true, if any
		want bool
	}{
		{"neither", "", false},
		{"tooltest's flag", "tooltest.update", true},
		{"the test package's flag", "update", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.set != "" {
				setFlag(t, tc.set, "true")
			}
			assert.Equal(t, tc.want, tooltest.Updating(), "Updating() with %q set", tc.set)
		})
	}
}

func TestGoldenDefinitionsWritesWhenUpdating(t *testing.T) {
	defs := []tool.Definition{{Name: "noop", Description: "Does nothing.", InputSchema: []byte(`{"type":"object"}`)}}
	path := filepath.Join(t.TempDir(), "testdata", "defs.golden.json")

	setFlag(t, "update", "true")
	tooltest.GoldenDefinitions(t, defs, path)
	_, err := os.Stat(path)
	require.NoError(t, err, "-update did not write the golden file")
	setFlag(t, "update", "false")
	tooltest.GoldenDefinitions(t, defs, path) // the file just written matches
}

// setFlag sets a flag for the rest of the test and restores it after.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	old := flag.Lookup(name).Value.String()
	require.NoError(t, flag.Set(name, value))
	t.Cleanup(func() { _ = flag.Set(name, old) })
}
