package approvalweb_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

func TestAnswerAllowRunsTheCall(t *testing.T) {
	f := newFixture(t, nil)
	done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"todo.md","text":"- milk\n- bread\n"}`)
	p := f.waiting("conv-ada")
	assert.Empty(t, f.notes.get("todo.md")[len("- milk\n- eggs\n"):], "nothing ran before the answer")

	status, a := f.post("ada", url.Values{"state": {p.State}, "decision": {"allow_once"}}, nil)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, answerResponse{OK: true, Code: "allow_once", Message: "Your answer was sent: allowed once."}, a)

	res := result(t, done)
	assert.Equal(t, tool.StatusOK, res.Status, res.Text())
	assert.Equal(t, "- milk\n- bread\n", f.notes.get("todo.md"))
}

func TestAnswerDenyReasonReachesTheModel(t *testing.T) {
	f := newFixture(t, nil)
	done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"todo.md","text":"x"}`)
	p := f.waiting("conv-ada")
	status, a := f.post("ada", url.Values{"state": {p.State}, "decision": {"deny"}, "reason": {"keep the eggs"}}, nil)
	require.Equal(t, http.StatusOK, status, a.Message)
	res := result(t, done)
	assert.Equal(t, tool.StatusDenied, res.Status)
	assert.Contains(t, res.Text(), "the user said: keep the eggs")
	assert.Equal(t, "- milk\n- eggs\n", f.notes.get("todo.md"))
}

func TestAnswerEdit(t *testing.T) {
	t.Run("valid arguments run instead", func(t *testing.T) {
		f := newFixture(t, nil)
		done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"todo.md","text":"x"}`)
		p := f.waiting("conv-ada")
		status, a := f.post("ada", url.Values{"state": {p.State}, "decision": {"edit"}, "args": {`{"path":"todo.md","text":"edited"}`}}, nil)
		require.Equal(t, http.StatusOK, status, a.Message)
		res := result(t, done)
		assert.Equal(t, tool.StatusOK, res.Status, res.Text())
		assert.Equal(t, "edited", f.notes.get("todo.md"))
	})
	t.Run("arguments the schema refuses do not run, and the model is told", func(t *testing.T) {
		f := newFixture(t, nil)
		done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"todo.md","text":"x"}`)
		p := f.waiting("conv-ada")
		status, _ := f.post("ada", url.Values{"state": {p.State}, "decision": {"edit"}, "args": {`{"path":"` + strings.Repeat("p", 65) + `","text":"y"}`}}, nil)
		require.Equal(t, http.StatusOK, status, "the page checks the shape; the registry checks the schema")
		res := result(t, done)
		assert.Equal(t, tool.StatusInvalid, res.Status)
		assert.Contains(t, res.Text(), "edited the arguments")
		assert.Equal(t, "- milk\n- eggs\n", f.notes.get("todo.md"))
	})
}

