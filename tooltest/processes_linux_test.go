package tooltest_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestTrackProcesses(t *testing.T) {
	if os.Getenv("TOOLTEST_LEAK") != "" {
		// Start a sleep that nobody stops: the check must fail this test.
		cmd := exec.Command("sleep", "30")
		cmd.Env = tooltest.TrackProcesses(t, nil)
		require.NoError(t, cmd.Start())
		return
	}
	t.Parallel() // the survivor is reported after the check's 10 s: overlap it with the other tests
	t.Run("a survivor fails the test", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTrackProcesses$")
		cmd.Env = append(os.Environ(), "TOOLTEST_LEAK=1")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "the leak was not reported:\n%s", out)
		require.Contains(t, string(out), "(sleep 30) outlived the test")
	})
	t.Run("a command that cleans up passes", func(t *testing.T) {
		res, err := process.Run(context.Background(), process.Command{Path: "sh", Args: []string{"-c", "sleep 30 & echo ok"}, Env: tooltest.TrackProcesses(t, nil)})
		require.NoError(t, err)
		require.Equal(t, "ok\n", res.Stdout)
	})
	t.Run("nested marks are both carried", func(t *testing.T) {
		env := tooltest.TrackProcesses(t, nil)
		res, err := process.Run(context.Background(), process.Command{Path: "env", Env: env})
		require.NoError(t, err)
		require.Contains(t, res.Stdout, "TOOLTEST_PROCESS_MARK_")
		require.Contains(t, res.Stdout, "TOOLBELT_PROCESS_TREE_")
	})
}

// The mark composes with the environment a test chooses: a program run
// under process.MinimalEnv plus the mark gets the minimal environment,
// its extras, and the mark, and none of the host's other variables (issue
// 27: a test's programs got the host's GOFLAGS).
func TestTrackProcessesMinimalEnv(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("TOOLTEST_HOST_SECRET", "leaked")
	t.Setenv("TOOLTEST_WANTED", "passed")
	tests := []struct {
		name      string
		env       []string
		want      []string
		wantNot   []string
		wantExact []string // the whole environment, less the process tree's own mark
	}{
		{name: "nil: the minimal environment", env: nil,
			want: []string{"PATH="}, wantNot: []string{"GOFLAGS", "TOOLTEST_HOST_SECRET", "TOOLTEST_WANTED"}},
		{name: "MinimalEnv with an extra", env: process.MinimalEnv("TOOLTEST_WANTED"),
			want: []string{"PATH=", "TOOLTEST_WANTED=passed"}, wantNot: []string{"GOFLAGS", "TOOLTEST_HOST_SECRET"},
			wantExact: process.MinimalEnv("TOOLTEST_WANTED")},
		{name: "the host's whole environment, said so", env: os.Environ(),
			want: []string{"GOFLAGS=-mod=mod", "TOOLTEST_HOST_SECRET=leaked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := slices.Clone(tt.env)
			env := tooltest.TrackProcesses(t, tt.env)
			require.Equal(t, base, tt.env, "the environment passed in was changed")
			res, err := process.Run(context.Background(), process.Command{Path: "env", Env: env})
			require.NoError(t, err)
			var got []string
			for _, kv := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
				if !strings.HasPrefix(kv, "TOOLBELT_PROCESS_TREE_") {
					got = append(got, kv)
				}
			}
			mark := got[len(got)-1]
			require.True(t, strings.HasPrefix(mark, "TOOLTEST_PROCESS_MARK_"), "the mark is last: %v", got)
			for _, w := range tt.want {
				require.True(t, slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, w) }), "no %s in %v", w, got)
			}
			for _, w := range tt.wantNot {
				require.False(t, slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, w+"=") }), "%s reached the program: %v", w, got)
			}
			if tt.wantExact != nil {
				require.Equal(t, append(tt.wantExact, mark), got)
			}
		})
	}
}
