package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/tooltest"
	"github.com/toolbelt-go/tool/workspace"
)

// RequireEnv turns the skip for want of Chromium into a failure, as CI
// (which sets CI=true as well) needs.
const RequireEnv = "TOOLBELT_REQUIRE_CHROMIUM"

// chromiumPart is the browser the tests drive.
var chromiumPart = tooltest.Part{Name: "chromium", Install: "apt-get install chromium (Debian)", Require: []string{RequireEnv, "CI"}}

// TestMain fails the package at the end, naming the tests, if they were
// skipped for want of chromium (tooltest.Main).
func TestMain(m *testing.M) { os.Exit(tooltest.Main(m).Run()) }

// chromium returns the browser to run: Debian's chromium. Without it the
// test is skipped and the package fails at the end, saying how to install
// it; under CI (CI set) or RequireEnv the test fails at once, so that CI
// never passes by skipping.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	tooltest.Need(t, chromiumPart, errors.New("no chromium on PATH"))
	return ""
}

// browser starts a headless Chromium for the test, with a profile of its
// own and nothing that reaches the network by itself, and returns the
// context of its first tab. The browser stops when the test ends.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1000, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser, without a timeout that would stop it
		t.Fatalf("chromium did not start: %v", err)
	}
	return ctx
}

// newTab opens another tab of the browser of ctx.
func newTab(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("no new tab: %v", err)
	}
	return tab
}

// stepTimeout bounds each group of browser steps: generous, for a loaded
// machine; a step that waits for something that never comes fails there.
const stepTimeout = 30 * time.Second

// do runs steps in the tab of ctx, failing the test if one fails.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("in the browser: %v", err)
	}
}

// get runs one step that reads something in the tab of ctx.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("in the browser: %v", err)
	}
	return v
}

// agent is the coding agent of examples/codingagent, on a copy of its
// word counter, with its approvals answered on the page, served on a
// loopback port.
type agent struct {
	t     *testing.T
	page  *approvalweb.Handler
	store tool.PendingApprovalStore
	reg   *tool.Registry[struct{}]
	dir   string
	url   string
	calls int
}

var project = map[string]string{
	"go.mod":    "module example.com/wordcount\n\ngo 1.25\n",
	"README.md": "# wordcount\n\nCounts the words of a text.\n",
	"wordcount.go": `// Package wordcount counts words.
package wordcount

import "strings"

// Count returns how many words s holds.
func Count(s string) int {
	return len(strings.Split(s, " "))
}
`,
}

// The edit the model makes, and what the person reads of it.
const (
	fixArgs  = `{"path":"wordcount.go","old_string":"len(strings.Split(s, \" \"))","new_string":"len(strings.Fields(s))"}`
	fixTitle = "Edit wordcount.go"
	fixDel   = "- \treturn len(strings.Split(s, \" \"))"
	fixAdd   = "+ \treturn len(strings.Fields(s))"
	fixed    = "len(strings.Fields(s))"
)

func newAgent(t *testing.T) *agent {
	t.Helper()
	return newAgentWith(t, nil)
}

// newAgentWith is newAgent with a registry made with regOpts.
func newAgentWith(t *testing.T, regOpts *tool.RegistryOptions) *agent {
	t.Helper()
	a := &agent{t: t, dir: t.TempDir(), store: tool.NewMemoryPendingApprovalStore(0)}
	for name, content := range project {
		if err := os.WriteFile(filepath.Join(a.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(a.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	page, err := approvalweb.New(&approvalweb.Options{
		Sessions: func(*http.Request) ([]string, error) { return []string{"demo"}, nil },
		Store:    a.store,
		Editable: func(r *tool.ApprovalRequest) bool { return r.Tool == "edit_file" },
	})
	if err != nil {
		t.Fatal(err)
	}
	a.page = page
	a.reg = tool.NewRegistry[struct{}](regOpts)
	a.reg.MustAdd(codetools.New(ws, nil).Tools()...)
	a.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: page.Approver()}))
	mux := http.NewServeMux()
	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = page.Close() // ends the live-update streams, so that Close need not wait for them
		srv.Close()
	})
	a.url = srv.URL + "/approvals/"

	// The model reads the file before it edits it, as edit_file requires.
	if res := a.reg.Call(context.Background(), struct{}{}, tool.Request{Name: "read_file", Args: []byte(`{"path":"wordcount.go"}`), Session: "demo"}); res.IsError {
		t.Fatalf("read_file: %s", res.Text())
	}
	return a
}

// call makes one call as the agent loop does: a call the policy asks
// about waits for its answer on the page. The result comes on the channel.
func (a *agent) call(name, args string) <-chan *tool.Result {
	out := make(chan *tool.Result, 1)
	ctx := a.t.Context() // a call still waiting when the test ends stops waiting
	a.calls++
	id := fmt.Sprint("call-", a.calls)
	go func() {
		req := tool.Request{ID: id, Name: name, Args: json.RawMessage(args), Session: "demo"}
		out <- a.reg.Call(ctx, struct{}{}, req)
	}()
	return out
}

// waiting waits until an approval is offered, and returns it.
func (a *agent) waiting() *tool.PendingApproval {
	a.t.Helper()
	for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ps, err := a.store.List(context.Background(), "demo"); err == nil && len(ps) > 0 {
			return ps[0]
		}
	}
	a.t.Fatal("no approval was offered")
	return nil
}

// answered reports whether the approval of state has an answer.
func (a *agent) answered(state string) bool {
	_, d, err := a.store.Get(context.Background(), state)
	return err == nil && d != nil
}

// source returns the word counter's source as it is now.
func (a *agent) source() string {
	b, err := os.ReadFile(filepath.Join(a.dir, "wordcount.go"))
	if err != nil {
		a.t.Fatal(err)
	}
	return string(b)
}

// result waits for a call's result.
func result(t *testing.T, ch <-chan *tool.Result) *tool.Result {
	t.Helper()
	select {
	case res := <-ch:
		return res
	case <-time.After(stepTimeout):
		t.Fatal("the agent's call did not finish")
		return nil
	}
}

// contains fails the test unless s holds each of want.
func contains(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, s)
		}
	}
}

// waitingAll waits until n approvals are offered, and returns them.
func (a *agent) waitingAll(n int) []*tool.PendingApproval {
	a.t.Helper()
	for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ps, err := a.store.List(context.Background(), "demo"); err == nil && len(ps) >= n {
			return ps
		}
	}
	a.t.Fatalf("%d approvals were not offered", n)
	return nil
}
