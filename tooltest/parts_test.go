package tooltest_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/tooltest"
)

func TestMain(m *testing.M) { os.Exit(tooltest.Main(m).Run()) }

// partsHelperEnv makes TestPartsHelper act: the test binary runs itself
// with it, as a package whose tests need what is missing.
const partsHelperEnv = "TOOLTEST_PARTS_HELPER"

// TestPartsHelper is a package's tests, two of which need a part that is
// not there; it does nothing unless partsHelperEnv is set.
func TestPartsHelper(t *testing.T) {
	if os.Getenv(partsHelperEnv) == "" {
		t.Skip("run by TestNeedAndMain")
	}
	server := tooltest.Part{Name: "frobd", Install: "apt-get install frobd", Require: []string{"TOOLTEST_REQUIRE_FROBD"}}
	t.Run("first", func(t *testing.T) { tooltest.Need(t, server, errors.New("no frobd on PATH")) })
	t.Run("second", func(t *testing.T) { tooltest.Need(t, server, errors.New("no frobd on PATH")) })
	t.Run("there", func(t *testing.T) { tooltest.Need(t, tooltest.Part{Name: "sh"}, nil) })
}

// A test skipped by Need for want of a part does not pass silently: the
// package fails at the end, naming what did not run, for want of what,
// and the command that installs it, unless AllowSkipEnv lets it pass; a
// Require variable makes the test itself fail.
func TestNeedAndMain(t *testing.T) {
	tests := []struct {
		name     string
		env      []string
		fails    bool
		want     []string
		dontWant []string
	}{
		{"reported", nil, true, []string{
			"DID NOT RUN", "frobd not available (no frobd on PATH): TestPartsHelper", "to install it: apt-get install frobd",
			"set TOOLBELT_ALLOW_SKIP=1 to let these tests skip"}, nil},
		{"allowed", []string{tooltest.AllowSkipEnv + "=1"}, false, []string{"DID NOT RUN", "TOOLBELT_ALLOW_SKIP is set"}, nil},
		{"required", []string{"TOOLTEST_REQUIRE_FROBD=1"}, true, []string{
			"--- FAIL: TestPartsHelper/first", "frobd not available: no frobd on PATH (to install it: apt-get install frobd); TOOLTEST_REQUIRE_FROBD is set"},
			[]string{"DID NOT RUN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPartsHelper$")
			cmd.Env = append(append(os.Environ(), partsHelperEnv+"=1", tooltest.AllowSkipEnv+"="), tt.env...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if failed := err != nil; failed != tt.fails {
				t.Errorf("failed: %v, want %v\n%s", err, tt.fails, out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the output does not say %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("the output says %q:\n%s", w, out.String())
				}
			}
		})
	}
}
