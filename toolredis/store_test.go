package toolredis_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestSpillStoreConforms(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	tooltest.TestSpillStore(t, func(*testing.T) tool.SpillStore {
		return toolredis.NewSpillStore(rdb, &toolredis.Options{Namespace: namespace()})
	})
}

func TestApprovalStoreConforms(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	tooltest.TestApprovalStore(t, func(*testing.T) tool.ApprovalStore {
		return toolredis.NewApprovalStore(rdb, &toolredis.Options{Namespace: namespace()})
	})
}

// keys lists the keys under ns (a test may scan; the stores never do).
func keys(t *testing.T, rdb *redis.Client, ns string) []string {
	t.Helper()
	ks, err := rdb.Keys(context.Background(), ns+":*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// keyShape is what every key is: the namespace, a kind, and a hash of
// what it is for, or a bucket's hash tag (a marker), or both.
var keyShape = regexp.MustCompile(`^[a-z0-9-]+:[a-z]+(:\{[0-9a-f]{3}\})?(:[0-9a-f]{64})?$`)

// checkKeys checks that every key under ns has its fixed shape (whatever
// went into it) and expires within the minute before expires, except the
// guard's markers, one per bucket at most, which never expire.
func checkKeys(t *testing.T, rdb *redis.Client, ns string, expires time.Time) []string {
	t.Helper()
	got := keys(t, rdb, ns)
	for _, k := range got {
		if !keyShape.MatchString(k) || !strings.HasSuffix(k, "}") && len(k) > len(ns)+20+64 {
			t.Errorf("key %q is not the namespace, a kind, a bucket's tag and a hash: keys must not grow with what is in them", k)
		}
		ttl, err := rdb.PTTL(context.Background(), k).Result()
		if strings.HasPrefix(k, ns+":guard:") {
			if err != nil || ttl != -1 {
				t.Errorf("PTTL %s = %v, %v; a guard's marker must not expire (its absence means Redis lost data)", k, ttl, err)
			}
			continue
		}
		if want := time.Until(expires); err != nil || ttl <= want-time.Minute || ttl > want+time.Second {
			t.Errorf("PTTL %s = %v, %v; want the %v given", k, ttl, err, want.Round(time.Minute))
		}
	}
	return got
}

func TestKeysAreNamespacedBoundedAndExpire(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()
	ns := namespace()
	opts := &toolredis.Options{Namespace: ns}
	spill, mem := toolredis.NewSpillStore(rdb, opts), toolredis.NewApprovalStore(rdb, opts)
	expires := time.Now().Add(90 * time.Minute)
	if err := spill.Put(ctx, strings.Repeat("i", 5000), "data", expires); err != nil {
		t.Fatal(err)
	}
	if err := mem.Remember(ctx, strings.Repeat("s", 5000), "tool\x00mutating", expires); err != nil {
		t.Fatal(err)
	}
	if ok, err := mem.Claim(ctx, strings.Repeat("s", 5000), strings.Repeat("r", 5000), expires); err != nil || !ok {
		t.Fatalf("Claim = %v, %v", ok, err)
	}
	// The spilled entry, the answer, the claim, the session's claims and
	// the bucket's marker.
	if got := checkKeys(t, rdb, ns, expires); len(got) != 5 {
		t.Fatalf("keys under %s: %q, want 5", ns, got)
	}
	if other := namespace(); len(keys(t, rdb, other)) != 0 {
		t.Fatal("keys in a namespace nothing used")
	}
	// Another namespace on the same Redis sees none of it.
	o := &toolredis.Options{Namespace: namespace()}
	if ok, _ := toolredis.NewApprovalStore(rdb, o).Allowed(ctx, strings.Repeat("s", 5000), "tool\x00mutating"); ok {
		t.Error("an answer remembered in one namespace is allowed in another")
	}
	if _, err := toolredis.NewSpillStore(rdb, o).Get(ctx, strings.Repeat("i", 5000), 0, 4); !errors.Is(err, tool.ErrSpillGone) {
		t.Errorf("an entry kept in one namespace is read in another: %v", err)
	}
	if ok, err := toolredis.NewApprovalStore(rdb, o).Claim(ctx, strings.Repeat("s", 5000), strings.Repeat("r", 5000), expires); err != nil || !ok {
		t.Errorf("a claim made in one namespace is used in another: %v, %v", ok, err)
	}
}

func TestSpillRefusesEntriesOverTheBound(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ns := namespace()
	s := toolredis.NewSpillStore(rdb, &toolredis.Options{Namespace: ns, MaxSpillBytes: 1000})
	err := s.Put(context.Background(), "big", strings.Repeat("x", 1001), time.Now().Add(time.Hour))
	if err == nil || !strings.Contains(err.Error(), "1000 bytes") {
		t.Fatalf("Put of 1001 bytes with a 1000-byte bound: %v, want an error naming the bound", err)
	}
	if ks := keys(t, rdb, ns); len(ks) != 0 {
		t.Fatalf("a refused entry was written: %q", ks)
	}
	if err := s.Put(context.Background(), "fits", strings.Repeat("x", 1000), time.Now().Add(time.Hour)); err != nil {
		t.Fatalf("Put of exactly the bound: %v", err)
	}
}

// TestFrozenRedisFailsClosedInTime freezes the server (SIGSTOP): no
// connection is closed and nothing is answered, so only the stores'
// timeout ends each wait. The client is built without
// ContextTimeoutEnabled, with a read timeout of a minute. The bound is a
// hang check, generous for a loaded machine (it once took 2.66 s against
// the 200 ms timeout): what it catches is a store that waits for the
// client.
func TestFrozenRedisFailsClosedInTime(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()
	ns := namespace()
	// Set up with a timeout a loaded machine cannot miss; check with a short one.
	setup := &toolredis.Options{Namespace: ns, Timeout: 30 * time.Second}
	later := time.Now().Add(time.Hour)
	if err := toolredis.NewSpillStore(rdb, setup).Put(ctx, "id", "kept", later); err != nil {
		t.Fatal(err)
	}
	if err := toolredis.NewApprovalStore(rdb, setup).Remember(ctx, "s", "k", later); err != nil {
		t.Fatal(err)
	}
	opts := &toolredis.Options{Namespace: ns, Timeout: 200 * time.Millisecond}
	spill, mem := toolredis.NewSpillStore(rdb, opts), toolredis.NewApprovalStore(rdb, opts)
	if err := srv.Freeze(); err != nil {
		t.Skip(err)
	}
	for _, op := range []struct {
		name string
		run  func() (bool, error)
	}{
		{"Put", func() (bool, error) { return false, spill.Put(ctx, "id2", "x", later) }},
		{"Get", func() (bool, error) { _, err := spill.Get(ctx, "id", 0, 4); return false, err }},
		{"Allowed", func() (bool, error) { return mem.Allowed(ctx, "s", "k") }},
		{"Remember", func() (bool, error) { return false, mem.Remember(ctx, "s", "k2", later) }},
		{"Claim", func() (bool, error) { return mem.Claim(ctx, "s", "c", later) }},
	} {
		start := time.Now()
		ok, err := op.run()
		took := time.Since(start)
		if err == nil || ok || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s on a frozen Redis = %v, %v; want false and a deadline error", op.name, ok, err)
		}
		if errors.Is(err, tool.ErrSpillGone) {
			t.Errorf("%s on a frozen Redis says the entry is gone: %v", op.name, err)
		}
		if took > 10*time.Second {
			t.Errorf("%s on a frozen Redis took %v with a 200ms timeout: it waited for the client", op.name, took)
		}
	}
	_ = srv.Thaw()
	if got, err := toolredis.NewSpillStore(rdb, setup).Get(ctx, "id", 0, 4); err != nil || got != "kept" {
		t.Fatalf("after thawing, Get = %q, %v; want the entry back", got, err)
	}
}

func TestNilClientPanics(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "toolredis: nil Redis client") {
			t.Fatalf("recover() = %v, want the toolredis panic", p)
		}
	}()
	toolredis.NewSpillStore(nil, nil)
}
