package redistest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool/toolredis/redistest"
)

func TestServerStartsAnswersAndStops(t *testing.T) {
	s := redistest.New(t)
	if err := s.Ping(10 * time.Second); err != nil { // generous: a loaded machine may be slow to answer
		t.Fatalf("a started server does not answer PING: %v\n%s", err, s.Output())
	}
	if err := s.Freeze(); err != nil {
		t.Skip(err)
	}
	if err := s.Ping(200 * time.Millisecond); err == nil {
		t.Fatal("a frozen server answered PING")
	}
	if err := s.Thaw(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(10 * time.Second); err != nil { // generous: a loaded machine may be slow to answer
		t.Fatalf("a thawed server does not answer PING: %v", err)
	}
	s.Kill()
	if err := s.Ping(200 * time.Millisecond); err == nil {
		t.Fatal("a killed server answered PING")
	}
	s.Close() // after Kill, and again in the cleanup: no effect, no hang
}

func TestServersDoNotShareAPort(t *testing.T) {
	a, b := redistest.New(t), redistest.New(t)
	if a.Addr == b.Addr {
		t.Fatalf("two servers on %s", a.Addr)
	}
}

// roundTrip sets key on s and reads it back after a restart.
func roundTrip(t *testing.T, s *redistest.Server) (string, error) {
	t.Helper()
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer c.Close()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	return c.Get(ctx, "k").Result()
}

func TestRestartKeepsWhatPersistenceKept(t *testing.T) {
	if v, err := roundTrip(t, redistest.New(t)); err != nil || v != "v" {
		t.Errorf("a durable server lost a write across a restart: %q, %v", v, err)
	}
	if v, err := roundTrip(t, redistest.NewWith(t, redistest.Config{Ephemeral: true})); !errors.Is(err, redis.Nil) {
		t.Errorf("an ephemeral server kept a write across a restart: %q, %v", v, err)
	}
}

func TestProxyDropsAnswersOfCommandsThatRan(t *testing.T) {
	s := redistest.New(t)
	p := redistest.NewProxy(t, s.Addr)
	ctx := context.Background()
	direct := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer direct.Close()
	c := redis.NewClient(&redis.Options{Addr: p.Addr, MaxRetries: -1})
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	p.DropNext(1)
	if err := c.Incr(ctx, "n").Err(); err == nil {
		t.Fatal("INCR through a proxy that drops its answer succeeded")
	}
	if n, err := direct.Get(ctx, "n").Int(); err != nil || n != 1 || p.Dropped() != 1 {
		t.Fatalf("after a dropped answer, n = %d, %v (dropped %d); want the command run once", n, err, p.Dropped())
	}
	p.SetLatency(50 * time.Millisecond)
	start := time.Now()
	if err := c.Incr(ctx, "n").Err(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("a round trip with 50 ms each way took %v", took)
	}
}

func TestClusterFailsOverByHand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts six servers")
	}
	c := redistest.NewCluster(t, 3, 1)
	ctx := context.Background()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	defer rdb.Close()
	for i := range 100 {
		if err := rdb.Set(ctx, fmt.Sprint("k", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	master, err := rdb.MasterForKey(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	old := master.Options().Addr
	next, err := c.Failover(old)
	if err != nil {
		t.Fatal(err)
	}
	if next.Addr == old {
		t.Fatal("the same node is master")
	}
	for i := range 100 {
		if n, err := rdb.Get(ctx, fmt.Sprint("k", i)).Int(); err != nil || n != i {
			t.Fatalf("after the failover, k%d = %d, %v", i, n, err)
		}
	}
}
