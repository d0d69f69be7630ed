// Approvalweb runs the coding agent of examples/codingagent (the reference
// coding tools on a copy of a small Go project, driven by a scripted model,
// offline) with its approvals answered in a browser: each edit and command
// waits on a page, with its diff or its command line, until someone allows
// or denies it there.
//
//	go run ./examples/approvalweb          # prints the page's URL: open it and answer
//	go run ./examples/approvalweb -answer  # a program answers through the page's HTTP API, as CI runs it
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/workspace"
)

// session is the one conversation of the example.
const session = "demo"

// step is one turn of the scripted model: what it says, then its call.
type step struct {
	say, tool, args string
}

var script = []step{
	{say: "The counter itself.", tool: "read_file", args: `{"path":"wordcount.go"}`},
	{say: "Split on one space counts empty words. Fields splits on runs of space.", tool: "edit_file",
		args: `{"path":"wordcount.go","old_string":"len(strings.Split(s, \" \"))","new_string":"len(strings.Fields(s))"}`},
	{say: "Do the tests pass now?", tool: "run_shell", args: `{"command":"go test ./..."}`},
	{say: "The README should say how words are split.", tool: "read_file", args: `{"path":"README.md"}`},
	{say: "Adding a sentence.", tool: "edit_file",
		args: `{"path":"README.md","old_string":"Counts the words of a text.","new_string":"Counts the words of a text: runs of letters between spaces."}`},
}

// project is the small repository the model works on: a word counter
// with a bug its test finds.
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
	"wordcount_test.go": `package wordcount

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{{"hello world", 2}, {"", 0}, {"  spaced   out  ", 2}} {
		if got := Count(c.in); got != c.want {
			t.Errorf("Count(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
`,
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "where the page listens (port 0: any free port)")
	answer := flag.Bool("answer", false, "answer every approval through the page's HTTP API, as a person would in the browser, then exit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir, err := os.MkdirTemp("", "approvalweb")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = run(ctx, dir, *addr, *answer, os.Stdout)
	os.RemoveAll(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "approvalweb:", err)
		os.Exit(1)
	}
}

// run copies the project into dir, serves the page on addr and plays the
// script, each approval waiting on the page. With answer set, a program
// answers on the page's HTTP API.
func run(ctx context.Context, dir, addr string, answer bool, out io.Writer) error {
	for name, content := range project {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		return err
	}
	defer ws.Close()

	page, err := approvalweb.New(&approvalweb.Options{
		// Who may see and answer which sessions is the host's to say: read
		// your login cookie here. Whoever reaches this local page may
		// answer the one session.
		Sessions: func(*http.Request) ([]string, error) { return []string{session}, nil },
		// The person may change an edit before it is made.
		Editable: func(req *tool.ApprovalRequest) bool { return req.Tool == "edit_file" },
	})
	if err != nil {
		return err
	}
	defer page.Close()
	mux := http.NewServeMux()
	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(func() { _ = page.Close() })
	go func() { _ = srv.Serve(ln) }()
	defer srv.Shutdown(context.Background())
	pageURL := "http://" + ln.Addr().String() + "/approvals/"
	fmt.Fprintln(out, "Approvals are answered at", pageURL)

	sandbox, env, err := goForCommands()
	if err != nil {
		return err
	}
	out = &lockedWriter{w: out} // the person and the observer write too
	// The observer says when a call waits on the page.
	waiting := tool.ObserverFunc(func(e tool.Event) {
		if e.Kind == tool.EventApprovalRequested {
			fmt.Fprintf(out, "  … waiting for an answer on the page\n")
		}
	})
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0), Observer: waiting})
	if err := reg.Add(codetools.New(ws, &codetools.Options{Sandbox: sandbox, Env: env}).Tools()...); err != nil {
		return err
	}
	// Each call the policy asks about waits on the page until someone
	// answers there (or the offer expires), then runs or not.
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: page.Approver()}))

	if answer {
		pctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			person(pctx, pageURL, out)
		}()
		defer func() { cancel(); <-done }()
	}
	for i, s := range script {
		fmt.Fprintf(out, "\nmodel: %s\n  → %s %s\n", s.say, s.tool, s.args)
		req := tool.Request{ID: fmt.Sprintf("call_%d", i+1), Name: s.tool, Args: json.RawMessage(s.args), Session: session}
		res := reg.Call(ctx, struct{}{}, req)
		if ctx.Err() != nil {
			return context.Cause(ctx) // stopped while it waited
		}
		fmt.Fprintf(out, "  ← %s\n", res.Status)
		for _, l := range shorten(res.Text(), 8) {
			fmt.Fprintf(out, "    %s\n", l)
		}
	}
	return nil
}

