package procscan

import (
	"os"
	"os/exec"
	"testing"
)

func TestMarked(t *testing.T) {
	if !Supported() {
		t.Skip("no /proc")
	}
	const mark = "PROCSCAN_TEST_MARK_1f2e=1"
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()

	got := Marked(mark)
	if len(got) != 1 || got[0].PID != cmd.Process.Pid || got[0].Cmdline != "sleep 30" {
		t.Fatalf("Marked = %+v, want the sleep %d", got, cmd.Process.Pid)
	}
	if got := Marked("PROCSCAN_TEST_MARK_1f2e=2"); len(got) != 0 {
		t.Fatalf("another value matched: %+v", got)
	}
	if got := Marked("PROCSCAN_TEST_MARK_1f2"); len(got) != 0 {
		t.Fatalf("a prefix matched: %+v", got)
	}
}
