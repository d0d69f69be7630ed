package toolredis_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

// inSession gives every id a session, as the registry's ids have, so that
// the contract is checked through a session's bound too.
type inSession struct{ tool.SpillStore }

func (s inSession) Put(ctx context.Context, id, data string, expires time.Time) error {
	return s.SpillStore.Put(ctx, "5e55104d16e57a11."+id, data, expires)
}

func (s inSession) Get(ctx context.Context, id string, off, n int) (string, error) {
	return s.SpillStore.Get(ctx, "5e55104d16e57a11."+id, off, n)
}

func TestSpillStoreConformsWithSessions(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	tooltest.TestSpillStore(t, func(*testing.T) tool.SpillStore {
		return inSession{toolredis.NewSpillStore(rdb, &toolredis.Options{Namespace: namespace()})}
	})
}

// sessionBound is the MaxSessionSpillBytes of these tests: three entries
// of 3,000 bytes fit (each costs 3,256 with its keys), a fourth does not.
const sessionBound = 10_000

func TestSpillBoundsEachSession(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	entry := strings.Repeat("x", 3000)
	newStore := func() (*toolredis.SpillStore, string) {
		ns := namespace()
		return toolredis.NewSpillStore(rdb, &toolredis.Options{Namespace: ns, MaxSessionSpillBytes: sessionBound}), ns
	}

	tests := []struct {
		name string
		// put runs the puts; kept and gone name the ids that must and must
		// not be read back after them.
		put        func(t *testing.T, s *toolredis.SpillStore)
		kept, gone []string
	}{
		{
			name: "a session's flood drops its own oldest entries, not another's",
			put: func(t *testing.T, s *toolredis.SpillStore) {
				put(t, s, "b.1", entry, later)
				for i := 1; i <= 5; i++ {
					put(t, s, fmt.Sprintf("a.%d", i), entry, later)
				}
			},
			kept: []string{"b.1", "a.3", "a.4", "a.5"},
			gone: []string{"a.1", "a.2"},
		},
		{
			name: "an entry put again counts once",
			put: func(t *testing.T, s *toolredis.SpillStore) {
				put(t, s, "a.1", entry, later)
				put(t, s, "a.1", entry, later)
				put(t, s, "a.1", entry, later)
				put(t, s, "a.2", entry, later)
				put(t, s, "a.3", entry, later)
			},
			kept: []string{"a.1", "a.2", "a.3"},
		},
		{
			name: "an expired entry leaves its room",
			put: func(t *testing.T, s *toolredis.SpillStore) {
				put(t, s, "a.1", entry+entry, time.Now().Add(50*time.Millisecond))
				time.Sleep(150 * time.Millisecond) // Redis's clock; only "past" matters
				put(t, s, "a.2", entry, later)
				put(t, s, "a.3", entry, later)
				put(t, s, "a.4", entry, later)
			},
			kept: []string{"a.2", "a.3", "a.4"},
			gone: []string{"a.1"},
		},
		{
			name: "ids without a session are not bounded together",
			put: func(t *testing.T, s *toolredis.SpillStore) {
				for i := 1; i <= 5; i++ {
					put(t, s, fmt.Sprintf("plain-%d", i), entry, later)
				}
			},
			kept: []string{"plain-1", "plain-2", "plain-3", "plain-4", "plain-5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ns := newStore()
			tt.put(t, s)
			for _, id := range tt.kept {
				if got, err := s.Get(ctx, id, 0, 10); err != nil || got != "xxxxxxxxxx" {
					t.Errorf("Get(%s) = %q, %v; want it kept", id, got, err)
				}
			}
			for _, id := range tt.gone {
				if _, err := s.Get(ctx, id, 0, 10); !errors.Is(err, tool.ErrSpillGone) {
					t.Errorf("Get(%s): %v; want it dropped (tool.ErrSpillGone)", id, err)
				}
			}
			expireWithTheirEntries(t, rdb, ns)
		})
	}
}

// expireWithTheirEntries checks that every key under ns expires, none
// later than an hour from now: a session's list and sizes go when its
// last entry does.
func expireWithTheirEntries(t *testing.T, rdb *redis.Client, ns string) {
	t.Helper()
	for _, k := range keys(t, rdb, ns) {
		ttl, err := rdb.PTTL(context.Background(), k).Result()
		if err != nil || ttl <= 0 || ttl > time.Hour {
			t.Errorf("PTTL %s = %v, %v; want at most the hour its entries are kept", k, ttl, err)
		}
	}
}

func TestSpillRefusesAnEntryOverTheSessionBound(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	rdb := client(t, srv)
	ns := namespace()
	s := toolredis.NewSpillStore(rdb, &toolredis.Options{Namespace: ns, MaxSessionSpillBytes: sessionBound})
	err := s.Put(context.Background(), "a.1", strings.Repeat("x", sessionBound), time.Now().Add(time.Hour))
	if err == nil || !strings.Contains(err.Error(), "MaxSessionSpillBytes") {
		t.Fatalf("Put of more than a session may hold: %v, want an error naming the option", err)
	}
	if ks := keys(t, rdb, ns); len(ks) != 0 {
		t.Fatalf("a refused entry was written: %q", ks)
	}
}

// Replicas putting into one session at once never hold it over its bound:
// the check and the put are one script.
func TestSpillSessionBoundHoldsUnderConcurrentPuts(t *testing.T) {
	t.Parallel() // each test has a server of its own; most of their time is spent waiting
	srv := redistest.New(t)
	ctx := context.Background()
	ns := namespace()
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() { // a replica: a client and a store of its own
			defer wg.Done()
			s := toolredis.NewSpillStore(client(t, srv), &toolredis.Options{Namespace: ns, MaxSessionSpillBytes: sessionBound})
			for i := range 25 {
				if err := s.Put(ctx, fmt.Sprintf("a.%d-%d", r, i), strings.Repeat("x", 1000), time.Now().Add(time.Hour)); err != nil {
					t.Errorf("Put: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	s := toolredis.NewSpillStore(client(t, srv), &toolredis.Options{Namespace: ns, MaxSessionSpillBytes: sessionBound})
	held := 0
	for r := range 4 {
		for i := range 25 {
			if _, err := s.Get(ctx, fmt.Sprintf("a.%d-%d", r, i), 0, 1); err == nil {
				held += 1000 + 256
			}
		}
	}
	if held == 0 || held > sessionBound {
		t.Fatalf("the session holds %d bytes after 100 puts of 1,000 bytes from four replicas; want some, at most %d", held, sessionBound)
	}
}

func put(t *testing.T, s *toolredis.SpillStore, id, data string, expires time.Time) {
	t.Helper()
	if err := s.Put(context.Background(), id, data, expires); err != nil {
		t.Fatalf("Put(%s): %v", id, err)
	}
}
