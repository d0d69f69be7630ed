// Package sandboxtest helps the tests that need a real sandbox
// (process.Sandbox): they run in each mode the machine offers, and skip a
// mode it lacks with what to install (tooltest.Need: the package, whose
// TestMain runs its tests through tooltest.Main, then fails at the end,
// naming them), unless the environment variable TOOLBELT_REQUIRE_SANDBOX
// is set, as in CI, where a missing mode fails the test.
package sandboxtest

import (
	"testing"

	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

// RequireEnv, when set, makes a missing sandbox a failure.
const RequireEnv = "TOOLBELT_REQUIRE_SANDBOX"

// Modes are the sandbox modes there are, strongest first.
var Modes = []process.SandboxMode{process.SandboxBubblewrap, process.SandboxLandlock}

// Need skips t (tooltest.Need), or fails it under RequireEnv, unless mode
// works here.
func Need(t testing.TB, mode process.SandboxMode) {
	t.Helper()
	sup := process.DetectSandbox()
	p := tooltest.Part{Name: "the " + mode.String() + " sandbox", Require: []string{RequireEnv}}
	var err error
	switch mode {
	case process.SandboxBubblewrap:
		err = sup.Bubblewrap
		p.Install = "apt-get install bubblewrap (Debian), where the kernel lets it make namespaces"
	case process.SandboxLandlock:
		err = sup.Landlock // a kernel's, which no command installs
	default:
		err = sup.Err()
	}
	tooltest.Need(t, p, err)
}

// Program is a program a test runs (perl, setsid, git…), as tooltest.Need
// names it, with the Debian package that installs it.
func Program(name string) tooltest.Part {
	pkg := name
	switch name {
	case "setsid", "setpriv":
		pkg = "util-linux"
	}
	return tooltest.Part{Name: name, Install: "apt-get install " + pkg + " (Debian)", Require: []string{RequireEnv}}
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
