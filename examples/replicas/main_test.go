package main

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

// TestMain fails the package, naming the test, if it was skipped for
// want of a redis-server (tooltest.Main).
func TestMain(m *testing.M) { os.Exit(tooltest.Main(m).Run()) }

func TestRun(t *testing.T) {
	srv := redistest.New(t)
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out, srv.Addr, srv.Kill))
	got := out.String()

	cut := regexp.MustCompile(`a: build_log answered \d+ bytes; (\d+) were cut and kept in Redis`).FindStringSubmatch(got)
	require.NotNil(t, cut, got)
	read := regexp.MustCompile(`read_output: \d+ calls, alternating replicas, read (\d+) bytes; the last says \[bytes \d+ to \d+ of the \d+ cut bytes; that is the end`).FindStringSubmatch(got)
	require.NotNil(t, read, got)
	assert.Equal(t, cut[1], read[1], "every cut byte was read back, across replicas")
	assert.Contains(t, got, "replica=b tool=read_output status=ok")

	assert.Equal(t, 1, strings.Count(got, "asks about write_file {\"content\":\"package main\""), "asked once, on a")
	assert.Contains(t, got, "b: wrote util.go")

	assert.Contains(t, got, "b: awaiting_approval:")
	assert.Contains(t, got, "a, with the answer: deleted old.go")
	assert.Contains(t, got, "b, the same answer again: The call to delete_file was not allowed to run: its approval answer was already used.")

	assert.Contains(t, got, "a: build_log: ok,")
	assert.Contains(t, got, "a way to read on: false")
	assert.Contains(t, got, `(a asks about write_file {"content":"package main // v2","path":"main.go"}: allow_once)`, "asked again")
	assert.Contains(t, got, "a: wrote main.go\nboth calls answered in under 5 s: true")
}

func TestToolsConform(t *testing.T) {
	tooltest.Conformance(t, tooltest.Suite{ValidArgs: map[string]string{"write_file": `{"path":"x"}`, "delete_file": `{"path":"x"}`}},
		buildLog(), writeFile(), deleteFile())
}

// The tools' definitions as a model sees them; the dialect tests check
// them against every provider's rules. go test -tooltest.update rewrites the file.
func TestDefinitionsGolden(t *testing.T) {
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	reg.MustAdd(buildLog(), writeFile(), deleteFile())
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}
