package tooltest

import (
	"errors"
	"strings"
	"testing"
)

// Without Main running the tests, the ledger takes no skip (Need then
// fails the test rather than skip it unseen); with it, each test is
// counted once under its part, subtests under their test.
func TestPartLedger(t *testing.T) {
	var l partLedger
	p := Part{Name: "frobd", Install: "apt-get install frobd"}
	if l.note("TestA", p, errors.New("absent")) {
		t.Error("a skip noted without Main")
	}
	l.start()
	for _, name := range []string{"TestA/x", "TestA/y", "TestB"} {
		if !l.note(name, p, errors.New("absent")) {
			t.Fatal("a skip not noted with Main")
		}
	}
	l.note("TestC", Part{Name: "landlock"}, errors.New("not in this kernel"))
	var b strings.Builder
	if !l.report(&b, false) {
		t.Error("the report does not fail the package")
	}
	for _, want := range []string{"frobd not available (absent): TestA, TestB\n", "to install it: apt-get install frobd", "landlock not available (not in this kernel): TestC", "no command installs it"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, b.String())
		}
	}
	if l.report(&b, true) {
		t.Error("the report fails the package though skips are allowed")
	}
}
