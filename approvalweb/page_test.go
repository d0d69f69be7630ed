package approvalweb_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

func TestNewNeedsWhoMayAnswer(t *testing.T) {
	for _, opts := range []*approvalweb.Options{nil, {}, {Store: tool.NewMemoryPendingApprovalStore(0)}} {
		h, err := approvalweb.New(opts)
		assert.Nil(t, h)
		assert.ErrorContains(t, err, "approvalweb: Options.MayAnswer (or Sessions) is required")
	}
	h, err := approvalweb.New(&approvalweb.Options{Sessions: sessionsOf, MayAnswer: func(*http.Request, string) bool { return true }})
	assert.Nil(t, h)
	assert.ErrorContains(t, err, "not both")
}

func TestPageShowsWhatTheApproverWouldBeShown(t *testing.T) {
	f := newFixture(t, nil)
	f.deferred("conv-ada", "write_note", `{"path":"todo.md","text":"- milk\n- bread\n"}`)
	f.deferred("conv-shared", "remove_note", `{"path":"old.md","text":""}`)
	f.deferred("conv-shared", "fetch_url", `{"url":"https://example.com/?q=<b>"}`)
	f.deferred("conv-grace", "write_note", `{"path":"grace.md","text":"not for ada"}`)

	resp, page := f.get("ada", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, page, "<title>(3) Approvals</title>")

	// The edit: its diff, line by line, and what allow always covers.
	assert.Contains(t, page, `<h2 id="h-`)
	assert.Contains(t, page, ">Write todo.md</h2>")
	assert.Contains(t, page, `<span class="ctx">  - milk</span>`)
	assert.Contains(t, page, `<span class="del">- - eggs</span>`)
	assert.Contains(t, page, `<span class="add">&#43; - bread</span>`)
	assert.Contains(t, page, "mutating: it changes things")
	assert.Contains(t, page, "From now on in session “conv-ada”, write_note&#39;s mutating calls run without asking.")
	assert.Contains(t, page, `<textarea id="args-`, "write_note's arguments may be edited")

	// The ask-always remove: its reason, no allow always.
	assert.Contains(t, page, "destructive: it may lose data")
	assert.Contains(t, page, "removing cannot be undone")
	assert.Contains(t, page, "This call is asked about every time: it cannot be allowed always.")

	// The fetch without a preview: its arguments, escaped, open.
	assert.Contains(t, page, `<details class="args" open>`)
	assert.Contains(t, page, `&#34;https://example.com/?q=&lt;b&gt;&#34;`)
	assert.NotContains(t, page, "<b>")

	// Only the sessions ada may see.
	assert.NotContains(t, page, "grace.md")
	_, gracePage := f.get("grace", "")
	assert.Contains(t, gracePage, "grace.md")
	assert.NotContains(t, gracePage, "todo.md")

	// Every control is labelled, and one answer per form.
	assert.Equal(t, strings.Count(page, "<form "), strings.Count(page, `type="submit"`))
	assert.Equal(t, strings.Count(page, "<input type=\"text\""), strings.Count(page, "<label for=\"reason-"))
}

// What a tool or a model wrote cannot become markup, nor pass for other
// text: the approval step made invisible characters visible, and the
// template escapes the rest.
func TestPageEscapes(t *testing.T) {
	f := newFixture(t, nil)
	evil := `<img src=x onerror=alert(1)>\u202egnp.exe</script>`
	f.deferred("conv-ada", "write_note", `{"path":"a.md","text":"`+evil+`"}`)
	_, page := f.get("ada", "")
	assert.NotContains(t, page, "<img")
	assert.Equal(t, 1, strings.Count(page, "</script>"), "the page's own script tag only")
	assert.NotContains(t, page, "\u202e")
	assert.Contains(t, page, `&lt;img src=x onerror=alert(1)&gt;\u202egnp.exe&lt;/script&gt;`)
}

func TestPageHeaders(t *testing.T) {
	f := newFixture(t, nil)
	for _, path := range []string{"", "pending.json", "assets/approvalweb.js"} {
		resp, _ := f.get("ada", path)
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'self'", path)
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'", path)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), path)
		assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"), path)
	}
	_, page := f.get("ada", "")
	assert.NotContains(t, page, "<script>", "no inline script: the policy allows none")
	assert.NotContains(t, page, " style=", "no inline style")
}

func TestPageAssets(t *testing.T) {
	f := newFixture(t, nil)
	for path, ctype := range map[string]string{"assets/approvalweb.js": "text/javascript; charset=utf-8", "assets/approvalweb.css": "text/css; charset=utf-8"} {
		resp, body := f.get("ada", path)
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Equal(t, ctype, resp.Header.Get("Content-Type"), path)
		assert.NotEmpty(t, body)
	}
	for _, path := range []string{"assets/page.html", "assets/", "assets/../doc.go", "nothing"} {
		resp, _ := f.get("ada", path)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}
}

