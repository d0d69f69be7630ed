package approvalweb_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// FuzzAnswer sends the answer endpoint any body: it never panics, answers
// with one of its statuses, and records nothing unless it said so. STATE
// in a body stands for the state of the approval that waits.
func FuzzAnswer(f *testing.F) {
	f.Add("application/x-www-form-urlencoded", "state=STATE&decision=allow_once")
	f.Add("application/x-www-form-urlencoded", "state=STATE&decision=deny&reason=no+thanks")
	f.Add("application/x-www-form-urlencoded", "state=STATE&decision=edit&args=%7B%22path%22%3A%22a%22%2C%22text%22%3A%22b%22%7D")
	f.Add("application/x-www-form-urlencoded", "state=STATE&decision=edit&args=%7B%22path%22%3A")
	f.Add("application/x-www-form-urlencoded", "state=STATE&state=STATE&decision=allow_once")
	f.Add("application/x-www-form-urlencoded", "state=STATE&decision=allow_always&reason=%ff%fe")
	f.Add("application/x-www-form-urlencoded", "state=%zz&decision=allow_once")
	f.Add("application/x-www-form-urlencoded; charset=utf-8", "state=STATEx&decision=allow_once")
	f.Add("multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"state\"\r\n\r\nSTATE\r\n--b--")
	f.Add("", "")
	statuses := map[int]bool{200: true, 400: true, 403: true, 409: true, 410: true, 413: true, 415: true}
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd((&notes{m: map[string]string{}}).tools()...)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
		return tool.Decision{Kind: tool.DecisionDefer}, nil
	})}))
	f.Fuzz(func(t *testing.T, contentType, body string) {
		ctx := context.Background()
		store := tool.NewMemoryPendingApprovalStore(0)
		page, err := approvalweb.New(&approvalweb.Options{Sessions: sessionsOf, Store: store,
			Editable: func(*tool.ApprovalRequest) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		defer page.Close()
		res := reg.Call(ctx, struct{}{}, tool.Request{Name: "write_note", Args: []byte(`{"path":"a","text":"b"}`), Session: "conv-ada", ReturnPending: true})
		p := res.Pending
		if p == nil || page.Offer(ctx, p) != nil {
			t.Fatalf("no approval to answer: %s", res.Text())
		}
		req := httptest.NewRequest(http.MethodPost, "/answer", strings.NewReader(strings.ReplaceAll(body, "STATE", p.State)))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", "application/json")
		req.Header.Set(personHeader, "ada")
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, req)
		if !statuses[rec.Code] {
			t.Fatalf("status %d for %q %q: %s", rec.Code, contentType, body, rec.Body)
		}
		_, d, err := store.Get(ctx, p.State)
		if err != nil {
			t.Fatal(err)
		}
		if (rec.Code == 200) != (d != nil) {
			t.Fatalf("status %d, and the store's answer is %+v", rec.Code, d)
		}
		if d != nil && d.Kind == tool.DecisionEdit && len(d.Args) > 64<<10 {
			t.Fatalf("edited arguments of %d bytes were recorded", len(d.Args))
		}
	})
}
