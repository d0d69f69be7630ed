package tooltest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
)

// TestRecordStore checks a [tool.RecordStore] against the contract the
// record stage relies on, one subtest per rule, each named after the rule
// it checks: a claim wins once and shows the others what is kept; sessions
// and ids kept apart whatever bytes they hold; Replace and Record changing
// only what they were given, moving the expiry, removing with an expiry in
// the past; a record kept in place of a claim, and never replaced as a
// claim; entries expiring; values kept exactly, up to 256 KiB; a claim
// never forgotten to make room for the session's records; exactly one
// winner among concurrent claims, the others shown its value; concurrent
// use (run with -race); prompt return when the context is done; and, in
// every rule, failing closed (an error never comes with a true).
func TestRecordStore(t *testing.T, newStore func(t *testing.T) tool.RecordStore) {
	t.Helper()
	later := func() time.Time { return time.Now().Add(time.Hour) }

	t.Run("a claim wins once and shows the others what is kept", func(t *testing.T) {
		s, session, id := newStore(t), storeID(), storeID()
		if kept, ok := claimRecord(t, s, session, id, "claim-1", later()); !ok {
			t.Fatalf("the first Claim reported false (kept %q)", kept)
		}
		for range 3 {
			kept, ok := claimRecord(t, s, session, id, "claim-2", later())
			if ok {
				t.Fatal("a second Claim of the same session and id reported true: the call could run twice")
			}
			if kept != "claim-1" {
				t.Fatalf("a second Claim returned %q, want what the first kept, %q", kept, "claim-1")
			}
		}
	})
	t.Run("sessions and ids are kept apart whatever bytes they hold", func(t *testing.T) {
		s, base := newStore(t), storeID()
		pairs := []struct{ session, id string }{
			{base + "a\x00b", "c"}, {base + "a", "b\x00c"}, {base + "ab", "c"}, {base + "a", "bc"},
			{base + ":x", "y"}, {base, "x:y"}, {"", base}, {base, ""}, {strings.ToUpper(base), "c"},
			{base + strings.Repeat("s", 10_000), strings.Repeat("i", 10_000)},
		}
		for i, p := range pairs {
			if kept, ok := claimRecord(t, s, p.session, p.id, fmt.Sprint("value ", i), later()); !ok {
				t.Errorf("Claim(%q, %q) reported false, kept %q: another pair's entry answers for it", short(p.session), short(p.id), kept)
			}
		}
	})
	t.Run("Replace changes only what it was given", func(t *testing.T) {
		s, session, id := newStore(t), storeID(), storeID()
		claimRecord(t, s, session, id, "claim", later())
		if replaceRecord(t, s, session, id, "another claim", "record", later()) {
			t.Fatal("Replace of a value that is not the one kept reported true")
		}
		if kept, _ := claimRecord(t, s, session, id, "x", later()); kept != "claim" {
			t.Fatalf("after a refused Replace, the entry holds %q, want %q", kept, "claim")
		}
		if !replaceRecord(t, s, session, id, "claim", "record", later()) {
			t.Fatal("Replace of the value kept reported false")
		}
		if kept, _ := claimRecord(t, s, session, id, "x", later()); kept != "record" {
			t.Fatalf("after Replace, the entry holds %q, want %q", kept, "record")
		}
		if replaceRecord(t, s, storeID(), id, "record", "other", later()) || replaceRecord(t, s, session, storeID(), "", "other", later()) {
			t.Fatal("Replace of an entry that is not there reported true")
		}
	})
	t.Run("Record keeps a record in place of the claim it was given", func(t *testing.T) {
		s, session, id := newStore(t), storeID(), storeID()
		claimRecord(t, s, session, id, "claim", later())
		if keepRecord(t, s, session, id, "another claim", "record", later()) {
			t.Fatal("Record in place of a value that is not the one kept reported true")
		}
		if !keepRecord(t, s, session, id, "claim", "record", later()) {
			t.Fatal("Record in place of the claim kept reported false")
		}
		if kept, _ := claimRecord(t, s, session, id, "x", later()); kept != "record" {
			t.Fatalf("after Record, the entry holds %q, want %q", kept, "record")
		}
		if keepRecord(t, s, storeID(), id, "claim", "other", later()) {
			t.Fatal("Record of an entry that is not there reported true")
		}
		other := storeID()
		claimRecord(t, s, session, other, "claim", later())
		if !keepRecord(t, s, session, other, "claim", "gone", time.Now().Add(-time.Second)) {
			t.Fatal("Record with an expiry in the past reported false")
		}
		if kept, ok := claimRecord(t, s, session, other, "again", later()); !ok {
			t.Fatalf("a Claim after a Record with an expiry in the past reported false (kept %q)", kept)
		}
	})
	t.Run("a claim is never forgotten to make room for its session's records", func(t *testing.T) {
		s, session, id := newStore(t), storeID(), storeID()
		claimRecord(t, s, session, id, "running", later())
		record := strings.Repeat("r", 64<<10)
		for i := range 128 { // 8 MiB of records of the same session
			other := fmt.Sprint("other-", i)
			if _, ok, err := s.Claim(context.Background(), session, other, "claim", later()); err != nil || !ok {
				break // a full store may refuse a claim
			}
			if _, err := s.Record(context.Background(), session, other, "claim", record, later()); err != nil {
				break
			}
		}
		if kept, ok := claimRecord(t, s, session, id, "twin", later()); ok || kept != "running" {
			t.Fatalf("after its session's records filled the store, a claim of a call in progress was forgotten (Claim = %q, %v): its twin would run the call a second time", kept, ok)
		}
	})
	t.Run("Replace with an expiry in the past removes the entry", func(t *testing.T) {
		s, session, id := newStore(t), storeID(), storeID()
		claimRecord(t, s, session, id, "claim", later())
		if !replaceRecord(t, s, session, id, "claim", "", time.Now().Add(-time.Second)) {
			t.Fatal("Replace with an expiry in the past reported false")
		}
		if kept, ok := claimRecord(t, s, session, id, "again", later()); !ok {
			t.Fatalf("a Claim after the entry was removed reported false (kept %q)", kept)
		}
	})
	t.Run("entries expire", func(t *testing.T) {
		s, session, id := newStore(t), storeID(), storeID()
		if _, ok := claimRecord(t, s, session, storeID(), "already expired", time.Now().Add(-time.Second)); !ok {
			t.Fatal("a Claim with an expiry in the past reported false")
		}
		expires := time.Now().Add(storeTTL)
		claimRecord(t, s, session, id, "short-lived", expires)
		if kept, ok := claimRecord(t, s, session, id, "x", expires); time.Now().Before(expires.Add(-storeTTL/3)) && (ok || kept != "short-lived") {
			t.Errorf("a Claim before the first expired = %q, %v; want the first's value and false", kept, ok)
		}
		time.Sleep(time.Until(expires) + storeSettle)
		if kept, ok := claimRecord(t, s, session, id, "after", later()); !ok {
			t.Fatalf("a Claim after the first expired reported false (kept %q)", kept)
		}
		if replaceRecord(t, s, session, id, "short-lived", "late", later()) {
			t.Fatal("Replace of an expired value reported true")
		}
	})
	t.Run("Replace sets the new expiry", func(t *testing.T) {
		s, session, id := newStore(t), storeID(), storeID()
		claimRecord(t, s, session, id, "claim", time.Now().Add(storeTTL))
		replaceRecord(t, s, session, id, "claim", "record", later())
		time.Sleep(storeTTL + storeSettle)
		if kept, ok := claimRecord(t, s, session, id, "x", later()); ok || kept != "record" {
			t.Fatalf("a record replaced for an hour is gone with its claim's shorter expiry (Claim = %q, %v)", kept, ok)
		}
	})
	t.Run("values are kept exactly", func(t *testing.T) {
		s, session := newStore(t), storeID()
		for _, v := range []string{"a\x00b\xff\xfe\r\n\x1b[2J\u202e\U0001F600 end", strings.Repeat("0123456789abcdef", 16<<10)} {
			id := storeID()
			claimRecord(t, s, session, id, v, later())
			if kept, _ := claimRecord(t, s, session, id, "x", later()); kept != v {
				t.Fatalf("a %d-byte value came back as %d bytes that differ: NUL, invalid UTF-8 and control bytes must come back as they went in", len(v), len(kept))
			}
			if !replaceRecord(t, s, session, id, v, v+"!", later()) {
				t.Fatalf("Replace of the %d-byte value kept reported false", len(v))
			}
			if !keepRecord(t, s, session, id, v+"!", v+"?", later()) {
				t.Fatalf("Record in place of the %d-byte value kept reported false", len(v))
			}
			if kept, _ := claimRecord(t, s, session, id, "x", later()); kept != v+"?" {
				t.Fatalf("a %d-byte record came back as %d bytes that differ", len(v)+1, len(kept))
			}
		}
	})
	t.Run("of many concurrent claims exactly one wins", func(t *testing.T) {
		s := newStore(t)
		for range 5 {
			session, id := storeID(), storeID()
			var wins atomic.Int32
			var wg sync.WaitGroup
			values := make([]string, 16)
			kept := make([]string, 16)
			for i := range 16 {
				values[i] = fmt.Sprint("claim ", i)
				wg.Add(1)
				go func() {
					defer wg.Done()
					k, ok, err := s.Claim(context.Background(), session, id, values[i], later())
					switch {
					case err != nil:
						t.Errorf("concurrent Claim: %v", err)
					case ok:
						wins.Add(1)
						kept[i] = values[i]
					default:
						kept[i] = k
					}
				}()
			}
			wg.Wait()
			if n := wins.Load(); n != 1 {
				t.Fatalf("%d of 16 concurrent claims won; want exactly 1", n)
			}
			for i := range kept {
				if kept[i] != kept[0] {
					t.Fatalf("the claimers saw different winners: %q and %q", kept[0], kept[i])
				}
			}
		}
	})
	t.Run("concurrent use is safe", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				session := storeID()
				for i := range 20 {
					id := fmt.Sprint("call-", i)
					if _, ok, err := s.Claim(context.Background(), session, id, "claim", later()); err != nil || !ok {
						t.Errorf("concurrent Claim of a fresh id = %v, %v; want true", ok, err)
						return
					}
					if ok, err := s.Replace(context.Background(), session, id, "claim", "started", later()); err != nil || !ok {
						t.Errorf("concurrent Replace = %v, %v; want true", ok, err)
						return
					}
					if ok, err := s.Record(context.Background(), session, id, "started", "record", later()); err != nil || !ok {
						t.Errorf("concurrent Record = %v, %v; want true", ok, err)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
	t.Run("a done context returns promptly and fails closed", func(t *testing.T) {
		s, session, id := newStore(t), storeID(), storeID()
		claimRecord(t, s, session, id, "claim", later())
		dead, cancel := context.WithCancel(context.Background())
		cancel()
		prompt(t, "Claim", func() string {
			_, ok, err := s.Claim(dead, session, storeID(), "x", later())
			return closedOrCanceled("Claim", ok, err)
		})
		prompt(t, "Replace", func() string {
			ok, err := s.Replace(dead, session, id, "claim", "record", later())
			return closedOrCanceled("Replace", ok, err)
		})
		prompt(t, "Record", func() string {
			ok, err := s.Record(dead, session, id, "claim", "record", later())
			return closedOrCanceled("Record", ok, err)
		})
	})
}

func claimRecord(t *testing.T, s tool.RecordStore, session, id, value string, expires time.Time) (string, bool) {
	t.Helper()
	kept, ok, err := s.Claim(context.Background(), session, id, value, expires)
	if err != nil {
		if ok {
			t.Errorf("Claim returned true with an error (%v); a failure must fail closed (false)", err)
		}
		t.Fatalf("Claim: %v", err)
	}
	return kept, ok
}

func replaceRecord(t *testing.T, s tool.RecordStore, session, id, old, value string, expires time.Time) bool {
	t.Helper()
	ok, err := s.Replace(context.Background(), session, id, old, value, expires)
	if err != nil {
		if ok {
			t.Errorf("Replace returned true with an error (%v); a failure must fail closed (false)", err)
		}
		t.Fatalf("Replace: %v", err)
	}
	return ok
}

func keepRecord(t *testing.T, s tool.RecordStore, session, id, old, value string, expires time.Time) bool {
	t.Helper()
	ok, err := s.Record(context.Background(), session, id, old, value, expires)
	if err != nil {
		if ok {
			t.Errorf("Record returned true with an error (%v); a failure must fail closed (false)", err)
		}
		t.Fatalf("Record: %v", err)
	}
	return ok
}

// short cuts a long session or id for a message.
func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
