package browsertest

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/toolbelt-go/tool"
)

var screenshot = flag.String("screenshot", "", "write the screenshot of the page with a pending file edit to this PNG file (../../docs/approvalweb.png)")

// The approval appears while the agent waits, without a reload; the
// person reads the diff and allows it; the agent's call runs.
func TestAllowInTheBrowser(t *testing.T) {
	br, a := browser(t), newAgent(t)
	do(t, br, chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.ID("empty")))

	done := a.call("edit_file", fixArgs)
	do(t, br, chromedp.WaitVisible(chromedp.CSS("li.approval")))
	contains(t, "the approval's heading", get(t, br, chromedp.Text(chromedp.CSS("li.approval h2"))), fixTitle)
	contains(t, "the diff", get(t, br, chromedp.Text(chromedp.CSS("li.approval pre.diff"))), fixDel, fixAdd)
	contains(t, "the facts", get(t, br, chromedp.Text(chromedp.CSS("li.approval dl"))), "edit_file", "mutating: it changes things", "Expires")
	contains(t, "the status line", get(t, br, chromedp.Text(chromedp.ID("status"))), "New approval: "+fixTitle)
	if src := a.source(); strings.Contains(src, fixed) {
		t.Fatal("the edit was made before anyone allowed it")
	}

	do(t, br, chromedp.Click(chromedp.CSS(`li.approval button[value="allow_once"]`)))
	if res := result(t, done); res.Status != tool.StatusOK {
		t.Fatalf("the allowed call: %s %s", res.Status, res.Text())
	}
	contains(t, "the file", a.source(), fixed)
	do(t, br, chromedp.WaitNotPresent(chromedp.CSS("li.approval")), chromedp.WaitVisible(chromedp.ID("empty")))
	contains(t, "the status line", get(t, br, chromedp.Text(chromedp.ID("status"))), "Your answer was sent: allowed once.")
}

// Keyboard only: the person tabs to the reason, types it, presses Enter;
// the deny and its reason reach the model.
func TestDenyWithReasonByKeyboard(t *testing.T) {
	br, a := browser(t), newAgent(t)
	done := a.call("edit_file", fixArgs)
	a.waiting()
	do(t, br, chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval")))
	tabTo(t, br, `input[name="reason"]`)
	do(t, br, chromedp.KeyEvent("keep Split, add a test first"), chromedp.KeyEvent(kb.Enter))

	res := result(t, done)
	if res.Status != tool.StatusDenied {
		t.Fatalf("Enter in the reason answered %s, want a deny: %s", res.Status, res.Text())
	}
	contains(t, "what the model reads", res.Text(), "the user said: keep Split, add a test first")
	if strings.Contains(a.source(), fixed) {
		t.Fatal("the denied edit was made")
	}
}

// tabTo presses Tab until the element matching sel has the focus.
func tabTo(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	for range 40 {
		if get(t, ctx, chromedp.Evaluate[bool](`document.activeElement.matches(`+quote(sel)+`)`)) {
			return
		}
		do(t, ctx, chromedp.KeyEvent(kb.Tab))
	}
	t.Fatalf("%s is not reached by the keyboard in 40 presses of Tab", sel)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// A second tab sees the first tab's answer: the approval leaves it, and
// it says so.
func TestSecondTabSeesTheAnswer(t *testing.T) {
	br, a := browser(t), newAgent(t)
	second := newTab(t, br)
	do(t, br, chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.ID("empty")))
	do(t, second, chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.ID("empty")))

	done := a.call("edit_file", fixArgs)
	do(t, br, chromedp.WaitVisible(chromedp.CSS("li.approval")))
	do(t, second, chromedp.WaitVisible(chromedp.CSS("li.approval")))
	do(t, br, chromedp.Click(chromedp.CSS(`li.approval button[value="allow_once"]`)))
	if res := result(t, done); res.Status != tool.StatusOK {
		t.Fatalf("the allowed call: %s %s", res.Status, res.Text())
	}
	do(t, second, chromedp.WaitNotPresent(chromedp.CSS("li.approval")))
	contains(t, "the second tab's status line", get(t, second, chromedp.Text(chromedp.ID("status"))), "Answered elsewhere: "+fixTitle)
}