func TestAnswerAllowAlwaysIsRemembered(t *testing.T) {
	f := newFixture(t, nil)
	done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"a.md","text":"1"}`)
	p := f.waiting("conv-ada")
	status, _ := f.post("ada", url.Values{"state": {p.State}, "decision": {"allow_always"}}, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, tool.StatusOK, result(t, done).Status)
	res := f.reg.Call(context.Background(), struct{}{}, tool.Request{Name: "write_note", Args: []byte(`{"path":"b.md","text":"2"}`), Session: "conv-ada", ReturnPending: true})
	assert.Equal(t, tool.StatusOK, res.Status, "the next write of the session runs without asking")
}

// TestAnswerRefusals: every answer the page must refuse is refused with
// its own status and code, and changes nothing.
func TestAnswerRefusals(t *testing.T) {
	write := `{"path":"todo.md","text":"x"}`
	cases := []struct {
		name   string
		person string
		tool   string // the call whose approval is answered
		args   string
		form   func(state string) url.Values
		header map[string]string
		before func(f *fixture, p *tool.PendingApproval) // something that happened first
		status int
		code   string
	}{
		{name: "cross-origin (Sec-Fetch-Site)", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, status: 403, code: "cross_origin"},
		{name: "cross-origin (Origin)", header: map[string]string{"Origin": "https://evil.example"}, status: 403, code: "cross_origin"},
		{name: "a session the person may not see", person: "grace", status: 403, code: "forged"},
		{name: "a person the host does not know", person: "mallory", status: 403, code: "forbidden"},
		{name: "forged state", form: func(s string) url.Values { return answer(s[:len(s)-2]+"AA", "allow_once") }, status: 403, code: "forged"},
		{name: "state of nothing", form: func(string) url.Values { return answer("not-a-state", "allow_once") }, status: 403, code: "forged"},
		{name: "oversized state", form: func(string) url.Values { return answer(strings.Repeat("A", 5000), "allow_once") }, status: 403, code: "forged"},
		{name: "replayed", before: func(f *fixture, p *tool.PendingApproval) {
			status, _ := f.post("ada", answer(p.State, "allow_once"), nil)
			require.Equal(f.t, 200, status)
		}, status: 409, code: "replayed"},
		{name: "answered by the agent's own timeout", before: func(f *fixture, p *tool.PendingApproval) {
			require.NoError(f.t, f.page.Answer(context.Background(), p.State, tool.Decision{Kind: tool.DecisionDeny, Reason: "no one answered in time"}))
		}, status: 409, code: "replayed"},
		{name: "oversized reason", form: func(s string) url.Values {
			v := answer(s, "deny")
			v.Set("reason", strings.Repeat("r", 1025))
			return v
		}, status: 413, code: "too_large"},
		{name: "oversized arguments", form: func(s string) url.Values {
			v := answer(s, "edit")
			v.Set("args", `{"text":"`+strings.Repeat("a", 64<<10)+`"}`)
			return v
		}, status: 413, code: "too_large"},
		{name: "oversized body", form: func(s string) url.Values {
			v := answer(s, "deny")
			v.Set("padding", strings.Repeat("%", 300<<10))
			return v
		}, status: 413, code: "too_large"},
		{name: "unknown decision", form: func(s string) url.Values { return answer(s, "allow_twice") }, status: 400, code: "malformed"},
		{name: "no state", form: func(string) url.Values { return url.Values{"decision": {"allow_once"}} }, status: 400, code: "malformed"},
		{name: "two decisions", form: func(s string) url.Values {
			v := answer(s, "deny")
			v.Add("decision", "allow_always")
			return v
		}, status: 400, code: "malformed"},
		{name: "edited arguments that are not JSON", form: func(s string) url.Values {
			v := answer(s, "edit")
			v.Set("args", `{"path":`)
			return v
		}, status: 400, code: "malformed"},
		{name: "edited arguments that are not an object", form: func(s string) url.Values {
			v := answer(s, "edit")
			v.Set("args", `["todo.md"]`)
			return v
		}, status: 400, code: "malformed"},
		{name: "edited arguments with trailing data", form: func(s string) url.Values {
			v := answer(s, "edit")
			v.Set("args", `{"path":"a"} {"path":"b"}`)
			return v
		}, status: 400, code: "malformed"},
		{name: "an edit where the host allows none", tool: "fetch_url", args: `{"url":"https://example.com"}`, form: func(s string) url.Values {
			v := answer(s, "edit")
			v.Set("args", `{"url":"https://evil.example"}`)
			return v
		}, status: 400, code: "not_offered"},
		{name: "allow always for a call asked about every time", tool: "remove_note", form: func(s string) url.Values { return answer(s, "allow_always") }, status: 400, code: "not_offered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nil)
			name, args := c.tool, c.args
			if name == "" {
				name = "write_note"
			}
			if args == "" {
				args = write
			}
			p := f.deferred("conv-ada", name, args)
			if c.before != nil {
				c.before(f, p)
			}
			before := f.answerOf(p.State)
			form := answer(p.State, "allow_once")
			if c.form != nil {
				form = c.form(p.State)
			}
			person := c.person
			if person == "" {
				person = "ada"
			}
			status, a := f.post(person, form, c.header)
			assert.Equal(t, c.status, status, a.Message)
			assert.Equal(t, c.code, a.Code)
			assert.False(t, a.OK)
			assert.NotEmpty(t, a.Message)
			assert.Equal(t, before, f.answerOf(p.State), "a refused answer changes nothing")
		})
	}
}

func answer(state, decision string) url.Values {
	return url.Values{"state": {state}, "decision": {decision}}
}

func TestAnswerExpired(t *testing.T) {
	f := newFixture(t, nil)
	p := &tool.PendingApproval{State: "expired-state", Expires: time.Now().Add(-time.Second), Session: "conv-ada",
		Request: tool.ApprovalRequest{Tool: "write_note", Session: "conv-ada", Args: []byte(`{}`), ArgsText: `{}`}}
	require.NoError(t, f.page.Offer(context.Background(), p))
	status, a := f.post("ada", answer(p.State, "allow_once"), nil)
	assert.Equal(t, http.StatusGone, status)
	assert.Equal(t, "expired", a.Code)
	assert.Nil(t, f.answerOf(p.State))
}

func TestAnswerWrongContentType(t *testing.T) {
	f := newFixture(t, nil)
	p := f.deferred("conv-ada", "write_note", `{"path":"a","text":"b"}`)
	for _, ct := range []string{"multipart/form-data; boundary=x", "application/json", "", "text/plain"} {
		req, err := http.NewRequest(http.MethodPost, f.url+"answer", strings.NewReader(answer(p.State, "allow_once").Encode()))
		require.NoError(t, err)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		req.Header.Set(personHeader, "ada")
		req.Header.Set("Accept", "application/json")
		resp, err := f.srv.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, ct)
	}
	assert.Nil(t, f.answerOf(p.State))
}

// Without the page's script, an answer posts as a form and comes back to
// the page: a redirect when it was recorded, the page with the refusal at
// its top when it was not.
func TestAnswerWithoutScript(t *testing.T) {
	f := newFixture(t, nil)
	p := f.deferred("conv-ada", "write_note", `{"path":"a","text":"b"}`)
	post := func() *http.Response {
		req, err := http.NewRequest(http.MethodPost, f.url+"answer", strings.NewReader(answer(p.State, "allow_once").Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(personHeader, "ada")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		client := *f.srv.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := client.Do(req)
		require.NoError(t, err)
		return resp
	}
	resp := post()
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "./?answered=allow_once", resp.Header.Get("Location"))
	_, body := f.get("ada", "?answered=allow_once")
	assert.Contains(t, body, "Your answer was sent: allowed once.")

	resp = post() // the same form again: the back button, a second tab
	defer resp.Body.Close()
	assert.Equal(t, http.StatusConflict, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	assert.Regexp(t, `<div id="alert" role="alert" class="alert">This approval was already answered`, b.String())
}

func TestAnswerStoreUnavailable(t *testing.T) {
	f := newFixture(t, &approvalweb.Options{Store: failingStore{}})
	status, a := f.post("ada", answer("some-state", "allow_once"), nil)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, "unavailable", a.Code)
	resp, body := f.get("ada", "")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, body, "The approvals cannot be reached right now.")
}

// failingStore is a store that cannot be reached.
type failingStore struct{}

var errUnreachable = errors.New("dial tcp 10.0.0.7:6379: connection refused")

func (failingStore) Offer(context.Context, *tool.PendingApproval, time.Time) error {
	return errUnreachable
}
func (failingStore) List(context.Context, string) ([]*tool.PendingApproval, error) {
	return nil, errUnreachable
}
func (failingStore) Get(context.Context, string) (*tool.PendingApproval, *tool.Decision, error) {
	return nil, nil, errUnreachable
}
func (failingStore) Answer(context.Context, string, tool.Decision) (bool, error) {
	return false, errUnreachable
}

// Sessions are compared as they were given, never as the page shows
// them: the person whose session is the text team\u202e neither sees nor
// answers the calls of the session team followed by a real U+202E, which
// reads the same once escaped. Before, the page compared the escaped
// names, and the answer ran the other session's call.
func TestAnswerComparesRawSessions(t *testing.T) {
	const literal, withChar = `team\u202e`, "team\u202e"
	f := newFixture(t, &approvalweb.Options{
		Sessions: func(r *http.Request) ([]string, error) {
			if r.Header.Get(personHeader) == "mallory" {
				return []string{literal}, nil
			}
			return []string{withChar}, nil
		},
		Editable: func(*tool.ApprovalRequest) bool { return true },
	})
	p := f.deferred(withChar, "write_note", `{"path":"team.md","text":"x"}`)
	require.Equal(t, literal, p.Request.Session, "the two sessions read the same once escaped")

	_, page := f.get("mallory", "")
	assert.NotContains(t, page, "team.md", "the other session's call is not shown")
	_, list := f.get("mallory", "pending.json")
	assert.JSONEq(t, `[]`, list)
	status, a := f.post("mallory", answer(p.State, "allow_once"), nil)
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, "forged", a.Code)
	assert.Nil(t, f.answerOf(p.State), "the answer was not recorded")

	_, page = f.get("ada", "")
	assert.Contains(t, page, "team.md", "the session's own person sees it")
	status, a = f.post("ada", answer(p.State, "allow_once"), nil)
	assert.Equal(t, http.StatusOK, status, a.Message)
}
func (failingStore) Sessions(context.Context, string, int) ([]string, string, error) {
	return nil, "", errUnreachable
}
