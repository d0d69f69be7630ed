package toolredis_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
	"github.com/toolbelt-go/tool/keyring"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestPendingApprovalStoreConforms(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	tooltest.TestPendingApprovalStore(t, func(*testing.T) tool.PendingApprovalStore {
		return toolredis.NewPendingApprovalStore(rdb, &toolredis.Options{Namespace: namespace()})
	})
}

func pendingFor(session, state string) *tool.PendingApproval {
	return &tool.PendingApproval{State: state, Expires: time.Now().Add(time.Hour), Session: session, Request: tool.ApprovalRequest{
		Tool: "write_file", Session: session, Args: json.RawMessage(`{"path":"a"}`), ArgsText: `{"path":"a"}`,
	}}
}

func TestPendingKeysAreNamespacedBoundedAndExpire(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()
	ns := namespace()
	s := toolredis.NewPendingApprovalStore(rdb, &toolredis.Options{Namespace: ns})
	keep := time.Now().Add(90 * time.Minute)
	p := pendingFor(strings.Repeat("s", 5000), strings.Repeat("t", 3000))
	if err := s.Offer(ctx, p, keep); err != nil {
		t.Fatal(err)
	}
	if first, err := s.Answer(ctx, p.State, tool.Decision{Kind: tool.DecisionAllowOnce}); err != nil || !first {
		t.Fatalf("Answer = %v, %v", first, err)
	}
	if err := s.Offer(ctx, pendingFor(p.Request.Session, "other"), keep.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	got := keys(t, rdb, ns)
	if len(got) != 5 { // two approvals, one answer, one session, the sessions that have approvals
		t.Fatalf("keys under %s: %q, want 5", ns, got)
	}
	for _, k := range got {
		kind, _, _ := strings.Cut(strings.TrimPrefix(k, ns+":"), ":")
		if want := len(ns) + 1 + len(kind) + 1 + 64; len(k) != want {
			t.Errorf("key %q is %d bytes, want %d (namespace, kind, a hash): keys must not grow with what is in them", k, len(k), want)
		}
		ttl, err := rdb.PTTL(ctx, k).Result()
		if err != nil || ttl <= 88*time.Minute || ttl > 90*time.Minute {
			t.Errorf("PTTL %s = %v, %v; want the keep time given (the session's: its longest)", k, ttl, err)
		}
	}
	o := toolredis.NewPendingApprovalStore(rdb, &toolredis.Options{Namespace: namespace()})
	if _, _, err := o.Get(ctx, p.State); !errors.Is(err, tool.ErrPendingGone) {
		t.Errorf("an approval kept in one namespace is read in another: %v", err)
	}
}

func TestPendingRefusesApprovalsOverTheBound(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ns := namespace()
	s := toolredis.NewPendingApprovalStore(rdb, &toolredis.Options{Namespace: ns})
	p := pendingFor("s", "big")
	p.Request.Preview.Summary = strings.Repeat("x", toolredis.MaxPendingBytes)
	err := s.Offer(context.Background(), p, time.Now().Add(time.Hour))
	if !errors.Is(err, tool.ErrPendingFull) {
		t.Fatalf("Offer over MaxPendingBytes: %v, want ErrPendingFull", err)
	}
	if ks := keys(t, rdb, ns); len(ks) != 0 {
		t.Fatalf("a refused approval was written: %q", ks)
	}
}

func TestPendingOnFrozenRedisFailsClosedInTime(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()
	ns := namespace()
	p := pendingFor("s", "state")
	if err := toolredis.NewPendingApprovalStore(rdb, &toolredis.Options{Namespace: ns, Timeout: 30 * time.Second}).Offer(ctx, p, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	s := toolredis.NewPendingApprovalStore(rdb, &toolredis.Options{Namespace: ns, Timeout: 200 * time.Millisecond})
	if err := srv.Freeze(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = srv.Thaw() }()
	for _, op := range []struct {
		name string
		run  func() (bool, error)
	}{
		{"Offer", func() (bool, error) { return false, s.Offer(ctx, pendingFor("s", "new"), time.Now().Add(time.Hour)) }},
		{"List", func() (bool, error) { l, err := s.List(ctx, "s"); return len(l) > 0, err }},
		{"Get", func() (bool, error) { p, d, err := s.Get(ctx, "state"); return p != nil || d != nil, err }},
		{"Answer", func() (bool, error) { return s.Answer(ctx, "state", tool.Decision{Kind: tool.DecisionAllowOnce}) }},
	} {
		start := time.Now()
		ok, err := op.run()
		if err == nil || ok || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, tool.ErrPendingGone) {
			t.Errorf("%s on a frozen Redis = %v, %v; want nothing and a deadline error", op.name, ok, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s on a frozen Redis took %v with a 200ms timeout", op.name, took)
		}
	}
}

// TestPendingAcrossReplicas: an agent on replica a waits for an approval;
// a person answers it on replica b's page; a's call runs, once. The two
// share only Redis and the keyring's secret.
func TestPendingAcrossReplicas(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	opts := &toolredis.Options{Namespace: namespace()}
	type replica struct {
		page *approvalweb.Handler
		reg  *tool.Registry[struct{}]
		url  string
	}
	ran := make(chan string, 2)
	newReplica := func() replica {
		keys, err := keyring.FromSecret([]byte("the deployment's secret, 32 bytes or more"))
		if err != nil {
			t.Fatal(err)
		}
		page, err := approvalweb.New(&approvalweb.Options{
			Sessions: func(*http.Request) ([]string, error) { return []string{"conv-1"}, nil },
			Store:    toolredis.NewPendingApprovalStore(rdb, opts),
			Poll:     20 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = page.Close() })
		reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys})
		reg.MustAdd(tool.New(tool.Definition{Name: "delete_file", Description: "Deletes a file.", Safety: tool.SafetyDestructive},
			func(_ context.Context, in struct {
				Path string `json:"path"`
			}) (string, error) {
				ran <- in.Path
				return "deleted " + in.Path, nil
			}))
		reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: page.Approver(), Store: toolredis.NewApprovalStore(rdb, opts)}))
		mux := http.NewServeMux()
		mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
		hs := httptest.NewServer(mux)
		t.Cleanup(hs.Close)
		return replica{page, reg, hs.URL + "/approvals/"}
	}
	a, b := newReplica(), newReplica()

	ctx := context.Background()
	// The host ends the turn and resumes the call with the answer, on b.
	req := tool.Request{ID: "call-1", Name: "delete_file", Args: []byte(`{"path":"old.go"}`), Session: "conv-1", ReturnPending: true}
	res := a.reg.Call(ctx, struct{}{}, req)
	if res.Status != tool.StatusAwaitingApproval {
		t.Fatalf("the call was not deferred: %s", res.Text())
	}
	answers := make(chan *tool.ApprovalAnswer, 1)
	go func() {
		answer, err := a.page.Await(ctx, res.Pending)
		if err != nil {
			t.Error(err)
		}
		answers <- answer
	}()

	// The person opens b's page: the approval is there.
	var page string
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(page, "old.go"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("b's page never showed the approval made on a:\n%s", page)
		}
		resp, err := http.Get(b.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page = string(body)
	}
	post := func() int {
		form := url.Values{"state": {res.Pending.State}, "decision": {"allow_once"}}
		r, _ := http.NewRequest(http.MethodPost, b.url+"answer", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := post(); status != http.StatusOK {
		t.Fatalf("answer on b: %d", status)
	}
	if status := post(); status != http.StatusConflict {
		t.Fatalf("the same answer again on b: %d, want 409", status)
	}

	select {
	case req.Approval = <-answers:
	case <-time.After(10 * time.Second):
		t.Fatal("a did not read the answer given on b")
	}
	if res := a.reg.Call(ctx, struct{}{}, req); res.Status != tool.StatusOK {
		t.Fatalf("the resumed call on a: %s %s", res.Status, res.Text())
	}
	if res := b.reg.Call(ctx, struct{}{}, req); res.Status != tool.StatusDenied {
		t.Fatalf("the same answer resumed again on b: %s, want denied", res.Status)
	}
	if got := <-ran; got != "old.go" || len(ran) != 0 {
		t.Fatalf("the tool ran for %q, %d more times", got, len(ran))
	}
}