// A host that mounts the page at "/approvals" exactly (not the subtree
// "/approvals/") has its readers sent to "/approvals/", against which the
// page's links resolve.
func TestPageWithoutTrailingSlash(t *testing.T) {
	page, err := approvalweb.New(&approvalweb.Options{Sessions: sessionsOf})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/approvals", http.StripPrefix("/approvals", page))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := *srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Get(srv.URL + "/approvals?x=1")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	assert.Equal(t, "/approvals/", resp.Header.Get("Location"))
}

func TestPageRefusesUnknownPeople(t *testing.T) {
	f := newFixture(t, nil)
	f.deferred("conv-ada", "write_note", `{"path":"todo.md","text":"x"}`)
	for _, path := range []string{"", "pending.json", "events"} {
		resp, body := f.get("mallory", path)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, path)
		assert.NotContains(t, body, "todo.md", path)
	}
}

func TestPendingJSON(t *testing.T) {
	f := newFixture(t, nil)
	p := f.deferred("conv-ada", "write_note", `{"path":"todo.md","text":"x"}`)
	resp, body := f.get("ada", "pending.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var got []struct {
		ID          string          `json:"id"`
		State       string          `json:"state"`
		Session     string          `json:"session"`
		Tool        string          `json:"tool"`
		Safety      string          `json:"safety"`
		Title       string          `json:"title"`
		Args        json.RawMessage `json:"args"`
		Expires     time.Time       `json:"expires"`
		AllowAlways string          `json:"allow_always"`
		Editable    bool            `json:"editable"`
		Edits       []struct{ Path, Diff string }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Len(t, got, 1)
	a := got[0]
	assert.Equal(t, p.State, a.State)
	assert.Len(t, a.ID, 32)
	assert.Equal(t, "conv-ada", a.Session)
	assert.Equal(t, "write_note", a.Tool)
	assert.Equal(t, "mutating", a.Safety)
	assert.Equal(t, "Write todo.md", a.Title)
	assert.JSONEq(t, `{"path":"todo.md","text":"x"}`, string(a.Args))
	assert.True(t, a.Expires.Equal(p.Expires))
	assert.NotEmpty(t, a.AllowAlways)
	assert.True(t, a.Editable)
	require.Len(t, a.Edits, 1)
	assert.Equal(t, "@@ line 1\n- - milk\n- - eggs\n+ x\n", a.Edits[0].Diff)

	_, body = f.get("grace", "pending.json")
	assert.JSONEq(t, `[]`, body)
}

// Host code that panics refuses the request (Sessions) or means no
// (Editable); the page still answers.
func TestHostCodeThatPanics(t *testing.T) {
	f := newFixture(t, &approvalweb.Options{
		Sessions: func(r *http.Request) ([]string, error) {
			if r.Header.Get(personHeader) == "mallory" {
				panic("no such person")
			}
			return sessionsOf(r)
		},
		Editable: func(*tool.ApprovalRequest) bool { panic("cannot tell") },
	})
	f.deferred("conv-ada", "write_note", `{"path":"todo.md","text":"x"}`)
	resp, body := f.get("mallory", "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.NotContains(t, body, "todo.md")
	resp, body = f.get("ada", "")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, "Write todo.md")
	assert.NotContains(t, body, "<textarea", "an Editable that panics allows no edit")
}

// A call too large for the list is listed without its body, and read
// whole on its own page, where it can be allowed; one larger than the
// page shows whole cannot be allowed on the page at all, only denied.
// Before, arguments past 256 KiB were shown "cut to fit" while "Allow
// once" was offered: a person allowed a tail they could not read.
func TestLargeCallsAreReadWholeOrNotAllowed(t *testing.T) {
	f := newFixtureOf(t, nil, &tool.RegistryOptions{Limits: tool.Limits{MaxBytes: 4 << 20, MaxStringBytes: 4 << 20}})
	tail := "THE END OF THE TEXT"
	p := f.deferred("conv-ada", "write_note", `{"path":"big.md","text":"`+strings.Repeat("a", 300<<10)+tail+`"}`)
	_, list := f.get("ada", "")
	id := onlyID(t, list)
	has := func(page, s, why string) {
		t.Helper()
		assert.True(t, strings.Contains(page, s), "%s: the page has no %q", why, s)
	}
	hasNot := func(page, s, why string) {
		t.Helper()
		assert.False(t, strings.Contains(page, s), "%s: the page has %q", why, s)
	}
	assert.Regexp(t, `<p class="folded-note">This call is large: \d+ KiB to read. <a href="\?id=`+id+`">Open it to read it whole and answer it</a>.</p>`, list)
	hasNot(list, tail, "the list holds no large body")
	hasNot(list, `value="allow_once"`, "nothing is allowed unread from the list")
	assert.Less(t, len(list), 32<<10)

	_, own := f.get("ada", "?id="+id)
	has(own, tail+`&#34;`, "the arguments, whole, to their last byte")
	has(own, `<details class="args" open>`, "the arguments of a large call are open: its preview may be cut, they are not")
	has(own, `value="allow_once"`, "read whole, it can be allowed")
	status, a := f.post("ada", answer(p.State, "allow_once"), nil)
	assert.Equal(t, http.StatusOK, status, a.Message)

	huge := f.deferred("conv-ada", "write_note", `{"path":"huge.md","text":"`+strings.Repeat("h", 1100<<10)+`"}`)
	_, list = f.get("ada", "")
	_, own = f.get("ada", "?id="+onlyID(t, list))
	for _, page := range []string{list, own} {
		hasNot(page, `value="allow_once"`, "too large to read whole, it cannot be allowed")
		has(page, "Its arguments are 1.1 MiB (1126428 bytes): more than this page shows whole (1 MiB), so it cannot be allowed here, only denied.", "the page says why")
		assert.Less(t, len(page), 32<<10, "nothing of its body is sent")
	}
	status, a = f.post("ada", answer(huge.State, "allow_once"), nil)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "not_offered", a.Code)
	status, a = f.post("ada", answer(huge.State, "deny"), nil)
	assert.Equal(t, http.StatusOK, status, a.Message)
}

