package approvalweb_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// One rule decides both what the page offers and what it accepts: for
// each call, each answer the page of that call shows is accepted, and
// every other is refused as not offered, whatever makes the difference
// (the size of the arguments, the tool, the requirement, the session).
// Before, a hand-made edit was accepted for a call whose arguments the
// edit box could not hold, where the page showed no edit box, and "allow
// once" for a call too large to be shown whole.
func TestOfferedIsAccepted(t *testing.T) {
	big := func(n int) string { return `{"path":"big.md","text":"` + strings.Repeat("b", n) + `"}` }
	cases := []struct {
		name, session, tool, args string
		want                      []string
	}{
		{"an editable call", "conv-ada", "write_note", `{"path":"todo.md","text":"x"}`, []string{"allow_always", "allow_once", "deny", "edit"}},
		{"a call the host lets no one edit", "conv-ada", "fetch_url", `{"url":"https://example.com"}`, []string{"allow_always", "allow_once", "deny"}},
		{"a call asked about every time", "conv-ada", "remove_note", `{"path":"old.md","text":""}`, []string{"allow_once", "deny", "edit"}},
		{"a call of no session", "", "write_note", `{"path":"todo.md","text":"x"}`, []string{"allow_once", "deny", "edit"}},
		{"arguments the edit box cannot hold", "conv-ada", "write_note", big(70 << 10), []string{"allow_always", "allow_once", "deny"}},
		{"arguments too large to show whole", "conv-ada", "write_note", big(1100 << 10), []string{"deny"}},
	}
	sessions := func(*http.Request) ([]string, error) { return []string{"conv-ada", ""}, nil }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range []string{"allow_once", "allow_always", "deny", "edit"} {
				f := newFixtureOf(t, &approvalweb.Options{Sessions: sessions, Editable: func(r *tool.ApprovalRequest) bool { return r.Tool != "fetch_url" }},
					&tool.RegistryOptions{Limits: tool.Limits{MaxBytes: 2 << 20, MaxStringBytes: 2 << 20}})
				p := f.deferred(c.session, c.tool, c.args)
				_, list := f.get("ada", "")
				_, page := f.get("ada", "?id="+onlyID(t, list))
				require.Equal(t, c.want, offered(page), "the answers the call's page offers")
				_, js := f.get("ada", "pending.json")
				var pj []approvalweb.PendingJSON
				require.NoError(t, json.Unmarshal([]byte(js), &pj))
				require.Len(t, pj, 1)
				got := slices.Clone(pj[0].Offers)
				slices.Sort(got)
				assert.Equal(t, c.want, got, "pending.json's offers")

				form := answer(p.State, d)
				form.Set("reason", "no")
				form.Set("args", `{"path":"todo.md","text":"edited"}`)
				status, a := f.post("ada", form, nil)
				if slices.Contains(c.want, d) {
					assert.Equal(t, http.StatusOK, status, "%s is offered, and accepted: %s", d, a.Message)
					assert.NotNil(t, f.answerOf(p.State))
				} else {
					assert.Equal(t, "not_offered", a.Code, "%s is not offered, and refused: %s", d, a.Message)
					assert.Nil(t, f.answerOf(p.State), "a refused answer changes nothing")
				}
			}
		})
	}
}
