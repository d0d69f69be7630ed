package promises

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolbelt-go/tool/tooltest"
)

// The promises, each stated once; every cell of the table checks each one
// that applies to it.
const (
	// Nothing runs that the chosen approver did not allow, for exactly
	// those arguments.
	promiseAllowed = "nothing runs that the chosen approver did not allow, for exactly the arguments it was shown"
	// A denial, or the policy, wins over an edit.
	promiseEdit = "a denial or the policy wins over an edit"
	// Nothing runs twice for one call ID.
	promiseOnce = "nothing runs twice for one call ID"
	// A refusal is one clear result.
	promiseClear = "a call that did not run is answered once, saying it did not run"
	// Only the chosen approver is asked.
	promiseChosen = "only the approver the host chose is asked"
)

// scenario is one thing a model asks for, and what the person answers if
// they are asked. The policy is tool.DenyDestructivePolicy: reads run,
// writes are asked about, deletes are denied.
type scenario struct {
	name    string
	command string  // what the model asks the shell tool to run
	answer  answer  // what the person answers when asked first
	twice   bool    // the same call (the same ID) arrives a second time: a retried turn
	edits   bool    // the answer is an edit: only approvers that can edit
	then    *answer // what the person answers when asked again (nil: allow once)
	resend  bool    // whatever relays the person's answers sends each again, late (a retried request, a second click)
	moves   bool    // while the person reads the first question, the call becomes another kind (a write through a link leading outside)
	// want is what must come of it, given whether the chosen approver can
	// be reached from the frontend.
	want func(reachable bool) want
}

// want is what must come of a scenario.
type want struct {
	ran   []string // the commands the tool ran, in order
	asked bool     // the person was asked, through the chosen approver
}

var scenarios = []scenario{
	{name: "a read runs unasked", command: "ls", answer: deny("never asked"),
		want: func(bool) want { return want{ran: []string{"ls"}} }},
	{name: "an allowed write runs as shown", command: "touch a.txt", answer: allow(),
		want: func(r bool) want { return ifReached(r, want{ran: []string{"touch a.txt"}, asked: true}) }},
	{name: "a denied write does not run", command: "touch a.txt", answer: deny("not now"),
		want: func(r bool) want { return ifReached(r, want{asked: true}) }},
	{name: "a delete is denied unasked", command: "rm -rf src", answer: allow(),
		want: func(bool) want { return want{} }},
	{name: "an edit into a delete is denied", command: "touch ok.txt", answer: edit("rm -rf src"), edits: true,
		want: func(r bool) want { return ifReached(r, want{asked: true}) }},
	{name: "an edit of the same kind runs the edit", command: "touch ok.txt", answer: edit("touch edited.txt"), edits: true,
		want: func(r bool) want { return ifReached(r, want{ran: []string{"touch edited.txt"}, asked: true}) }},
	{name: "an edited call repeated runs the edit once", command: "touch ok.txt", answer: edit("touch edited.txt"), edits: true, twice: true,
		want: func(r bool) want { return ifReached(r, want{ran: []string{"touch edited.txt"}, asked: true}) }},
	{name: "an answer sent twice is taken for its own question only", command: "touch ok.txt", answer: edit("chmod 777 ok.txt"), edits: true,
		then: ptr(deny("not that")), resend: true,
		want: func(r bool) want { return ifReached(r, want{asked: true}) }},
	{name: "a call that became another kind while asked is asked again", command: "touch a.txt", answer: allow(),
		then: ptr(deny("not through that link")), moves: true,
		want: func(r bool) want { return ifReached(r, want{asked: true}) }},
	{name: "a repeated call ID runs once", command: "touch once.txt", answer: allow(), twice: true,
		want: func(r bool) want { return ifReached(r, want{ran: []string{"touch once.txt"}, asked: true}) }},
}

// ifReached is w when the approver can be reached, and otherwise nothing
// run and no one asked.
func ifReached(reachable bool, w want) want {
	if reachable {
		return w
	}
	return want{}
}

// TestPromises checks every promise on every combination of store,
// approver and frontend, one subtest each.
func TestPromises(t *testing.T) {
	for _, st := range stores() {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			for _, sb := range sandboxes() {
				t.Run(sb.name, func(t *testing.T) {
					sb.need(t)
					for _, ap := range approvers() {
						t.Run(ap.name, func(t *testing.T) {
							for _, fe := range frontends() {
								t.Run(fe.name, func(t *testing.T) {
									for _, sc := range scenarios {
										t.Run(sc.name, func(t *testing.T) {
											cell := st.name + " × " + sb.name + " × " + ap.name + " × " + fe.name + " × " + sc.name
											if why := skipped(sb, ap, fe, sc); why != "" {
												covered.add(cell, "n/a: "+why)
												t.Skip(why)
											}
											check(t, s, sb, ap, fe, sc)
											covered.add(cell, result(t))
										})
									}
								})
							}
						})
					}
				})
			}
		})
	}
}

