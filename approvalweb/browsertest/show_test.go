package browsertest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolbelt-go/tool"
)

// summaryOf is the script that reads the summary ("$ command") of the
// approval whose heading or summary holds marker: its text as a person
// reads it, and the marks it holds.
func summaryOf(marker string) string {
	return `(() => {
		const li = [...document.querySelectorAll('li.approval')].find(li => li.querySelector('pre.summary').textContent.includes(` + jsString(marker) + `));
		if (!li) return {text: '', marks: [], id: ''};
		const pre = li.querySelector('pre.summary');
		const marks = [...pre.querySelectorAll('.esc')].map(e => {
			const s = getComputedStyle(e);
			return e.getAttribute('aria-label') + '|' + s.borderTopStyle + '|' + s.backgroundColor;
		});
		return {text: pre.innerText, marks: marks, id: li.id};
	})()`
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

type summary struct {
	Text  string   `json:"text"`
	Marks []string `json:"marks"`
	ID    string   `json:"id"`
}

// A real U+202E and the six characters \u202e do not look the same on the
// page, nor an ESC byte and the text \x1b, in run_shell's "$ command"
// line: the character is a mark of its own, styled and labelled, the text
// is text; the two summaries read and look different (their pictures
// differ). Before, both were the text \u202e.
func TestHiddenCharactersLookDifferent(t *testing.T) {
	br, a := browser(t), newAgent(t)
	a.call("run_shell", `{"command":"touch report\u202egnp.exe"}`)
	a.call("run_shell", `{"command":"touch report\\u202egnp.exe"}`)
	a.call("run_shell", `{"command":"touch clear\u001b[2J.txt"}`)
	a.call("run_shell", `{"command":"touch clear\\x1b[2J.txt"}`)
	a.waitingAll(4)
	do(t, br, chromedp.EmulateViewport(900, 900), chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval")))

	for _, c := range []struct {
		name, real, literal, label string
	}{
		{"U+202E", "report U+202Egnp", `report\u202egnp`, "hidden character U+202E"},
		{"ESC", "clear U+001B[2J", `clear\x1b[2J`, "control character U+001B"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var withChar, withText summary
			withChar = get(t, br, chromedp.Evaluate[summary](summaryOf(strings.Fields(c.real)[0]+"U+")))
			withText = get(t, br, chromedp.Evaluate[summary](summaryOf(c.literal)))
			if withChar.ID == "" || withText.ID == "" {
				t.Fatalf("no summary shows the command with the character as a mark (%q) or the one with the text as text (%q)", withChar.Text, withText.Text)
			}
			if withChar.ID == withText.ID || withChar.Text == withText.Text {
				t.Fatalf("the two commands read the same: %q and %q", withChar.Text, withText.Text)
			}
			if len(withChar.Marks) != 1 || !strings.HasPrefix(withChar.Marks[0], c.label+"|dashed|") {
				t.Errorf("the character is not a mark of its own, labelled %q and boxed: %q", c.label, withChar.Marks)
			}
			if len(withText.Marks) != 0 || !strings.Contains(withText.Text, c.literal) {
				t.Errorf("the text is not shown as the text %q: %q, marks %q", c.literal, withText.Text, withText.Marks)
			}
			pics := [2][]byte{}
			for i, s := range []summary{withChar, withText} {
				pics[i] = get(t, br, chromedp.Screenshot(chromedp.CSS("#"+s.ID+" pre.summary code")))
			}
			if string(pics[0]) == string(pics[1]) {
				t.Error("the two summaries look the same (their pictures are equal)")
			}
		})
	}
}

// On a 375-pixel phone, a command padded with 400 spaces shows whole:
// what follows the spaces is on the screen, inside the summary, and
// nothing scrolls sideways. Before, only "$ echo build" showed.
func TestPaddedCommandWrapsWholeOnAPhone(t *testing.T) {
	br, a := browser(t), newAgent(t)
	a.call("run_shell", `{"command":"echo build`+strings.Repeat(" ", 400)+`; rm -rf src"}`)
	a.waiting()
	do(t, br,
		chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(3)),
		chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval pre.summary")),
	)
	type box struct {
		Left, Right, Top, Bottom  float64
		PreLeft, PreRight, PreTop float64
		PreBottom                 float64
		ScrollWidth, ClientWidth  int
		ViewWidth                 float64
		Text                      string
	}
	b := get(t, br, chromedp.Evaluate[box](`(() => {
		const pre = document.querySelector('li.approval pre.summary');
		const code = pre.querySelector('code');
		const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
		let node; while ((node = walk.nextNode()) && !node.data.includes('rm -rf src')) {}
		const r = document.createRange();
		const at = node.data.indexOf('; rm -rf src');
		r.setStart(node, at); r.setEnd(node, at + '; rm -rf src'.length);
		const tail = r.getBoundingClientRect(), p = pre.getBoundingClientRect();
		return {Left: tail.left, Right: tail.right, Top: tail.top, Bottom: tail.bottom,
			PreLeft: p.left, PreRight: p.right, PreTop: p.top, PreBottom: p.bottom,
			ScrollWidth: pre.scrollWidth, ClientWidth: pre.clientWidth, ViewWidth: window.innerWidth, Text: pre.innerText};
	})()`))
	if b.ScrollWidth > b.ClientWidth {
		t.Errorf("the command scrolls sideways: %d pixels wide in a box of %d", b.ScrollWidth, b.ClientWidth)
	}
	if b.Left < b.PreLeft || b.Right > b.PreRight || b.Right > b.ViewWidth || b.Top < b.PreTop || b.Bottom > b.PreBottom {
		t.Errorf("'; rm -rf src' is not in sight: at x %.0f–%.0f, y %.0f–%.0f; the summary is at x %.0f–%.0f, y %.0f–%.0f; the screen is %.0f wide",
			b.Left, b.Right, b.Top, b.Bottom, b.PreLeft, b.PreRight, b.PreTop, b.PreBottom, b.ViewWidth)
	}
	if !strings.Contains(b.Text, "␣×400") {
		t.Errorf("the run of spaces is not counted: %q", b.Text)
	}
	if wide := get(t, br, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); wide > 0 {
		t.Errorf("the page scrolls sideways by %d pixels", wide)
	}
}

