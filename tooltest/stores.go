package tooltest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
)

// The store suites wait for real expiries: a store backed by a server
// (Redis) cannot be given a fake clock. storeTTL is short enough to keep a
// suite under a few seconds and long enough that a busy machine reads an
// entry before it expires; a check that came too late for that is skipped
// rather than failed, since the next one still checks the expiry itself.
const (
	storeTTL    = 300 * time.Millisecond
	storeSettle = 150 * time.Millisecond // past the expiry, before checking it took effect
	// storePrompt bounds a store call made with a done context.
	storePrompt = 2 * time.Second
	// floodClaims is how many claims one session makes in the flood rule:
	// a store must bound one session's claims below it.
	floodClaims = 10_000
)

// TestSpillStore checks a [tool.SpillStore] against the contract that
// read_output relies on, one subtest per rule, each named after the rule it
// checks, as testing/slogtest does for slog handlers: ranged reads by byte,
// reads cut short at the end, out-of-range reads refused, unknown and
// expired entries reported as [tool.ErrSpillGone], overwrites, ids kept
// apart, bytes kept exactly, a megabyte entry, concurrent use (run with
// -race), and prompt return when the context is done.
//
// newStore is called once per rule, with that rule's t, and returns the
// store to check; register its cleanup with t.Cleanup. The suite uses ids of
// its own, so stores may share a backend. The store must keep entries of at
// least 1 MiB. The expiry rules wait for real time to pass (under a second
// in all).
func TestSpillStore(t *testing.T, newStore func(t *testing.T) tool.SpillStore) {
	t.Helper()
	ctx := context.Background()
	later := func() time.Time { return time.Now().Add(time.Hour) }

	t.Run("Get returns what Put kept", func(t *testing.T) {
		s, id := newStore(t), storeID()
		putOK(t, s, id, "hello, world", later())
		if got := getOK(t, s, id, 0, 100); got != "hello, world" {
			t.Fatalf("Get(0, 100) = %q, want %q", got, "hello, world")
		}
	})
	t.Run("ranged reads return up to n bytes from byte off", func(t *testing.T) {
		s, id := newStore(t), storeID()
		data := "0123456789é€ab" // multi-byte: offsets count bytes, not characters
		putOK(t, s, id, data, later())
		for _, r := range []struct{ off, n int }{
			{0, 1}, {0, 10}, {3, 4}, {9, 1}, {10, 1}, {11, 3}, {10, 5}, {5, 0}, {0, len(data)},
		} {
			want := data[r.off:min(r.off+r.n, len(data))]
			if got := getOK(t, s, id, r.off, r.n); got != want {
				t.Errorf("Get(%d, %d) = %q, want %q (the bytes at that range, even inside a character)", r.off, r.n, got, want)
			}
		}
	})
	t.Run("reads past the end are cut short", func(t *testing.T) {
		s, id := newStore(t), storeID()
		putOK(t, s, id, "abcdef", later())
		for _, r := range []struct {
			off, n int
			want   string
		}{{4, 10, "ef"}, {0, 1 << 30, "abcdef"}, {5, 1<<62 - 1, "f"}} {
			if got := getOK(t, s, id, r.off, r.n); got != r.want {
				t.Errorf("Get(%d, %d) = %q, want %q", r.off, r.n, got, r.want)
			}
		}
	})
	t.Run("a read at the end returns nothing", func(t *testing.T) {
		s, id := newStore(t), storeID()
		putOK(t, s, id, "abc", later())
		if got := getOK(t, s, id, 3, 10); got != "" {
			t.Fatalf("Get(3, 10) of 3 bytes = %q, want empty", got)
		}
		empty := storeID()
		putOK(t, s, empty, "", later())
		if got := getOK(t, s, empty, 0, 10); got != "" {
			t.Fatalf("Get(0, 10) of an empty entry = %q, want empty", got)
		}
	})
	t.Run("out-of-range reads are errors, not ErrSpillGone", func(t *testing.T) {
		s, id := newStore(t), storeID()
		putOK(t, s, id, "abc", later())
		for _, r := range []struct{ off, n int }{{4, 1}, {1 << 40, 1}, {-1, 1}, {0, -1}, {-1 << 62, -1}} {
			got, err := s.Get(ctx, id, r.off, r.n)
			switch {
			case err == nil:
				t.Errorf("Get(%d, %d) of 3 bytes = %q, want an error", r.off, r.n, got)
			case errors.Is(err, tool.ErrSpillGone):
				t.Errorf("Get(%d, %d) of 3 bytes: %v; the entry is still kept, so the error must not wrap ErrSpillGone", r.off, r.n, err)
			}
		}
	})
	t.Run("an unknown id is ErrSpillGone", func(t *testing.T) {
		s := newStore(t)
		for _, off := range []int{0, 5} {
			if got, err := s.Get(ctx, storeID(), off, 10); !errors.Is(err, tool.ErrSpillGone) {
				t.Errorf("Get(%d, 10) of an id never put = %q, %v; want an error wrapping ErrSpillGone", off, got, err)
			}
		}
	})
	t.Run("entries expire and are then ErrSpillGone", func(t *testing.T) {
		s, id, past := newStore(t), storeID(), storeID()
		putOK(t, s, past, "already expired", time.Now().Add(-time.Second))
		if got, err := s.Get(ctx, past, 0, 10); !errors.Is(err, tool.ErrSpillGone) {
			t.Errorf("Get of an entry put with an expiry in the past = %q, %v; want ErrSpillGone", got, err)
		}
		expires := time.Now().Add(storeTTL)
		putOK(t, s, id, "short-lived", expires)
		if got, err := s.Get(ctx, id, 0, 100); time.Now().Before(expires.Add(-storeTTL/3)) && (err != nil || got != "short-lived") {
			t.Errorf("Get before the expiry = %q, %v; want the data", got, err)
		}
		time.Sleep(time.Until(expires) + storeSettle)
		if got, err := s.Get(ctx, id, 0, 100); !errors.Is(err, tool.ErrSpillGone) {
			t.Fatalf("Get after the expiry = %q, %v; want an error wrapping ErrSpillGone", got, err)
		}
	})
	t.Run("Put replaces the data and the expiry", func(t *testing.T) {
		s, id := newStore(t), storeID()
		putOK(t, s, id, "first version, longer", later())
		putOK(t, s, id, "second", later())
		if got := getOK(t, s, id, 0, 100); got != "second" {
			t.Fatalf("Get after a second Put = %q, want %q", got, "second")
		}
		putOK(t, s, id, "third", time.Now().Add(-time.Second))
		if got, err := s.Get(ctx, id, 0, 100); !errors.Is(err, tool.ErrSpillGone) {
			t.Fatalf("Get after a Put with an expiry in the past = %q, %v; want ErrSpillGone", got, err)
		}
	})
	t.Run("ids are kept apart", func(t *testing.T) {
		s, base := newStore(t), storeID()
		ids := []string{base, base + "x", strings.ToUpper(base), base + "\x00", "\x00" + base, base + ":spill", base + strings.Repeat("é", 2000), " " + base}
		for i, id := range ids {
			putOK(t, s, id, fmt.Sprint("value ", i), later())
		}
		for i, id := range ids {
			if got, want := getOK(t, s, id, 0, 100), fmt.Sprint("value ", i); got != want {
				t.Errorf("Get(id #%d) = %q, want %q: ids that differ in a byte must not share an entry", i, got, want)
			}
		}
	})
	t.Run("bytes are kept exactly", func(t *testing.T) {
		s, id := newStore(t), storeID()
		data := "a\x00b\xff\xfe\r\n\x1b[2J\u202e\U0001F600 end"
		putOK(t, s, id, data, later())
		if got := getOK(t, s, id, 0, len(data)); got != data {
			t.Fatalf("Get = %q, want %q: NUL, invalid UTF-8 and control bytes must come back as they went in", got, data)
		}
	})
	t.Run("a megabyte entry is kept and read in parts", func(t *testing.T) {
		s, id := newStore(t), storeID()
		data := megabyte()
		putOK(t, s, id, data, later())
		var b strings.Builder
		for off := 0; off < len(data); off += 200_000 {
			b.WriteString(getOK(t, s, id, off, 200_000))
		}
		if b.String() != data {
			t.Fatalf("reading 1 MiB back in 200 kB parts gave %d bytes that differ from what was put", b.Len())
		}
	})
	t.Run("concurrent use is safe", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 25 {
					id, data := storeID(), fmt.Sprintf("goroutine %d, entry %d", g, i)
					if err := s.Put(ctx, id, data, later()); err != nil {
						t.Errorf("concurrent Put: %v", err)
						return
					}
					if got, err := s.Get(ctx, id, 0, 100); err != nil || got != data {
						t.Errorf("concurrent Get = %q, %v; want %q", got, err, data)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
	t.Run("a done context returns promptly", func(t *testing.T) {
		s, id := newStore(t), storeID()
		putOK(t, s, id, "kept", later())
		dead, cancel := context.WithCancel(ctx)
		cancel()
		prompt(t, "Put", func() string {
			if err := s.Put(dead, storeID(), "x", later()); err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Sprintf("Put with a cancelled context: %v; want nil or an error wrapping context.Canceled", err)
			}
			return ""
		})
		prompt(t, "Get", func() string {
			if _, err := s.Get(dead, id, 0, 10); err != nil && (errors.Is(err, tool.ErrSpillGone) || !errors.Is(err, context.Canceled)) {
				return fmt.Sprintf("Get with a cancelled context: %v; want nil or an error wrapping context.Canceled (not ErrSpillGone: the entry is kept)", err)
			}
			return ""
		})
	})
}

// TestApprovalStore checks a [tool.ApprovalStore] against the contract
// approval relies on, one subtest per rule, each named after the rule it
// checks: "allow always" answers held per session and key, never across
// them, expiring, replaced when remembered again; claims that succeed once
// per session and id, expire, and let exactly one of many concurrent
// claimers win; one session's flood of claims refused at a bound of its
// own while other sessions still claim; answers and claims kept apart;
// concurrent use (run with -race); prompt return when the context is
// done; and, in every rule, failing closed (an error never comes with a
// true).
//
// newMemory is called once per rule, with that rule's t, and returns the
// memory to check; register its cleanup with t.Cleanup. The suite uses
// sessions, keys and ids of its own, so memories may share a backend. The
// store must bound the claims of one session below 10,000 (the flood rule
// makes that many). The expiry rules wait for real time to pass (under a
// second in all).
func TestApprovalStore(t *testing.T, newMemory func(t *testing.T) tool.ApprovalStore) {
	t.Helper()
	later := func() time.Time { return time.Now().Add(time.Hour) }

	t.Run("nothing is allowed until remembered", func(t *testing.T) {
		m, s := newMemory(t), storeID()
		if allowed(t, m, s, "edit\x00mutating") {
			t.Fatal("Allowed is true for a key never remembered")
		}
		remember(t, m, s, "edit\x00mutating", later())
		if !allowed(t, m, s, "edit\x00mutating") {
			t.Fatal("Allowed is false right after Remember")
		}
	})
	t.Run("an answer holds for its own session and key only", func(t *testing.T) {
		m, s, other := newMemory(t), storeID(), storeID()
		remember(t, m, s, "edit\x00mutating", later())
		for _, c := range []struct{ session, key string }{
			{other, "edit\x00mutating"}, {s, "edit\x00destructive"}, {s, "edit"}, {s, "Edit\x00mutating"}, {"", "edit\x00mutating"},
		} {
			if allowed(t, m, c.session, c.key) {
				t.Errorf("Allowed(%q, %q) is true, but only (%q, %q) was remembered", c.session, c.key, s, "edit\x00mutating")
			}
		}
	})
	t.Run("sessions and keys are kept apart whatever bytes they hold", func(t *testing.T) {
		m, base := newMemory(t), storeID()
		// Each pair joins to the same bytes if the two are simply
		// concatenated, with or without a separator.
		pairs := [][2]struct{ session, key string }{
			{{base + "a\x00b", "c"}, {base + "a", "b\x00c"}},
			{{base + "ab", "c"}, {base + "a", "bc"}},
			{{base + ":x", "y"}, {base, "x:y"}},
		}
		for _, p := range pairs {
			remember(t, m, p[0].session, p[0].key, later())
			if allowed(t, m, p[1].session, p[1].key) {
				t.Errorf("remembering (%q, %q) allows (%q, %q)", p[0].session, p[0].key, p[1].session, p[1].key)
			}
		}
		long := base + strings.Repeat("s", 10_000)
		remember(t, m, long, strings.Repeat("k", 10_000), later())
		if !allowed(t, m, long, strings.Repeat("k", 10_000)) {
			t.Error("a 10 kB session and key are not remembered")
		}
	})
	t.Run("answers expire", func(t *testing.T) {
		m, s := newMemory(t), storeID()
		remember(t, m, s, "old", time.Now().Add(-time.Second))
		if allowed(t, m, s, "old") {
			t.Error("Allowed is true for an answer remembered with an expiry in the past")
		}
		expires := time.Now().Add(storeTTL)
		remember(t, m, s, "k", expires)
		if ok := allowed(t, m, s, "k"); !ok && time.Now().Before(expires.Add(-storeTTL/3)) {
			t.Error("Allowed is false before the answer expires")
		}
		time.Sleep(time.Until(expires) + storeSettle)
		if allowed(t, m, s, "k") {
			t.Fatal("Allowed is true after the answer expired")
		}
	})
	t.Run("remembering again sets the new expiry", func(t *testing.T) {
		m, s := newMemory(t), storeID()
		remember(t, m, s, "k", time.Now().Add(storeTTL))
		remember(t, m, s, "k", later())
		remember(t, m, s, "gone", later())
		remember(t, m, s, "gone", time.Now().Add(-time.Second))
		if allowed(t, m, s, "gone") {
			t.Error("an answer remembered again with an expiry in the past is still allowed")
		}
		time.Sleep(storeTTL + storeSettle)
		if !allowed(t, m, s, "k") {
			t.Fatal("an answer remembered again for an hour expired with its first, shorter expiry")
		}
	})
	t.Run("a claim succeeds once", func(t *testing.T) {
		m, s, id := newMemory(t), storeID(), storeID()
		if !claim(t, m, s, id, later()) {
			t.Fatal("the first Claim of an id reported false")
		}
		for range 3 {
			if claim(t, m, s, id, later()) {
				t.Fatal("a second Claim of the same id reported true: a resumed approval could be used twice")
			}
		}
		if !claim(t, m, s, id+"x", later()) || !claim(t, m, s, strings.ToUpper(id), later()) {
			t.Fatal("the first Claim of another id reported false")
		}
	})
	t.Run("a claim given back is claimed again, once", func(t *testing.T) {
		m := newMemory(t)
		r, ok := m.(tool.ApprovalReleaser)
		if !ok {
			t.Skip("the store cannot give a claim back (tool.ApprovalReleaser): the answer of a call that did not start is used")
		}
		s, other, id := storeID(), storeID(), storeID()
		if !claim(t, m, s, id, later()) || !claim(t, m, other, id, later()) {
			t.Fatal("the first Claim reported false")
		}
		if err := r.Release(context.Background(), s, id); err != nil {
			t.Fatalf("Release: %v", err)
		}
		if err := r.Release(context.Background(), s, id+"never"); err != nil {
			t.Fatalf("Release of a claim never made: %v", err)
		}
		if !claim(t, m, s, id, later()) {
			t.Fatal("a claim given back reported false when claimed again")
		}
		if claim(t, m, s, id, later()) || claim(t, m, other, id, later()) {
			t.Fatal("a claim given back and made again, or another session's, reported true twice")
		}
	})
	t.Run("a claim holds for its own session only", func(t *testing.T) {
		m, s, other, id := newMemory(t), storeID(), storeID(), storeID()
		if !claim(t, m, s, id, later()) {
			t.Fatal("the first Claim reported false")
		}
		if !claim(t, m, other, id, later()) || !claim(t, m, "", id, later()) {
			t.Fatal("a claim of one session's id reads as claimed in another session")
		}
		// Joined naively, these pairs are the same bytes.
		if !claim(t, m, s+"a", "b"+id, later()) || !claim(t, m, s, "ab"+id, later()) {
			t.Fatal("sessions and ids are not kept apart: (s+\"a\", \"b\"+id) and (s, \"ab\"+id) share a claim")
		}
	})
	t.Run("one session's flood of claims leaves the other sessions room", func(t *testing.T) {
		// A client that declines its own deferred calls claims one id per
		// call: its session must reach a bound of its own, under
		// floodClaims, while another session still claims.
		m, flooder, other := newMemory(t), storeID(), storeID()
		first := storeID()
		if !claim(t, m, flooder, first, later()) {
			t.Fatal("the first Claim reported false")
		}
		refused := false
		for i := range floodClaims {
			ok, err := m.Claim(context.Background(), flooder, fmt.Sprint(first, "-", i), later())
			if err != nil || !ok {
				refused = true
				break
			}
		}
		if !refused {
			t.Fatalf("one session made %d claims and none was refused: bound the claims of one session (well under %d), so that its flood cannot fill the store", floodClaims, floodClaims)
		}
		if !claim(t, m, other, storeID(), later()) {
			t.Fatal("after one session's flood, another session's first Claim reported false")
		}
		if claim(t, m, flooder, first, later()) {
			t.Fatal("the flooding session's first claim was forgotten: its approval could be used twice")
		}
	})
	t.Run("claims expire", func(t *testing.T) {
		m, s, id := newMemory(t), storeID(), storeID()
		expires := time.Now().Add(storeTTL)
		if !claim(t, m, s, id, expires) {
			t.Fatal("the first Claim reported false")
		}
		if claim(t, m, s, id, expires) && time.Now().Before(expires.Add(-storeTTL/3)) {
			t.Fatal("a second Claim before the first expired reported true")
		}
		time.Sleep(time.Until(expires) + storeSettle)
		if !claim(t, m, s, id, later()) {
			t.Fatal("a Claim after the first one expired reported false")
		}
	})
	t.Run("claims and answers are kept apart", func(t *testing.T) {
		m, s, id := newMemory(t), storeID(), storeID()
		if !claim(t, m, s, id, later()) {
			t.Fatal("Claim reported false")
		}
		if allowed(t, m, s, id) || allowed(t, m, id, "") || allowed(t, m, "", id) {
			t.Error("a claimed id reads as a remembered answer")
		}
		s2 := storeID()
		remember(t, m, s2, "k", later())
		if !claim(t, m, s2, "k", later()) || !claim(t, m, "", s2, later()) {
			t.Error("a remembered session or key reads as a claim")
		}
	})
	t.Run("of many concurrent claims of one id exactly one wins", func(t *testing.T) {
		m := newMemory(t)
		for range 5 {
			s, id := storeID(), storeID()
			var wins atomic.Int32
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if ok, err := m.Claim(context.Background(), s, id, later()); err == nil && ok {
						wins.Add(1)
					} else if err != nil {
						t.Errorf("concurrent Claim: %v", err)
					}
				}()
			}
			wg.Wait()
			if n := wins.Load(); n != 1 {
				t.Fatalf("%d of 16 concurrent claims of one id won; want exactly 1", n)
			}
		}
	})
	t.Run("concurrent use is safe", func(t *testing.T) {
		m := newMemory(t)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := storeID()
				for i := range 20 {
					key := fmt.Sprint("tool", i)
					if err := m.Remember(context.Background(), s, key, later()); err != nil {
						t.Errorf("concurrent Remember: %v", err)
						return
					}
					if ok, err := m.Allowed(context.Background(), s, key); err != nil || !ok {
						t.Errorf("concurrent Allowed = %v, %v; want true", ok, err)
						return
					}
					if ok, err := m.Claim(context.Background(), s, key, later()); err != nil || !ok {
						t.Errorf("concurrent Claim of a fresh id = %v, %v; want true", ok, err)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
	t.Run("a done context returns promptly and fails closed", func(t *testing.T) {
		m, s, id := newMemory(t), storeID(), storeID()
		remember(t, m, s, "k", later())
		dead, cancel := context.WithCancel(context.Background())
		cancel()
		prompt(t, "Allowed", func() string {
			ok, err := m.Allowed(dead, s, "k")
			return closedOrCanceled("Allowed", ok, err)
		})
		prompt(t, "Remember", func() string {
			return closedOrCanceled("Remember", false, m.Remember(dead, s, "k2", later()))
		})
		prompt(t, "Claim", func() string {
			ok, err := m.Claim(dead, s, id, later())
			return closedOrCanceled("Claim", ok, err)
		})
	})
}

// closedOrCanceled checks the answer of a call made with a cancelled
// context, and says what is wrong with it: it must be an answer, or a
// failure that is the context's and says false.
func closedOrCanceled(op string, ok bool, err error) string {
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		return fmt.Sprintf("%s with a cancelled context: %v; want nil or an error wrapping context.Canceled", op, err)
	case err != nil && ok:
		return op + " returned true with an error; a failure must fail closed (false)"
	}
	return ""
}

// storeID returns an id no other test uses, so that stores may share a
// backend.
func storeID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "tooltest-" + hex.EncodeToString(b[:])
}

// megabyte is 1 MiB of varied bytes, every one of the 256 values included.
func megabyte() string {
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return string(b)
}

func putOK(t *testing.T, s tool.SpillStore, id, data string, expires time.Time) {
	t.Helper()
	if err := s.Put(context.Background(), id, data, expires); err != nil {
		t.Fatalf("Put(%d bytes): %v", len(data), err)
	}
}

func getOK(t *testing.T, s tool.SpillStore, id string, off, n int) string {
	t.Helper()
	got, err := s.Get(context.Background(), id, off, n)
	if err != nil {
		t.Fatalf("Get(%d, %d): %v", off, n, err)
	}
	return got
}

func allowed(t *testing.T, m tool.ApprovalStore, session, key string) bool {
	t.Helper()
	ok, err := m.Allowed(context.Background(), session, key)
	if err != nil {
		if ok {
			t.Errorf("Allowed returned true with an error (%v); a failure must fail closed (false)", err)
		}
		t.Fatalf("Allowed: %v", err)
	}
	return ok
}

func remember(t *testing.T, m tool.ApprovalStore, session, key string, expires time.Time) {
	t.Helper()
	if err := m.Remember(context.Background(), session, key, expires); err != nil {
		t.Fatalf("Remember: %v", err)
	}
}

func claim(t *testing.T, m tool.ApprovalStore, session, id string, expires time.Time) bool {
	t.Helper()
	ok, err := m.Claim(context.Background(), session, id, expires)
	if err != nil {
		if ok {
			t.Errorf("Claim returned true with an error (%v); a failure must fail closed (false)", err)
		}
		t.Fatalf("Claim: %v", err)
	}
	return ok
}

// prompt runs f, which says what is wrong ("" for nothing), and fails the
// test if it does not return within storePrompt. f runs on a goroutine of
// its own and never touches t, which may be gone by the time a store that
// hangs returns.
func prompt(t *testing.T, op string, f func() string) {
	t.Helper()
	done := make(chan string, 1)
	go func() { done <- f() }()
	select {
	case problem := <-done:
		if problem != "" {
			t.Error(problem)
		}
	case <-time.After(storePrompt):
		t.Fatalf("%s with a done context did not return within %v; it must return when ctx is done", op, storePrompt)
	}
}
