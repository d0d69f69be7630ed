package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// manyWaiting serves a page with n approvals waiting, of about 4 KiB each
// (a diff of a file and its arguments, as in the report of a page of
// 1,000), in 10 sessions, the first expiring first, titled Call 0000,
// Call 0001, …; it returns the page's URL.
func manyWaiting(t *testing.T, n int) string {
	t.Helper()
	sessions := make([]string, 10)
	for i := range sessions {
		sessions[i] = fmt.Sprint("conv-", i)
	}
	page, err := approvalweb.New(&approvalweb.Options{Sessions: func(*http.Request) ([]string, error) { return sessions, nil }})
	if err != nil {
		t.Fatal(err)
	}
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
		if err := page.Offer(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = page.Close()
		srv.Close()
	})
	return srv.URL + "/approvals/"
}

// With 1,000 approvals waiting, the first view shows the 20 that expire
// first and the way to the rest, in bounded bytes; it logs the bytes and
// the time the browser took. Before, it held all 1,000 (6.7 MB here) and
// took seconds to show.
func TestFirstViewOfManyApprovals(t *testing.T) {
	br, url := browser(t), manyWaiting(t, 1000)
	type view struct {
		Items   int     `json:"items"`
		Bytes   int     `json:"bytes"`
		Loaded  float64 `json:"loaded"`
		Painted float64 `json:"painted"`
	}
	begin := time.Now()
	do(t, br, chromedp.EmulateViewport(1000, 900), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("li.approval")))
	v := get(t, br, chromedp.Evaluate[view](`(() => {
		const nav = performance.getEntriesByType('navigation')[0];
		const paint = performance.getEntriesByName('first-contentful-paint')[0];
		return {items: document.querySelectorAll('li.approval').length, bytes: document.documentElement.outerHTML.length,
			loaded: nav.loadEventEnd || nav.domContentLoadedEventEnd, painted: paint ? paint.startTime : 0};
	})()`))
	t.Logf("first view of 1000 waiting: %d approvals shown, %d bytes of HTML, loaded in %.0f ms, first paint at %.0f ms (%v from the test)",
		v.Items, v.Bytes, v.Loaded, v.Painted, time.Since(begin).Round(time.Millisecond))
	if v.Items != 20 {
		t.Errorf("the first view shows %d approvals, want the 20 that expire first", v.Items)
	}
	if v.Bytes > 20*8<<10 {
		t.Errorf("the first view is %d bytes", v.Bytes)
	}
	contains(t, "the first approval", get(t, br, chromedp.Text(chromedp.CSS("li.approval h2"))), "Call 0000")
	do(t, br, chromedp.Click(chromedp.ID("next")), chromedp.WaitVisible(chromedp.CSS("li.approval")))
	contains(t, "the second page", get(t, br, chromedp.Text(chromedp.CSS("li.approval h2"))), "Call 0020")
}