// A call whose arguments are too large for the list (300 KiB) is listed
// without its body and cannot be allowed from there; its own page shows
// the arguments whole, to the last byte, and allows it. One larger than
// the page shows whole (1.1 MiB) cannot be allowed at all. Before, the
// arguments were shown "cut to fit" beside "Allow once".
func TestOversizedCallCannotBeAllowedUnread(t *testing.T) {
	br, a := browser(t), newAgentWith(t, &tool.RegistryOptions{Limits: tool.Limits{MaxBytes: 4 << 20, MaxStringBytes: 4 << 20}})
	tail := "THE LAST LINE OF THE FILE"
	done := a.call("write_file", `{"path":"big.txt","content":"`+strings.Repeat("a line of the file\\n", 300<<10/19)+tail+`"}`)
	a.waiting()
	do(t, br, chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval")))
	if n := get(t, br, chromedp.Evaluate[int](`document.querySelectorAll('li.approval button[value=allow_once]').length`)); n != 0 {
		t.Fatal("the list offers to allow a call it does not show whole")
	}
	contains(t, "the list", get(t, br, chromedp.Text(chromedp.CSS("li.approval .folded-note"))), "This call is large", "Open it to read it whole and answer it")

	do(t, br, chromedp.Click(chromedp.CSS("li.approval .folded-note a")), chromedp.WaitVisible(chromedp.CSS(`li.approval button[value="allow_once"]`)))
	args := get(t, br, chromedp.Evaluate[string](`document.querySelector('li.approval details.args pre').textContent`))
	if !strings.Contains(args, tail) || strings.Contains(args, "cut to fit") {
		t.Fatalf("the call's own page does not show the arguments whole (%d bytes, ends %q)", len(args), args[max(0, len(args)-80):])
	}
	if open := get(t, br, chromedp.Evaluate[bool](`document.querySelector('li.approval details.args').open`)); !open {
		t.Error("the whole arguments of a large call are not open")
	}
	do(t, br, chromedp.Click(chromedp.CSS(`li.approval button[value="allow_once"]`)))
	if res := result(t, done); res.Status != tool.StatusOK {
		t.Fatalf("the call allowed on its own page: %s %s", res.Status, res.Text())
	}

	a.call("write_file", `{"path":"huge.txt","content":"`+strings.Repeat("h", 1100<<10)+`"}`)
	a.waiting()
	do(t, br, chromedp.Navigate(a.url), chromedp.WaitVisible(chromedp.CSS("li.approval")))
	contains(t, "the huge call", get(t, br, chromedp.Text(chromedp.CSS("li.approval article"))), "cannot be allowed here, only denied")
	if n := get(t, br, chromedp.Evaluate[int](`document.querySelectorAll('button[value=allow_once], a[href^="?id="]').length`)); n != 0 {
		t.Fatal("a call too large to show whole can be allowed, or opened to be allowed")
	}
}
