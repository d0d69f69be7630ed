package tooltest_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestTrackProcesses(t *testing.T) {
	if os.Getenv("TOOLTEST_LEAK") != "" {
		// Start a sleep that nobody stops: the check must fail this test.
		cmd := exec.Command("sleep", "30")
		cmd.Env = tooltest.TrackProcesses(t)
		require.NoError(t, cmd.Start())
		return
	}
	t.Run("a survivor fails the test", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTrackProcesses$")
		cmd.Env = append(os.Environ(), "TOOLTEST_LEAK=1")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "the leak was not reported:\n%s", out)
		require.Contains(t, string(out), "(sleep 30) outlived the test")
	})
	t.Run("a command that cleans up passes", func(t *testing.T) {
		res, err := process.Run(context.Background(), process.Command{Path: "sh", Args: []string{"-c", "sleep 30 & echo ok"}, Env: tooltest.TrackProcesses(t)})
		require.NoError(t, err)
		require.Equal(t, "ok\n", res.Stdout)
	})
	t.Run("nested marks are both carried", func(t *testing.T) {
		env := tooltest.TrackProcesses(t)
		res, err := process.Run(context.Background(), process.Command{Path: "env", Env: env})
		require.NoError(t, err)
		require.Contains(t, res.Stdout, "TOOLTEST_PROCESS_MARK_")
		require.Contains(t, res.Stdout, "TOOLBELT_PROCESS_TREE_")
	})
}
