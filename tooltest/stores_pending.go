package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
)

// TestPendingApprovalStore checks a [tool.PendingApprovalStore] against the
// contract a page of approvals and the calls waiting on it rely on, one
// subtest per rule, each named after the rule it checks: an offered
// approval listed under its session and read back exactly, sessions and
// states kept apart, sessions told apart by their raw names
// ([tool.PendingApproval].Session) however alike they read once escaped,
// unknown states reported as [tool.ErrPendingGone], one answer recorded
// and read back exactly, every session with unanswered approvals listed
// by a whole read of Sessions, answered approvals no longer
// listed, offering again changing nothing, approvals gone after their keep
// time, exactly one of many concurrent answers recorded, at most
// [tool.MaxPendingPerSession] unanswered approvals per session, concurrent
// use (run with -race), and prompt return when the context is done,
// failing closed.
//
// newStore is called once per rule, with that rule's t, and returns the
// store to check; register its cleanup with t.Cleanup. The suite uses
// states and sessions of its own, so stores may share a backend. The
// expiry rule waits for real time to pass (under a second).
func TestPendingApprovalStore(t *testing.T, newStore func(t *testing.T) tool.PendingApprovalStore) {
	t.Helper()
	ctx := context.Background()
	later := func() time.Time { return time.Now().Add(time.Hour) }

	t.Run("an offered approval is listed under its session and read back exactly", func(t *testing.T) {
		s, p := newStore(t), pending(storeID())
		offer(t, s, p, later())
		got := list(t, s, p.Session)
		if len(got) != 1 {
			t.Fatalf("List of its session has %d approvals, want 1", len(got))
		}
		samePending(t, "List", got[0], p)
		back, answer := get(t, s, p.State)
		samePending(t, "Get", back, p)
		if answer != nil {
			t.Errorf("Get of an unanswered approval returned the answer %+v, want nil", *answer)
		}
	})
	t.Run("sessions and states are kept apart", func(t *testing.T) {
		s, base := newStore(t), storeID()
		sessions := []string{base, base + "x", strings.ToUpper(base), base + "\x00", " " + base, base + ":pending"}
		states := make([]string, len(sessions))
		for i, session := range sessions {
			p := pending(session)
			states[i] = p.State
			offer(t, s, p, later())
		}
		for i, session := range sessions {
			got := list(t, s, session)
			if len(got) != 1 || got[0].State != states[i] {
				t.Errorf("List(session #%d) = %d approvals; want exactly its own: sessions that differ in a byte must not share a list", i, len(got))
			}
		}
		if got := list(t, s, storeID()); len(got) != 0 {
			t.Errorf("List of a session with nothing offered = %d approvals, want none", len(got))
		}
		p := pending(storeID())
		offer(t, s, p, later())
		for _, other := range []string{p.State + "x", strings.ToUpper(p.State), p.State[:len(p.State)-1]} {
			if _, _, err := s.Get(ctx, other); !errors.Is(err, tool.ErrPendingGone) {
				t.Errorf("Get of a state one byte off an offered one: %v; want ErrPendingGone", err)
			}
		}
	})
	t.Run("sessions are told apart by their raw names, never as shown", func(t *testing.T) {
		// PendingApproval.Session is the session as given;
		// Request.Session is it made visible, and two sessions can look
		// the same once escaped: team followed by a real U+202E, and the
		// text team\u202e.
		s, base := newStore(t), storeID()
		withChar, literal := pending(base+"\u202e"), pending(base+`\u202e`)
		withChar.Request.Session, literal.Request.Session = base+`\u202e`, base+`\u202e`
		offer(t, s, withChar, later())
		offer(t, s, literal, later())
		for _, c := range []struct {
			name    string
			session string
			want    string
		}{{"the session with a real U+202E", withChar.Session, withChar.State}, {"the session of the six characters \\u202e", literal.Session, literal.State}} {
			got := list(t, s, c.session)
			if len(got) != 1 || got[0].State != c.want {
				t.Errorf("List(%s) = %d approvals; want exactly its own: a store must key sessions by PendingApproval.Session, not by Request.Session, which is escaped for showing", c.name, len(got))
			}
		}
		if got := list(t, s, withChar.Request.Session); len(got) != 1 || got[0].State != literal.State {
			t.Errorf("List of the escaped name gave %d approvals; want only the session whose raw name it is", len(got))
		}
	})
	t.Run("Sessions lists every session that has unanswered approvals, page by page", func(t *testing.T) {
		s, base := newStore(t), storeID()
		want := map[string]bool{}
		for i := range 7 {
			session := fmt.Sprint(base, "-", i)
			if i == 6 {
				session = "" // no session is a session too
			}
			p := pending(session)
			offer(t, s, p, later())
			if i == 5 { // its only approval answered: it may be listed, or not
				answer(t, s, p.State, tool.Decision{Kind: tool.DecisionAllowOnce})
				continue
			}
			want[session] = true
		}
		q := pending(base + "-0") // two approvals in one session
		q.State += "-second"
		offer(t, s, q, later())
		listed := map[string]bool{}
		cursor := ""
		for page := 0; ; page++ {
			if page == 10_000 {
				t.Fatal("Sessions never ended: its cursors go round (10,000 pages of 3)")
			}
			got, next, err := s.Sessions(ctx, cursor, 3)
			if err != nil {
				t.Fatalf("Sessions: %v", err)
			}
			for _, session := range got {
				listed[session] = true
			}
			if next == "" {
				break
			}
			if next == cursor {
				t.Fatalf("Sessions returned the cursor it was given (%q): it would read the same page for ever", next)
			}
			cursor = next
		}
		for session := range want {
			if !listed[session] {
				t.Errorf("a session with an unanswered approval (%q) was not listed by a whole read of Sessions", session)
			}
		}
	})
	t.Run("an unknown state is ErrPendingGone", func(t *testing.T) {
		s := newStore(t)
		if p, d, err := s.Get(ctx, storeID()); !errors.Is(err, tool.ErrPendingGone) || p != nil || d != nil {
			t.Errorf("Get of a state never offered = %v, %v, %v; want nil, nil and ErrPendingGone", p, d, err)
		}
		if first, err := s.Answer(ctx, storeID(), tool.Decision{Kind: tool.DecisionAllowOnce}); !errors.Is(err, tool.ErrPendingGone) || first {
			t.Errorf("Answer to a state never offered = %v, %v; want false and ErrPendingGone", first, err)
		}
	})
	t.Run("an answer is recorded once and read back exactly", func(t *testing.T) {
		s, p := newStore(t), pending(storeID())
		offer(t, s, p, later())
		want := tool.Decision{Kind: tool.DecisionEdit, Reason: "only the README, «please» \u202e\x00", Args: json.RawMessage(`{"path":"README.md","n":1.5e3}`)}
		if !answer(t, s, p.State, want) {
			t.Fatal("the first Answer reported false")
		}
		for _, again := range []tool.Decision{{Kind: tool.DecisionAllowOnce}, want} {
			if answer(t, s, p.State, again) {
				t.Fatal("a second Answer reported true: two answers to one approval")
			}
		}
		_, got := get(t, s, p.State)
		if got == nil {
			t.Fatal("Get after Answer returned no answer")
		}
		if got.Kind != want.Kind || got.Reason != want.Reason || string(got.Args) != string(want.Args) {
			t.Errorf("Get's answer = %+v (args %s), want the first answer %+v (args %s), exactly", *got, got.Args, want, want.Args)
		}
	})
	t.Run("an answered approval is no longer listed", func(t *testing.T) {
		s, p, q := newStore(t), pending(storeID()), pending(storeID())
		q.Session, q.Request.Session = p.Session, p.Request.Session
		offer(t, s, p, later())
		offer(t, s, q, later())
		answer(t, s, p.State, tool.Decision{Kind: tool.DecisionDeny, Reason: "no"})
		got := list(t, s, p.Session)
		if len(got) != 1 || got[0].State != q.State {
			t.Fatalf("List after answering one of two = %d approvals; want only the unanswered one", len(got))
		}
	})
	t.Run("offering again changes nothing", func(t *testing.T) {
		s, p := newStore(t), pending(storeID())
		offer(t, s, p, later())
		changed := pending(p.Session)
		changed.State, changed.Request.Tool = p.State, "other_tool"
		offer(t, s, changed, later())
		back, _ := get(t, s, p.State)
		samePending(t, "Get after a second Offer of the same state", back, p)
		answer(t, s, p.State, tool.Decision{Kind: tool.DecisionAllowOnce})
		offer(t, s, p, later())
		if _, d := get(t, s, p.State); d == nil {
			t.Fatal("offering an answered approval again forgot its answer")
		}
		if got := list(t, s, p.Session); len(got) != 0 {
			t.Fatalf("offering an answered approval again listed it as waiting")
		}
	})
	t.Run("approvals are gone after their keep time", func(t *testing.T) {
		s, p, past := newStore(t), pending(storeID()), pending(storeID())
		offer(t, s, past, time.Now().Add(-time.Second))
		if _, _, err := s.Get(ctx, past.State); !errors.Is(err, tool.ErrPendingGone) {
			t.Errorf("Get of an approval offered with a keep time in the past: %v; want ErrPendingGone", err)
		}
		keep := time.Now().Add(storeTTL)
		offer(t, s, p, keep)
		if got := list(t, s, p.Session); len(got) != 1 && time.Now().Before(keep.Add(-storeTTL/3)) {
			t.Errorf("List before the keep time = %d approvals, want 1", len(got))
		}
		time.Sleep(time.Until(keep) + storeSettle)
		if _, _, err := s.Get(ctx, p.State); !errors.Is(err, tool.ErrPendingGone) {
			t.Errorf("Get after the keep time: %v; want ErrPendingGone", err)
		}
		if got := list(t, s, p.Session); len(got) != 0 {
			t.Errorf("List after the keep time = %d approvals, want none", len(got))
		}
		if first, err := s.Answer(ctx, p.State, tool.Decision{Kind: tool.DecisionAllowOnce}); !errors.Is(err, tool.ErrPendingGone) || first {
			t.Errorf("Answer after the keep time = %v, %v; want false and ErrPendingGone", first, err)
		}
	})
	t.Run("of many concurrent answers exactly one is recorded", func(t *testing.T) {
		s := newStore(t)
		for range 5 {
			p := pending(storeID())
			offer(t, s, p, later())
			var wins atomic.Int32
			var winner atomic.Value
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					d := tool.Decision{Kind: tool.DecisionDeny, Reason: fmt.Sprint("answer ", i)}
					first, err := s.Answer(context.Background(), p.State, d)
					switch {
					case err != nil:
						t.Errorf("concurrent Answer: %v", err)
					case first:
						wins.Add(1)
						winner.Store(d.Reason)
					}
				}()
			}
			wg.Wait()
			if n := wins.Load(); n != 1 {
				t.Fatalf("%d of 16 concurrent answers to one approval were first; want exactly 1", n)
			}
			if _, d := get(t, s, p.State); d == nil || d.Reason != winner.Load() {
				t.Fatalf("Get's answer = %+v, want the one that was first (%v)", d, winner.Load())
			}
		}
	})
	t.Run("a session holds a bounded number of unanswered approvals", func(t *testing.T) {
		s, session := newStore(t), storeID()
		var first *tool.PendingApproval
		for i := range tool.MaxPendingPerSession {
			p := pending(session)
			p.State = fmt.Sprint(p.State, "-", i)
			offer(t, s, p, later())
			if first == nil {
				first = p
			}
		}
		extra := pending(session)
		extra.State += "-extra"
		if err := s.Offer(ctx, extra, later()); !errors.Is(err, tool.ErrPendingFull) {
			t.Fatalf("Offer of approval %d of one session: %v; want ErrPendingFull", tool.MaxPendingPerSession+1, err)
		}
		offer(t, s, pending(storeID()), later()) // another session is not affected
		answer(t, s, first.State, tool.Decision{Kind: tool.DecisionAllowOnce})
		offer(t, s, extra, later()) // an answer makes room
	})
	t.Run("concurrent use is safe", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				session := storeID()
				for i := range 10 {
					p := pending(session)
					p.State = fmt.Sprint(p.State, "-", i)
					if err := s.Offer(ctx, p, later()); err != nil {
						t.Errorf("concurrent Offer: %v", err)
						return
					}
					if got, err := s.List(ctx, session); err != nil || len(got) != 1 {
						t.Errorf("concurrent List = %d approvals, %v; want 1", len(got), err)
						return
					}
					if first, err := s.Answer(ctx, p.State, tool.Decision{Kind: tool.DecisionAllowOnce}); err != nil || !first {
						t.Errorf("concurrent Answer = %v, %v; want true", first, err)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
	t.Run("a done context returns promptly and fails closed", func(t *testing.T) {
		s, p := newStore(t), pending(storeID())
		offer(t, s, p, later())
		dead, cancel := context.WithCancel(ctx)
		cancel()
		prompt(t, "Offer", func() string {
			return closedOrCanceled("Offer", false, s.Offer(dead, pending(storeID()), later()))
		})
		prompt(t, "List", func() string {
			_, err := s.List(dead, p.Session)
			return closedOrCanceled("List", false, err)
		})
		prompt(t, "Sessions", func() string {
			got, _, err := s.Sessions(dead, "", 10)
			if err != nil && len(got) > 0 {
				return "Sessions returned sessions with an error; a failure must return nothing"
			}
			return closedOrCanceled("Sessions", false, err)
		})
		prompt(t, "Get", func() string {
			got, d, err := s.Get(dead, p.State)
			if err != nil && (got != nil || d != nil) {
				return "Get returned an approval with an error; a failure must return nothing"
			}
			return closedOrCanceled("Get", false, err)
		})
		prompt(t, "Answer", func() string {
			first, err := s.Answer(dead, p.State, tool.Decision{Kind: tool.DecisionAllowOnce})
			return closedOrCanceled("Answer", first, err)
		})
	})
}

// pending returns an approval of session with a state of its own and
// every field set, with bytes a careless store would not keep exactly.
func pending(session string) *tool.PendingApproval {
	return &tool.PendingApproval{
		State:   "state-" + session + "-" + storeID(),
		Expires: time.Now().Add(10 * time.Minute).Round(time.Millisecond),
		Session: session,
		Request: tool.ApprovalRequest{
			Tool: "edit_file", DisplayName: "Edit a file", CallID: "call_1", Session: shown(session),
			Args:     json.RawMessage(`{"new_string":"len(strings.Fields(s))","path":"wordcount.go"}`),
			ArgsText: `{"new_string":"len(strings.Fields(s))","path":"wordcount.go"}`,
			Safety:   tool.SafetyDestructive, Tier: tool.TierConfirm,
			Requirement: tool.Requirement{Mode: tool.RequireScoped, Reason: "outside «the» workspace \\u202e", Scope: "/etc/"},
			Preview: tool.Preview{
				Title: "Edit wordcount.go", Summary: "Replace one line.\n\ttabbed",
				Edits:     []tool.Edit{{Path: "wordcount.go", Old: "a\nb\n", New: "a\nc\n"}, {Path: "README.md", New: "new file"}},
				Locations: []string{"wordcount.go", "README.md"},
			},
		},
	}
}

// shown is session as an approver is shown it: with control and
// invisible characters written as escapes, which two sessions can share.
func shown(session string) string {
	var b strings.Builder
	for _, r := range session {
		if r < 0x20 || r == 0x202e {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// samePending fails the test unless got holds exactly what want does.
func samePending(t *testing.T, what string, got, want *tool.PendingApproval) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s returned a nil approval", what)
	}
	g, w := *got, *want
	if !g.Expires.Equal(w.Expires) {
		t.Errorf("%s: Expires = %v, want %v", what, g.Expires, w.Expires)
	}
	g.Expires, w.Expires = time.Time{}, time.Time{}
	if string(g.Request.Args) != string(w.Request.Args) {
		t.Errorf("%s: Request.Args = %s, want %s", what, g.Request.Args, w.Request.Args)
	}
	g.Request.Args, w.Request.Args = nil, nil
	if fmt.Sprintf("%#v", g) != fmt.Sprintf("%#v", w) || !slices.Equal(g.Request.Preview.Edits, w.Request.Preview.Edits) {
		t.Errorf("%s returned\n%#v\nwant\n%#v", what, g, w)
	}
}

func offer(t *testing.T, s tool.PendingApprovalStore, p *tool.PendingApproval, keep time.Time) {
	t.Helper()
	if err := s.Offer(context.Background(), p, keep); err != nil {
		t.Fatalf("Offer: %v", err)
	}
}

func list(t *testing.T, s tool.PendingApprovalStore, session string) []*tool.PendingApproval {
	t.Helper()
	got, err := s.List(context.Background(), session)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return got
}

func get(t *testing.T, s tool.PendingApprovalStore, state string) (*tool.PendingApproval, *tool.Decision) {
	t.Helper()
	p, d, err := s.Get(context.Background(), state)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return p, d
}

func answer(t *testing.T, s tool.PendingApprovalStore, state string, d tool.Decision) bool {
	t.Helper()
	first, err := s.Answer(context.Background(), state, d)
	if err != nil {
		if first {
			t.Errorf("Answer returned true with an error (%v); a failure must fail closed (false)", err)
		}
		t.Fatalf("Answer: %v", err)
	}
	return first
}
