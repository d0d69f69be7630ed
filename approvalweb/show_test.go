package approvalweb_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var summaryRE = regexp.MustCompile(`(?s)<pre class="summary"[^>]*><code>(.*?)</code></pre>`)

// summaryOf returns the HTML of the first summary on page.
func summaryOf(t *testing.T, page string) string {
	t.Helper()
	m := summaryRE.FindStringSubmatch(page)
	require.NotNil(t, m, "no summary on the page:\n%s", page)
	return m[1]
}

// What the page shows is what runs: a character that does not show and
// the text of its escape never look the same, in the summary (run_shell's
// "$ command" line) or in the arguments. Before, a real U+202E and the six
// characters \u202e were both shown as the text \u202e, and an ESC byte
// and the text \x1b as \x1b.
func TestPageShowsHiddenCharactersApart(t *testing.T) {
	for _, c := range []struct {
		name            string
		real, literal   string // the command's JSON, with the character and with its text
		mark, shownText string
	}{
		{"U+202E", `echo \u202egnp.exe`, `echo \\u202egnp.exe`, `aria-label="hidden character U+202E"`, `\u202e`},
		{"ESC", `printf \u001b[2J`, `printf \\x1b[2J`, `aria-label="control character U+001B"`, `\x1b`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.deferred("conv-ada", "run_shell", `{"command":"`+c.real+`"}`)
			_, withChar := f.get("ada", "")
			f = newFixture(t, nil)
			f.deferred("conv-ada", "run_shell", `{"command":"`+c.literal+`"}`)
			_, withText := f.get("ada", "")

			a, b := summaryOf(t, withChar), summaryOf(t, withText)
			assert.NotEqual(t, a, b, "the two commands are shown alike")
			assert.Contains(t, a, `<span class="esc" role="img" `+c.mark, "the character is a mark of its own")
			assert.NotContains(t, b, `class="esc"`, "the text is text")
			assert.Contains(t, b, c.shownText, "the text is shown as it is")
			assert.NotContains(t, stripTags(a), c.shownText, "the mark does not read as the text")
			assert.Contains(t, withChar, `<pre aria-label="The call's arguments"><code>{
  &#34;command&#34;: &#34;`, "the arguments are shown")
			assert.Equal(t, 2, strings.Count(withChar, c.mark), "in the summary and in the arguments")
			assert.NotContains(t, withText, `class="esc"`)
		})
	}
}

// A command padded with spaces shows whole: the run of spaces is counted,
// and what follows it is on the page.
func TestPageShowsAPaddedCommandWhole(t *testing.T) {
	f := newFixture(t, nil)
	f.deferred("conv-ada", "run_shell", `{"command":"echo build`+strings.Repeat(" ", 400)+`; rm -rf src"}`)
	_, page := f.get("ada", "")
	s := summaryOf(t, page)
	assert.Equal(t, `$ echo build<span class="esc spaces" role="img" aria-label="400 spaces" title="400 spaces">␣×400</span>; rm -rf src`, s)
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

func stripTags(s string) string { return tagRE.ReplaceAllString(s, "") }
