package tooltest

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A Part is something outside Go that a test runs against and cannot
// provide for itself: a server program (redis-server), a browser, a
// kernel sandbox, the packages of another language's SDK. A test that
// needs one asks for it with [Need]; the package's TestMain runs its tests
// through [Main], which says at the end which tests did not run, for want
// of which part, and the command that installs it.
type Part struct {
	// Name says what the part is: "redis-server".
	Name string
	// Install is the one command that installs the part ("apt-get install
	// redis-server"), shown with the tests that did not run. Empty when
	// no command can (a kernel without Landlock).
	Install string
	// Require lists environment variables any of which, set to anything
	// but "", makes a missing part fail the test that needs it at once,
	// rather than skip it: CI sets one, so that it never passes by
	// skipping ("TOOLBELT_REQUIRE_REDIS").
	Require []string
}

// AllowSkipEnv is the environment variable that, set to anything but "",
// lets a package pass whose tests were skipped for want of a part: [Main]
// then lists them on standard error, where go test shows them only with
// -v.
const AllowSkipEnv = "TOOLBELT_ALLOW_SKIP"

// Need ends t when err says that p is missing, and does nothing when err
// is nil. It fails t if one of p.Require is set; otherwise it skips t,
// saying why and what installs p, and counts t among the tests that did
// not run for want of p, for [Main] to report when the package's tests
// end.
//
// The package's TestMain must run its tests through [Main]: go test shows
// what a passing package writes only with -v, so a skip is silent unless
// Main turns it into a failure at the end. Without Main, Need fails t,
// saying so.
func Need(t testing.TB, p Part, err error) {
	t.Helper()
	if err == nil {
		return
	}
	why := p.Name + " not available: " + err.Error()
	if p.Install != "" {
		why += " (to install it: " + p.Install + ")"
	}
	for _, env := range p.Require {
		if os.Getenv(env) != "" {
			t.Fatalf("%s; %s is set, so this is a failure, not a skip", why, env)
		}
	}
	if !missing.note(t.Name(), p, err) {
		t.Fatalf("%s; and tooltest.Need cannot skip this test, because the package's TestMain does not run its tests through tooltest.Main, "+
			"which reports such skips (go test shows a passing package's output only with -v): "+
			"func TestMain(m *testing.M) { os.Exit(tooltest.Main(m).Run()) }", why)
	}
	t.Skip(why)
}

// Main wraps the tests of a package for its TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(tooltest.Main(m).Run()) }
//
// or, where something else runs them, as goleak does,
//
//	func TestMain(m *testing.M) { goleak.VerifyTestMain(tooltest.Main(m)) }
//
// Its Run runs them (m.Run). If any test was skipped by [Need] for want of
// a part, it then writes to standard error which tests did not run, for
// want of what, and the command that installs it, and returns 1 unless
// [AllowSkipEnv] is set: a failing package is the one whose output go test
// shows without -v, and tests that did not run must not pass for tests
// that did.
func Main(m *testing.M) interface{ Run() int } {
	return mainRun{m}
}

type mainRun struct{ m *testing.M }

func (r mainRun) Run() int {
	missing.start()
	code := r.m.Run()
	if missing.report(os.Stderr, os.Getenv(AllowSkipEnv) != "") && code == 0 {
		code = 1
	}
	return code
}

// missing holds the tests [Need] skipped in this test binary.
var missing partLedger

type partLedger struct {
	mu      sync.Mutex
	running bool         // Main runs the tests
	parts   []*partTests // in the order first needed
}

type partTests struct {
	part  Part
	err   error    // the first test's reason
	tests []string // top-level names, each once
}

func (l *partLedger) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running = true
}

// note counts test as not run for want of p; false when Main is not
// running the tests.
func (l *partLedger) note(test string, p Part, err error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.running {
		return false
	}
	top, _, _ := strings.Cut(test, "/")
	i := slices.IndexFunc(l.parts, func(pt *partTests) bool { return pt.part.Name == p.Name })
	if i < 0 {
		l.parts = append(l.parts, &partTests{part: p, err: err})
		i = len(l.parts) - 1
	}
	if pt := l.parts[i]; !slices.Contains(pt.tests, top) {
		pt.tests = append(pt.tests, top)
	}
	return true
}

// report writes what did not run to w, and reports whether the package
// must fail for it: something did not run, and skips are not allowed.
func (l *partLedger) report(w io.Writer, allowed bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.parts) == 0 {
		return false
	}
	var b strings.Builder
	b.WriteString("\n--- DID NOT RUN: tests skipped for want of what they test against\n")
	for _, pt := range l.parts {
		names := pt.tests
		more := ""
		if len(names) > 8 {
			more = fmt.Sprintf(" and %d more", len(names)-8)
			names = names[:8]
		}
		fmt.Fprintf(&b, "    %s not available (%v): %s%s\n", pt.part.Name, pt.err, strings.Join(names, ", "), more)
		if pt.part.Install != "" {
			fmt.Fprintf(&b, "        to install it: %s\n", pt.part.Install)
		} else {
			b.WriteString("        no command installs it: this machine cannot run these tests\n")
		}
	}
	if allowed {
		fmt.Fprintf(&b, "    (%s is set: the package passes without them)\n", AllowSkipEnv)
	} else {
		fmt.Fprintf(&b, "    The package fails so that this is seen (go test shows a passing package's output only with -v); "+
			"install what is missing, or set %s=1 to let these tests skip.\n", AllowSkipEnv)
	}
	_, _ = io.WriteString(w, b.String())
	return !allowed
}
