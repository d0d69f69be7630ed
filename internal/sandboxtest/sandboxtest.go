// Package sandboxtest helps the tests that need a real sandbox
// (process.Sandbox): they run in each mode the machine offers, and skip a
// mode it lacks with what to install, unless the environment variable
// TOOLBELT_REQUIRE_SANDBOX is set, as in CI, where a missing mode fails.
package sandboxtest

import (
	"os"
	"testing"

	"github.com/toolbelt-go/tool/process"
)

// RequireEnv, when set, makes a missing sandbox a failure.
const RequireEnv = "TOOLBELT_REQUIRE_SANDBOX"

// Modes are the sandbox modes there are, strongest first.
var Modes = []process.SandboxMode{process.SandboxBubblewrap, process.SandboxLandlock}

// Need skips t, or fails it under RequireEnv, unless mode works here.
func Need(t testing.TB, mode process.SandboxMode) {
	t.Helper()
	sup := process.DetectSandbox()
	var err error
	switch mode {
	case process.SandboxBubblewrap:
		err = sup.Bubblewrap
	case process.SandboxLandlock:
		err = sup.Landlock
	default:
		err = sup.Err()
	}
	if err == nil {
		return
	}
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf("%v (%s is set: this machine must offer the %v sandbox)", err, RequireEnv, mode)
	}
	t.Skip(err)
}

// Each runs f once per sandbox mode, as a subtest named after it, skipping
// (or failing, under RequireEnv) the modes this machine lacks.
func Each(t *testing.T, f func(t *testing.T, mode process.SandboxMode)) {
	t.Helper()
	for _, mode := range Modes {
		t.Run(mode.String(), func(t *testing.T) {
			Need(t, mode)
			f(t, mode)
		})
	}
}