// An answer whose state was altered in the page is refused, shown as
// such, and changes nothing; the genuine answer still works.
func TestForgedAnswerIsRefused(t *testing.T) {
	br, a := browser(t), newAgent(t)
	done := a.call("edit_file", fixArgs)
	p := a.waiting()
	do(t, br, chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval")))
	forged := p.State[:len(p.State)-4] + "AAAA"
	do(t, br,
		chromedp.SetValue(chromedp.CSS(`li.approval form.allow input[name="state"]`), forged),
		chromedp.Click(chromedp.CSS(`li.approval button[value="allow_once"]`)),
		chromedp.WaitVisible(chromedp.ID("alert")),
	)
	contains(t, "the alert", get(t, br, chromedp.Text(chromedp.ID("alert"))), "refused", "not for an approval waiting for you")
	if a.answered(p.State) {
		t.Fatal("a forged answer answered the approval")
	}
	do(t, br, chromedp.WaitVisible(chromedp.CSS("li.approval")))

	do(t, br, chromedp.Reload(), chromedp.Click(chromedp.CSS(`li.approval button[value="allow_once"]`)))
	if res := result(t, done); res.Status != tool.StatusOK {
		t.Fatalf("the genuine answer after the forged one: %s %s", res.Status, res.Text())
	}
}

// A page left open without its script (or with it off) still reads and
// answers; answering what another tab answered is a replay, refused and
// shown as such.
func TestReplayedAnswerIsRefused(t *testing.T) {
	br, a := browser(t), newAgent(t)
	stale := newTab(t, br)
	do(t, stale, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	done := a.call("edit_file", fixArgs)
	p := a.waiting()
	do(t, stale, chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval")))
	contains(t, "the page without its script", get(t, stale, chromedp.Text(chromedp.CSS("li.approval pre.diff"))), fixDel, fixAdd)

	do(t, br, chromedp.Navigate(a.url), chromedp.Click(chromedp.CSS(`li.approval button[value="allow_once"]`)))
	if res := result(t, done); res.Status != tool.StatusOK {
		t.Fatalf("the allowed call: %s %s", res.Status, res.Text())
	}

	do(t, stale, chromedp.Click(chromedp.CSS(`li.approval button[value="allow_once"]`)), chromedp.WaitVisible(chromedp.ID("alert")))
	contains(t, "the refusal", get(t, stale, chromedp.Text(chromedp.ID("alert"))), "already answered", "Your answer was not used")
	contains(t, "the page after the refusal", get(t, stale, chromedp.Text(chromedp.CSS("main"))), "Nothing is waiting for your answer.")
	if !a.answered(p.State) {
		t.Fatal("the approval lost its first answer")
	}
}

// Every control is labelled for a screen reader, and the page fits a
// phone's width: nothing but a diff or a command scrolls sideways.
func TestAccessibleAndReadableOnAPhone(t *testing.T) {
	br, a := browser(t), newAgent(t)
	a.call("edit_file", fixArgs)
	a.waiting()
	do(t, br,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(3)),
		chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval")),
	)
	unlabelled := get(t, br, chromedp.Evaluate[[]string](`[...document.querySelectorAll('button, input:not([type=hidden]), textarea, summary')]
		.filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
		.map(e => e.outerHTML)`))
	if len(unlabelled) > 0 {
		t.Errorf("controls without a name a screen reader can read: %q", unlabelled)
	}
	regions := get(t, br, chromedp.Evaluate[[]string](`[...document.querySelectorAll('article')]
		.filter(a => !document.getElementById(a.getAttribute('aria-labelledby')))
		.map(a => a.outerHTML.slice(0, 80))`))
	if len(regions) > 0 {
		t.Errorf("approvals not labelled by their heading: %q", regions)
	}
	if wide := get(t, br, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); wide > 0 {
		t.Errorf("on a 390-pixel-wide phone the page scrolls sideways by %d pixels", wide)
	}
	if shown := get(t, br, chromedp.Evaluate[bool](`document.getElementById('next').getClientRects().length > 0`)); shown {
		t.Error("the link to more approvals shows, with nothing more to see")
	}
	small := get(t, br, chromedp.Evaluate[[]string](`[...document.querySelectorAll('button')]
		.filter(b => b.getBoundingClientRect().height < 44).map(b => b.textContent)`))
	if len(small) > 0 {
		t.Errorf("buttons shorter than 44 CSS pixels, hard to tap: %q", small)
	}
}

// TestScreenshot takes the picture of the page with a pending file edit
// that docs/approvalweb.md shows: go test -run Screenshot -screenshot
// ../../docs/approvalweb.png.
func TestScreenshot(t *testing.T) {
	br, a := browser(t), newAgent(t)
	a.call("edit_file", fixArgs)
	a.waiting()
	do(t, br,
		chromedp.EmulateViewport(900, 900),
		chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval")),
	)
	png := get(t, br, chromedp.FullScreenshot(100))
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10_000 {
		t.Fatalf("the screenshot is not a PNG of a page (%d bytes)", len(png))
	}
	if *screenshot != "" {
		if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
