//go:build linux

package process_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

// A program gets the host's environment only when the host says so: with
// Env nil it sees PATH, HOME and the like, never the host's secrets.
// (These programs exit at once and start nothing, and Env nil cannot carry
// the tracking mark, so they are not tracked.)
func TestCommandEnvironment(t *testing.T) {
	t.Setenv("TOOLBELT_TEST_API_KEY", "sk-host-secret")
	t.Setenv("TOOLBELT_TEST_GOCACHE", "/cache")
	tests := []struct {
		name      string
		env       []string
		want, not []string
	}{
		{"nil is minimal", nil,
			[]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TOOLBELT_PROCESS_TREE_"},
			[]string{"TOOLBELT_TEST_API_KEY", "sk-host-secret", "TOOLBELT_TEST_GOCACHE"}},
		{"named variables pass", process.MinimalEnv("TOOLBELT_TEST_GOCACHE", "TOOLBELT_TEST_UNSET"),
			[]string{"PATH=", "TOOLBELT_TEST_GOCACHE=/cache\n"},
			[]string{"sk-host-secret", "TOOLBELT_TEST_UNSET"}},
		{"the host's whole environment, when asked for", os.Environ(),
			[]string{"TOOLBELT_TEST_API_KEY=sk-host-secret"}, nil},
		{"an empty environment is empty", []string{},
			[]string{"TOOLBELT_PROCESS_TREE_"}, []string{"PATH="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := process.Run(context.Background(), process.Command{Path: "env", Env: tt.env})
			require.NoError(t, err)
			for _, w := range tt.want {
				assert.Contains(t, res.Stdout, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, res.Stdout, n)
			}
		})
	}
}

func TestMinimalEnv(t *testing.T) {
	t.Setenv("TOOLBELT_TEST_EXTRA", "x=y")
	env := process.MinimalEnv("TOOLBELT_TEST_EXTRA", "PATH", "", "TOOLBELT_TEST_EXTRA", "TOOLBELT_TEST_UNSET")
	assert.Equal(t, "TOOLBELT_TEST_EXTRA=x=y", env[len(env)-1])
	seen := map[string]bool{}
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		assert.False(t, seen[name], "%s twice", name)
		seen[name] = true
	}
	assert.True(t, seen["PATH"])
	assert.False(t, seen["TOOLBELT_TEST_UNSET"])
}

// A CLI tool's program cannot echo the host's secrets to the model.
func TestCLIEnvironment(t *testing.T) {
	t.Setenv("TOOLBELT_TEST_API_KEY", "sk-host-secret")
	def := tool.Definition{Name: "show_env", Description: "Shows its environment.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	r := registryWith(t, nil, process.NewCLI(process.CLI{Definition: def, Path: "env"}))
	res := tooltest.NewConversation(t, r, struct{}{}, nil).Call("show_env", `{}`)
	require.Equal(t, tool.StatusOK, res.Status, res.Text())
	assert.Contains(t, res.Text(), "PATH=")
	assert.NotContains(t, res.Text(), "sk-host-secret")
}
