package tooltest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestTrackProcesses(t *testing.T) {
	if os.Getenv("TOOLTEST_LEAK") != "" {
		// Start a sleep that nobody stops: the check must fail this test.
		cmd := exec.Command("sleep", "30")
		cmd.Env = tooltest.TrackProcesses(t)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Run("a survivor fails the test", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTrackProcesses$")
		cmd.Env = append(os.Environ(), "TOOLTEST_LEAK=1")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || !strings.Contains(string(out), "(sleep 30) outlived the test") {
			t.Fatalf("the leak was not reported (%v):\n%s", err, out)
		}
	})
	t.Run("a command that cleans up passes", func(t *testing.T) {
		res, err := process.Run(context.Background(), process.Command{Path: "sh", Args: []string{"-c", "sleep 30 & echo ok"}, Env: tooltest.TrackProcesses(t)})
		if err != nil || res.Stdout != "ok\n" {
			t.Fatalf("process.Run = %+v, %v", res, err)
		}
	})
	t.Run("nested marks are both carried", func(t *testing.T) {
		env := tooltest.TrackProcesses(t)
		res, err := process.Run(context.Background(), process.Command{Path: "env", Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Stdout, "TOOLTEST_PROCESS_MARK_") || !strings.Contains(res.Stdout, "TOOLBELT_PROCESS_TREE_") {
			t.Fatalf("marks missing:\n%s", res.Stdout)
		}
	})
}
