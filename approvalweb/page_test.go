package approvalweb_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

func TestNewNeedsSessions(t *testing.T) {
	for _, opts := range []*approvalweb.Options{nil, {}, {Store: tool.NewMemoryPendingApprovalStore(0)}} {
		h, err := approvalweb.New(opts)
		assert.Nil(t, h)
		assert.ErrorContains(t, err, "approvalweb: Options.Sessions is required")
	}
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
