//go:build linux

package process_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

const grepSchema = `{"type":"object","properties":{
	"pattern":{"type":"string"},"count":{"type":"integer"},"ignore_case":{"type":"boolean"},
	"exclude":{"type":"array","items":{"type":"string"}},"files":{"type":"array","items":{"type":"string"}},
	"opts":{"type":"object"}},"additionalProperties":false}`

// printArgs is a program that prints each of its arguments on a line.
func printArgs(t *testing.T, mode process.ArgsMode) process.CLI {
	return process.CLI{
		Definition: tool.Definition{Name: "grep_like", Description: "Prints its arguments.", Safety: tool.ReadOnly,
			InputSchema: json.RawMessage(grepSchema)},
		Path: "sh", Args: []string{"-c", `for a in "$@"; do echo "[$a]"; done`, "sh"}, Env: marked(t),
		Mode: mode, Flags: map[string]string{"ignore_case": "-i"}, Positional: []string{"pattern", "files"},
	}
}

func TestCLIFlags(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"every kind", `{"pattern":"-rf /","count":3,"ignore_case":true,"exclude":["a b","--x"],"files":["f1","-f2"]}`,
			"[--count=3]\n[--exclude=a b]\n[--exclude=--x]\n[-i]\n[--]\n[-rf /]\n[f1]\n[-f2]\n"},
		{"false passes nothing", `{"ignore_case":false}`, "(grep_like succeeded with no output)"},
		{"no arguments", `{}`, "(grep_like succeeded with no output)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := registryWith(t, nil, process.NewCLI(printArgs(t, process.ArgsAsFlags)))
			res := tooltest.Call(t, r, struct{}{}, "grep_like", tt.args)
			require.Equal(t, tool.StatusOK, res.Status, res.Text())
			assert.Equal(t, tt.want, res.Text())
		})
	}
	t.Run("an object cannot be a flag", func(t *testing.T) {
		r := registryWith(t, nil, process.NewCLI(printArgs(t, process.ArgsAsFlags)))
		res := tooltest.Call(t, r, struct{}{}, "grep_like", `{"opts":{"a":1}}`)
		assert.Equal(t, tool.StatusFailed, res.Status)
		assert.ErrorContains(t, res.Err, "use ArgsAsJSON")
	})
}

func TestCLIJSONOnStdin(t *testing.T) {
	c := printArgs(t, process.ArgsAsJSON)
	c.Args = []string{"-c", "cat"}
	r := registryWith(t, nil, process.NewCLI(c))
	res := tooltest.Call(t, r, struct{}{}, "grep_like", `{"pattern":"x","count":2}`)
	require.Equal(t, tool.StatusOK, res.Status, res.Text())
	assert.JSONEq(t, `{"pattern":"x","count":2}`, res.Text())
}

func TestCLIFailures(t *testing.T) {
	def := tool.Definition{Name: "build", Description: "Builds.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	tests := []struct {
		name, script string
		want         []string
	}{
		{"nonzero exit", `echo compiling; echo "main.go:3: undefined: x" >&2; exit 2`,
			[]string{"build exited with status 2. The end of its stderr:\nmain.go:3: undefined: x"}},
		{"silent failure", `exit 1`, []string{"build exited with status 1; it wrote nothing to stderr"}},
		{"long stderr keeps its end", `i=0; while [ $i -lt 2000 ]; do echo "noise $i" >&2; i=$((i+1)); done; echo "the real error" >&2; exit 1`,
			[]string{"…", "the real error"}},
		{"killed", `kill -9 $$`, []string{"build was ended by a signal (killed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := registryWith(t, nil, process.NewCLI(process.CLI{Definition: def, Path: "sh", Args: []string{"-c", tt.script}, Env: marked(t)}))
			res := tooltest.Call(t, r, struct{}{}, "build", `{}`)
			assert.Equal(t, tool.StatusFailed, res.Status)
			for _, w := range tt.want {
				assert.Contains(t, res.Text(), w)
			}
			assert.LessOrEqual(t, len(res.Text()), 3<<10)
		})
	}
}

func TestCLITimeoutKillsTheTree(t *testing.T) {
	def := tool.Definition{Name: "slow", Description: "Never finishes.", Timeout: 300 * time.Millisecond,
		InputSchema: json.RawMessage(`{"type":"object"}`)}
	r := registryWith(t, nil, process.NewCLI(process.CLI{Definition: def, Path: "sh", Env: marked(t), KillGrace: 200 * time.Millisecond,
		Args: []string{"-c", `sleep 30 & sh -c 'sleep 30 & sleep 30' & wait`}}))
	start := time.Now()
	res := tooltest.Call(t, r, struct{}{}, "slow", `{}`)
	assert.Equal(t, tool.StatusTimedOut, res.Status, res.Text())
	assert.Less(t, time.Since(start), 300*time.Millisecond+tool.DefaultGrace)
}

func TestCLIConstruction(t *testing.T) {
	r := tool.NewRegistry[struct{}](nil)
	err := r.Add(process.NewCLI(process.CLI{Definition: tool.Definition{Name: "x", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CLI.Path")
	err = r.Add(process.NewCLI(process.CLI{Path: "true", Definition: tool.Definition{Name: "y", Description: "d"}}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "InputSchema")
}

func TestCLIConforms(t *testing.T) {
	c := printArgs(t, process.ArgsAsFlags)
	c.Definition.InputSchema = json.RawMessage(strings.Replace(grepSchema, `"opts":{"type":"object"}`, `"opts":{"type":"string"}`, 1))
	tooltest.Conformance(t, tooltest.Suite{}, process.NewCLI(c))
}