// skipped says why a scenario does not apply to a combination, or "".
func skipped(sb sandboxKind, ap approverKind, fe frontend, sc scenario) string {
	switch {
	case sc.moves && sb.real():
		return "run_shell's class of a command does not change with the tree (a write through a link leading outside is refused by its sandbox)"
	case sc.edits && !ap.edits:
		return ap.name + " offers no edit"
	case sc.twice && !fe.callIDs:
		return fe.name + " carries no call IDs of the model's"
	}
	return ""
}

// check plays one scenario on one combination and checks every promise.
func check(t *testing.T, s *storeSet, sb sandboxKind, ap approverKind, fe frontend, sc scenario) {
	t.Helper()
	w := newWorld(t, s, sb, ap, fe, sc.answer)
	w.person.then, w.resend = sc.then, sc.resend
	if sc.moves {
		w.person.meanwhile = func() { w.moved.Store(true) }
	}
	reachable := ap.reachable(fe)
	want := sc.want(reachable)

	arrivals := 1
	if sc.twice {
		arrivals = 2
	}
	var outs []outcome
	for range arrivals {
		outs = append(outs, fe.call(t, w, "call-1", "shell", fmt.Sprintf(`{"command":%q}`, sc.command)))
	}

	ran := w.ran()
	if !slices.Equal(ran, want.ran) {
		t.Errorf("%s: ran %q, want %q", promiseAllowed, ran, want.ran)
	}
	for _, c := range ran {
		if c != sc.command && !w.person.shown(c) {
			t.Errorf("%s: %q ran, and the person was never shown it", promiseAllowed, c)
		}
	}
	if sc.edits && len(want.ran) == 0 && len(ran) > 0 {
		t.Errorf("%s: %q ran", promiseEdit, ran)
	}
	checkFiles(t, w, sc, want)
	if sc.twice && len(ran) > 1 {
		t.Errorf("%s: ran %d times", promiseOnce, len(ran))
	}
	if asked := w.person.asked() > 0; asked != want.asked {
		t.Errorf("%s: the person was asked %d times, want asked=%v", promiseChosen, w.person.asked(), want.asked)
	}
	if n := w.elsewhere.Load(); n > 0 {
		t.Errorf("%s: %s was asked %d times in place of %s", promiseChosen, fe.mechanism, n, ap.name)
	}
	for i, o := range outs {
		switch {
		case o.results != 1:
			t.Errorf("%s: arrival %d was answered %d times", promiseClear, i+1, o.results)
		case len(ran) == 0 && !o.saysNotRun():
			t.Errorf("%s: arrival %d: nothing ran, and the model read %q", promiseClear, i+1, o.text)
		case len(ran) > 0 && o.saysNotRun():
			t.Errorf("%s: arrival %d: the tool ran, and the model read %q", promiseClear, i+1, o.text)
		}
	}
}

// outcome is what one arrival of a call came back as, to the model.
type outcome struct {
	results int    // how many results answered it (one, always)
	isError bool   // marked as an error, where the frontend marks one
	text    string // the text the model reads
}

// saysNotRun reports whether the model is told the call did not run.
func (o outcome) saysNotRun() bool {
	t := strings.ToLower(o.text)
	return strings.Contains(t, "did not run") || strings.Contains(t, "has not run") || strings.Contains(t, "not run")
}

// covered is every combination the run checked, and how it ended.
var covered = &coverage{}

type coverage struct {
	mu    sync.Mutex
	cells []string
}

func (c *coverage) add(cell, how string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cells = append(c.cells, how+"\t"+cell)
}

func result(t *testing.T) string {
	if t.Failed() {
		return "FAIL"
	}
	return "ok"
}

// TestMain prints every combination covered, so that CI's log names them.
func TestMain(m *testing.M) {
	code := tooltest.Main(m).Run()
	covered.mu.Lock()
	counts := map[string]int{}
	for _, c := range covered.cells {
		how, _, _ := strings.Cut(c, "\t")
		if strings.HasPrefix(how, "n/a") {
			how = "n/a"
		}
		counts[how]++
	}
	if len(covered.cells) > 0 {
		fmt.Printf("promises: %d combinations (store × sandbox × approver × frontend × scenario): %d ok, %d failed, %d not applicable\n",
			len(covered.cells), counts["ok"], counts["FAIL"], counts["n/a"])
		for _, c := range covered.cells {
			fmt.Println("  " + c)
		}
	}
	covered.mu.Unlock()
	os.Exit(code)
}