// A page with 1,000 approvals waiting shows the 20 that expire first,
// with the way to the rest; its size does not grow with the number that
// wait. Before, the page held all 1,000: 4 MiB, 45 s in a browser.
func TestPageOfManyApprovalsIsBounded(t *testing.T) {
	sessions := make([]string, 10)
	for i := range sessions {
		sessions[i] = fmt.Sprint("conv-", i)
	}
	f := newFixture(t, &approvalweb.Options{Sessions: func(*http.Request) ([]string, error) { return sessions, nil }})
	offerMany(t, f.page, sessions, 1000)

	_, first := f.get("ada", "")
	assert.Equal(t, pageSize, strings.Count(first, `<li id="a-`))
	has(t, first, "<title>(1000) Approvals</title>")
	has(t, first, `Approvals 1 to 20 of <span id="total">1000</span> waiting`)
	has(t, first, `<a id="next" href="?page=2" rel="next">`)
	has(t, first, "Call 0000", "those that expire first, first")
	assert.Less(t, len(first), pageSize*8<<10, "the first view is bounded")

	_, last := f.get("ada", "?page=50")
	assert.Equal(t, pageSize, strings.Count(last, `<li id="a-`))
	has(t, last, "Call 0999")
	has(t, last, `<a href="?page=49" rel="prev">`)
	has(t, last, `<a id="next" href="?page=51" rel="next" hidden>`)
	_, past := f.get("ada", "?page=5000")
	has(t, past, "Call 0999", "a page past the end is the last")

	s := f.streamOf("ada", "have=&page=50", true)
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	assert.Equal(t, event{"count", "1000"}, s.next())
	for range pageSize {
		assert.Contains(t, addedOf(t, s.next()).HTML, "Call 09")
	}
	s.quiet(100 * time.Millisecond)

	// An answer on page 1 moves each later approval up: page 2 loses its
	// first to page 1 (it still waits: "leave", not "remove") and gains
	// the first of page 3.
	two := f.streamOf("ada", "have=&page=2", true)
	assert.Equal(t, event{"count", "1000"}, two.next())
	for range pageSize {
		addedOf(t, two.next())
	}
	require.NoError(t, f.page.Answer(context.Background(), "state-0000", tool.Decision{Kind: tool.DecisionDeny}))
	var got []string
	for range 3 {
		e := two.next()
		if e.name == "add" {
			e.data = strings.Split(strings.SplitN(addedOf(t, e).HTML, "Call ", 2)[1], "<")[0]
		}
		got = append(got, e.name+" "+e.data)
	}
	slices.Sort(got)
	assert.Equal(t, []string{"add 0040", "count 999", "leave " + idOfState("state-0020")}, got)
}

// idOfState is the page's id of the approval of state.
func idOfState(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:16])
}

const pageSize = 20

