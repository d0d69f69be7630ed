//go:build linux

package process_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/process"
)

// nestedEnv, when set, makes this test binary a host run by another host:
// it runs a command that leaves its session and records its PID and its
// cgroup in the directory named, then waits to be stopped.
const nestedEnv = "TOOLBELT_TEST_NESTED_HOST"

// A host that is itself a command of another host (an agent running an
// agent) makes its cgroups inside the command's cgroup; the outer stop
// kills them all and removes the nested cgroups too.
func TestCommandNestedHost(t *testing.T) {
	if dir := os.Getenv(nestedEnv); dir != "" {
		process.Run(context.Background(), process.Command{Path: "sh", Env: os.Environ(), Args: []string{"-c",
			`setsid sleep 30 & echo $! > "$0/pid"; grep '^0::' /proc/self/cgroup | cut -c4- > "$0/cgroup"; sleep 30`, dir}})
		return
	}
	if !process.CgroupsWork() {
		t.Skip("no writable cgroup v2 here")
	}
	dir := t.TempDir()
	c := process.Command{Path: os.Args[0], Args: []string{"-test.run=^TestCommandNestedHost$"}, Timeout: 3 * time.Second,
		KillGrace: 200 * time.Millisecond, Env: append(marked(t), nestedEnv+"="+dir)}
	_, err := process.Run(context.Background(), c)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	pid := readPID(t, filepath.Join(dir, "pid"))
	if !gone(pid) {
		t.Errorf("the inner host's daemon %d survived", pid)
		kill(pid)
	}
	inner, err := os.ReadFile(filepath.Join(dir, "cgroup"))
	require.NoError(t, err)
	parts := strings.Split(strings.TrimSpace(string(inner)), "/")
	require.GreaterOrEqual(t, len(parts), 3, "the inner command's cgroup %q is nested in the outer's", inner)
	outer, nested := parts[len(parts)-2], parts[len(parts)-1]
	assert.True(t, strings.HasPrefix(outer, "toolbelt-") && strings.HasPrefix(nested, "toolbelt-"), "%s", inner)
	assert.NoDirExists(t, filepath.Join(process.CgroupParent(), outer), "the outer cgroup, with the nested one, is removed")
}
