package approvalweb_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// mayAnswerByUser is a MayAnswer as a host that names each session after
// its user writes it (toolmcp's Options.Session from the bearer token):
// the person's own sessions, "user/…".
func mayAnswerByUser(asked *atomic.Int32) func(*http.Request, string) bool {
	return func(r *http.Request, session string) bool {
		if asked != nil {
			asked.Add(1)
		}
		user := r.Header.Get(personHeader)
		if user == "panic" {
			panic("the host's check failed")
		}
		return user != "" && strings.HasPrefix(session, user+"/")
	}
}

// With MayAnswer, the host keeps no list of a person's sessions: a session
// made at call time is on its person's page as soon as a call of it
// waits, and on no one else's. Before, Options.Sessions wanted the list,
// and a host whose sessions are made per MCP request kept a map of each
// user's sessions to give it (42 lines in the report).
func TestMayAnswerFindsTheSessionsOfAPerson(t *testing.T) {
	f := newFixture(t, &approvalweb.Options{MayAnswer: mayAnswerByUser(nil), Editable: nil})
	s := f.stream("ada", "")
	require.Equal(t, http.StatusOK, s.resp.StatusCode)

	done := f.call(context.Background(), "ada/mcp-1", "write_note", `{"path":"todo.md","text":"x"}`)
	a := addedOf(t, s.next())
	assert.Contains(t, a.HTML, "ada/mcp-1", "a session made at call time shows on its person's open page")
	f.deferred("grace/mcp-1", "write_note", `{"path":"grace.md","text":"x"}`)
	f.deferred("ada/mcp-2", "fetch_url", `{"url":"https://example.com"}`)
	assert.Contains(t, addedOf(t, s.next()).HTML, "ada/mcp-2")

	_, page := f.get("ada", "")
	assert.Equal(t, 2, strings.Count(page, `<li id="a-`))
	has(t, page, "ada/mcp-1")
	assert.NotContains(t, page, "grace.md")
	_, list := f.get("ada", "pending.json")
	var pj []approvalweb.PendingJSON
	require.NoError(t, json.Unmarshal([]byte(list), &pj))
	require.Len(t, pj, 2)

	graces := f.waiting("grace/mcp-1")
	status, ans := f.post("ada", answer(graces.State, "allow_once"), nil)
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, "forged", ans.Code)
	assert.Nil(t, f.answerOf(graces.State))
	status, ans = f.post("panic", answer(graces.State, "allow_once"), nil)
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, "forged", ans.Code, "a MayAnswer that panics means no")
	_, page = f.get("panic", "")
	assert.NotContains(t, page, `<li id="a-`)

	status, ans = f.post("ada", answer(f.waiting("ada/mcp-1").State, "allow_once"), nil)
	assert.Equal(t, http.StatusOK, status, ans.Message)
	assert.Equal(t, tool.StatusOK, result(t, done).Status)
}

// An open page asks MayAnswer once per session, however many rounds the
// page is updated for.
func TestMayAnswerIsAskedOncePerSessionByAnOpenPage(t *testing.T) {
	var asked atomic.Int32
	f := newFixture(t, &approvalweb.Options{MayAnswer: mayAnswerByUser(&asked), Poll: 5_000_000})
	for _, session := range []string{"ada/1", "ada/2", "grace/1", "grace/2"} {
		f.deferred(session, "fetch_url", `{"url":"https://example.com/`+session+`"}`)
	}
	s := f.stream("ada", "")
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	addedOf(t, s.next())
	addedOf(t, s.next())
	before := asked.Load()
	f.deferred("ada/3", "fetch_url", `{"url":"https://example.com/3"}`) // a change: another round
	assert.Contains(t, addedOf(t, s.next()).HTML, "ada/3")
	assert.LessOrEqual(t, asked.Load()-before, int32(1), "the new session only")
}