// person answers each approval on the page's HTTP API, as someone at the
// browser would: it reads what waits (pending.json, what the page shows),
// allows the fix and the test run, and denies the README edit with a
// reason the model reads.
func person(ctx context.Context, pageURL string, out io.Writer) {
	seen := map[string]bool{}
	for ctx.Err() == nil {
		var waiting []struct {
			State, Title, Summary string
			Tool                  string
			Edits                 []struct{ Path, Diff string }
		}
		if err := getJSON(ctx, pageURL+"pending.json", &waiting); err != nil {
			if ctx.Err() == nil {
				fmt.Fprintln(out, "person: cannot read the page:", err)
			}
			return
		}
		for _, w := range waiting {
			if seen[w.State] {
				continue
			}
			seen[w.State] = true
			fmt.Fprintf(out, "  person, on the page: %s\n", w.Title)
			if w.Tool == "run_shell" {
				fmt.Fprintf(out, "    %s\n", w.Summary)
			}
			for _, e := range w.Edits {
				for l := range strings.SplitSeq(strings.TrimRight(e.Diff, "\n"), "\n") {
					fmt.Fprintf(out, "    %s\n", l)
				}
			}
			form := url.Values{"state": {w.State}, "decision": {"allow_once"}}
			if strings.Contains(w.Title, "README.md") {
				form.Set("decision", "deny")
				form.Set("reason", "leave the README to the docs team")
			}
			fmt.Fprintf(out, "  person answers: %s\n", strings.TrimSpace(form.Get("decision")+" "+form.Get("reason")))
			if err := postForm(ctx, pageURL+"answer", form); err != nil && ctx.Err() == nil {
				fmt.Fprintln(out, "person: the answer was refused:", err)
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

func postForm(ctx context.Context, u string, form url.Values) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var a struct {
		OK      bool
		Message string
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return err
	}
	if !a.OK {
		return errors.New(a.Message)
	}
	return nil
}

// goForCommands gives the commands the Go toolchain, as examples/codingagent
// does: GOROOT and the module cache to read, a build cache of their own to
// write, and no toolchain downloads. Where run_shell has a sandbox, that is
// all of the person's machine they see.
func goForCommands() (*codetools.SandboxOptions, []string, error) {
	out, err := exec.Command("go", "env", "-json", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("the go command is needed to run the tests: %w", err)
	}
	var goenv struct{ GOROOT, GOMODCACHE string }
	if err := json.Unmarshal(out, &goenv); err != nil {
		return nil, nil, err
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	cache := filepath.Join(dir, "toolbelt-approvalweb", "go-build")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return nil, nil, err
	}
	env := append(process.MinimalEnv(), "TERM=dumb", "NO_COLOR=1", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly",
		"GOROOT="+goenv.GOROOT, "GOMODCACHE="+goenv.GOMODCACHE, "GOCACHE="+cache)
	return &codetools.SandboxOptions{Read: []string{goenv.GOROOT, goenv.GOMODCACHE}, Write: []string{cache}}, env, nil
}

// shorten keeps a transcript readable: at most n lines of at most 110
// characters each.
func shorten(text string, n int) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines)", len(lines)-n))
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > 110 {
			lines[i] = string(r[:110]) + "…"
		}
	}
	return lines
}

// lockedWriter lets several goroutines write whole lines to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