// offerMany offers n approvals of about 4 KiB each (a diff of a file and
// its arguments, as the 1,000 of the report were) in sessions, the first
// expiring first; their titles are Call 0000, Call 0001, …
func offerMany(t testing.TB, page *approvalweb.Handler, sessions []string, n int) {
	t.Helper()
	start := time.Now().Add(time.Hour)
	for i := range n {
		content := strings.Repeat(fmt.Sprintf("line %d of the file\n", i), 60)
		args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("file%d.go", i), "content": content})
		s := sessions[i%len(sessions)]
		p := &tool.PendingApproval{
			State: fmt.Sprintf("state-%04d", i), Session: s, Expires: start.Add(time.Duration(i) * time.Second),
			Request: tool.ApprovalRequest{
				Tool: "write_file", DisplayName: "Write a file", CallID: fmt.Sprint("call-", i), Session: s, Args: args, ArgsText: string(args),
				Safety: tool.SafetyMutating, Preview: tool.Preview{Title: fmt.Sprintf("Call %04d", i), Summary: "Write the file.",
					Edits: []tool.Edit{{Path: fmt.Sprintf("file%d.go", i), New: content}}},
			},
		}
		require.NoError(t, page.Offer(context.Background(), p))
	}
}

// BenchmarkPage serves the first view of the page with 20 and with 1,000
// approvals waiting (of about 4 KiB each); the first is the floor. It
// reports the bytes of the page (page-bytes).
func BenchmarkPage(b *testing.B) {
	for _, n := range []int{pageSize, 1000} {
		b.Run(fmt.Sprint("waiting=", n), func(b *testing.B) {
			sessions := make([]string, 10)
			for i := range sessions {
				sessions[i] = fmt.Sprint("conv-", i)
			}
			page, err := approvalweb.New(&approvalweb.Options{Sessions: func(*http.Request) ([]string, error) { return sessions, nil }})
			require.NoError(b, err)
			defer page.Close()
			offerMany(b, page, sessions, n)
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			var size int
			for b.Loop() {
				w := httptest.NewRecorder()
				page.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size), "page-bytes")
		})
	}
}

// A call's characters that do not show are each a mark of their own on
// the page, a hundred bytes of HTML for a character of one to three: a
// list of calls within the list's bound, full of such characters, was
// megabytes. Such a call is listed folded, as a large one is, and read
// whole on its own page; a run of one character is one mark that counts
// it. Before, 20 calls of 1,200 alternating zero-width characters each
// made a first page of 5.1 MiB (30 KiB now), and a call of 1,200 U+200B
// was 2,400 marks (one).
func TestHiddenCharactersDoNotWeighDownTheList(t *testing.T) {
	sessions := []string{"conv-ada"}
	f := newFixture(t, &approvalweb.Options{Sessions: func(*http.Request) ([]string, error) { return sessions, nil }})
	for i := range pageSize {
		f.deferred("conv-ada", "write_note", fmt.Sprintf(`{"path":"n%02d.md","text":"%s"}`, i, strings.Repeat(`\u200b\u200c`, 600)))
	}
	_, list := f.get("ada", "")
	assert.Equal(t, pageSize, strings.Count(list, `<li id="a-`))
	assert.Equal(t, pageSize, strings.Count(list, "with many characters that do not show, each marked."), "each is folded, and says why")
	assert.NotContains(t, list, `value="allow_once"`, "nothing is allowed unread from the list")
	assert.Less(t, len(list), pageSize*8<<10, "the list is bounded")

	id := strings.SplitN(strings.SplitN(list, `<a href="?id=`, 2)[1], `"`, 2)[0]
	_, own := f.get("ada", "?id="+id)
	assert.Contains(t, own, `value="allow_once"`, "read whole on its own page, it can be allowed")
	assert.Equal(t, 2*1200, strings.Count(own, `aria-label="hidden character U+200`), "the preview and the arguments, each character marked")

	waiting, err := f.page.Pending(context.Background(), "conv-ada")
	require.NoError(t, err)
	for _, p := range waiting {
		require.NoError(t, f.page.Answer(context.Background(), p.State, tool.Decision{Kind: tool.DecisionDeny}))
	}
	f.deferred("conv-ada", "write_note", `{"path":"run.md","text":"`+strings.Repeat(`\u200b`, 1200)+`"}`)
	_, list = f.get("ada", "")
	n := 1200
	assert.Contains(t, list, fmt.Sprintf(`aria-label="%d × hidden character U+200B" title="%d × hidden character U+200B">U+200B×%d</span>`, n, n, n), "a run of one character is one mark that counts it")
	assert.NotContains(t, list, "with many characters that do not show", "a run is shown in the list")
	assert.Less(t, len(list), 16<<10)
}
