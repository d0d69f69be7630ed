//go:build linux

package process_test

import (
	"context"
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
		Definition: tool.Definition{Name: "grep_like", Description: "Prints its arguments.", Safety: tool.SafetyReadOnly,
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
			res := tooltest.NewConversation(t, r, struct{}{}, nil).Call("grep_like", tt.args)
			require.Equal(t, tool.StatusOK, res.Status, res.Text())
			assert.Equal(t, tt.want, res.Text())
		})
	}
	t.Run("an object cannot be a flag", func(t *testing.T) {
		r := registryWith(t, nil, process.NewCLI(printArgs(t, process.ArgsAsFlags)))
		res := tooltest.NewConversation(t, r, struct{}{}, nil).Call("grep_like", `{"opts":{"a":1}}`)
		assert.Equal(t, tool.StatusFailed, res.Status)
		assert.ErrorContains(t, res.Err, "use ArgsAsJSON")
	})
}

func TestCLIJSONOnStdin(t *testing.T) {
	c := printArgs(t, process.ArgsAsJSON)
	c.Args = []string{"-c", "cat"}
	r := registryWith(t, nil, process.NewCLI(c))
	res := tooltest.NewConversation(t, r, struct{}{}, nil).Call("grep_like", `{"pattern":"x","count":2}`)
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
			res := tooltest.NewConversation(t, r, struct{}{}, nil).Call("build", `{}`)
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
	res := tooltest.NewConversation(t, r, struct{}{}, nil).Call("slow", `{}`)
	assert.Equal(t, tool.StatusTimedOut, res.Status, res.Text())
	assert.Less(t, time.Since(start), 300*time.Millisecond+tool.DefaultGrace+10*time.Second, "a hang")
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

// In ArgsAsFlags mode, a key the model makes up must never become a flag:
// a schema that allows undeclared keys is refused at registration, and
// Flags and Positional may name only declared properties.
func TestCLIFlagsNeedADeclaredSchema(t *testing.T) {
	const props = `"properties":{"pattern":{"type":"string"},"max-count":{"type":"integer"}}`
	tests := []struct {
		name   string
		schema string
		mode   process.ArgsMode
		flags  map[string]string
		pos    []string
		err    string // "" when accepted
	}{
		{name: "closed", schema: `{"type":"object",` + props + `,"additionalProperties":false}`},
		{name: "open by default", schema: `{"type":"object",` + props + `}`, err: `"additionalProperties": false`},
		{name: "open", schema: `{"type":"object",` + props + `,"additionalProperties":true}`, err: `"additionalProperties": false`},
		{name: "open to strings", schema: `{"type":"object",` + props + `,"additionalProperties":{"type":"string"}}`, err: `"additionalProperties": false`},
		{name: "pattern properties", schema: `{"type":"object",` + props + `,"patternProperties":{"^x-":{}},"additionalProperties":false}`, err: `patternProperties`},
		{name: "no properties at all", schema: `{"type":"object"}`, err: `"additionalProperties": false`},
		{name: "open schema with JSON on stdin", schema: `{"type":"object"}`, mode: process.ArgsAsJSON},
		{name: "a flag for an undeclared name", schema: `{"type":"object",` + props + `,"additionalProperties":false}`,
			flags: map[string]string{"exec": "--exec"}, err: `Flags names "exec", which the schema does not declare`},
		{name: "an empty flag", schema: `{"type":"object",` + props + `,"additionalProperties":false}`,
			flags: map[string]string{"pattern": ""}, err: `empty flag`},
		{name: "a positional undeclared name", schema: `{"type":"object",` + props + `,"additionalProperties":false}`,
			pos: []string{"files"}, err: `Positional names "files"`},
		{name: "a name that is no flag", schema: `{"type":"object","properties":{"":{},"=x":{},"-v":{},"a b":{}},"additionalProperties":false}`,
			err: `property "" would make the flag "--"`},
		{name: "such names mapped", schema: `{"type":"object","properties":{"":{},"=x":{},"-v":{},"a b":{}},"additionalProperties":false}`,
			flags: map[string]string{"": "--empty", "=x": "--x", "-v": "--verbose"}, pos: []string{"a b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tt.mode
			if tt.name != "open schema with JSON on stdin" {
				mode = process.ArgsAsFlags
			}
			err := tool.NewRegistry[struct{}](nil).Add(process.NewCLI(process.CLI{Path: "true", Mode: mode, Flags: tt.flags, Positional: tt.pos,
				Definition: tool.Definition{Name: "t", Description: "d", InputSchema: json.RawMessage(tt.schema)}}))
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// Called without a registry, so without preflight, the tool still passes
// only the properties the schema declares.
func TestCLIPassesOnlyDeclaredProperties(t *testing.T) {
	cli := process.NewCLI(printArgs(t, process.ArgsAsFlags))
	res, err := cli.Run(context.Background(), json.RawMessage(`{"count":5,"exec":"x","--pre":"sh -c id","":"v","pattern":"p"}`))
	require.NoError(t, err)
	assert.Equal(t, "[--count=5]\n[--]\n[p]\n", res.Text())
}

// Errors the model reads name the tool and the argument, never where the
// host keeps the program.
func TestCLIErrorsShowNoHostPath(t *testing.T) {
	tests := []struct {
		name, path, args, want string
	}{
		{"a NUL byte in an argument", "/bin/sh", `{"pattern":"a\u0000b"}`,
			`argument "pattern" contains a NUL character (\u0000), which cannot be passed on a command line`},
		{"a NUL byte in an array", "/bin/sh", `{"files":["ok","a\u0000b"]}`, `argument "files" contains a NUL character`},
		{"no such program", "/opt/host-secret/bin/grep", `{"pattern":"x"}`,
			"grep_like could not run its program; this is a problem with the tool's setup on the host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := printArgs(t, process.ArgsAsFlags)
			c.Path = tt.path
			r := registryWith(t, nil, process.NewCLI(c))
			res := tooltest.NewConversation(t, r, struct{}{}, nil).Call("grep_like", tt.args)
			assert.Equal(t, tool.StatusFailed, res.Status)
			assert.Contains(t, res.Text(), tt.want)
			assert.NotContains(t, res.Text(), "/bin/")
			assert.NotContains(t, res.Text(), "host-secret")
			if tt.name == "no such program" {
				assert.ErrorContains(t, res.Err, tt.path, "the host sees the path")
			}
		})
	}
}
