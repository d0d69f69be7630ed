package toolredis_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
)

// fault is one way Redis misbehaves while three replicas run calls on it.
type fault struct {
	name  string
	cfg   redistest.Config
	proxy bool // the replicas reach Redis through a proxy the fault uses
	// loses says the fault makes Redis lose what it kept: claims are then
	// refused for the claims' lifetime, after which the never-run calls run.
	loses bool
	// inject does it, and undoes it: when it returns, Redis is healthy.
	inject func(t *testing.T, srv *redistest.Server, p *redistest.Proxy, rdb *redis.Client)
}

// freeBound is how long after Redis is healthy again a call whose tool
// never ran may still be refused: the record stage's claim lease (10 s),
// which a claim the store could not confirm outlives by at most a store
// timeout (1 s here). The test allows more, as a hang check on a loaded
// machine, and logs what it took.
const freeBound = 11 * time.Second

// TestFaults runs a load of calls on three replicas sharing one Redis
// while Redis misbehaves as it does in production: killed and restarted
// with and without persistence, stopped for seconds, full at maxmemory,
// slow, and dropping the replies of commands that ran. Under each, over
// every call ID: no ID runs twice, no resumed approval runs twice, the
// tool's limit is never passed, every refusal says which case it is, and
// once Redis is healthy every ID whose tool never ran runs when made
// again, within freeBound (or, when Redis lost its data, once the claims'
// lifetime after the loss is past).
func TestFaults(t *testing.T) {
	t.Parallel()
	for _, f := range []fault{
		{name: "killed and restarted with persistence", inject: func(t *testing.T, srv *redistest.Server, _ *redistest.Proxy, _ *redis.Client) {
			srv.Kill()
			time.Sleep(time.Second)
			require.NoError(t, srv.Restart())
		}},
		{name: "killed and restarted without persistence", cfg: redistest.Config{Ephemeral: true}, loses: true,
			inject: func(t *testing.T, srv *redistest.Server, _ *redistest.Proxy, _ *redis.Client) {
				srv.Kill()
				time.Sleep(time.Second)
				require.NoError(t, srv.Restart())
			}},
		{name: "stopped for 5 s", inject: func(t *testing.T, srv *redistest.Server, _ *redistest.Proxy, _ *redis.Client) {
			require.NoError(t, srv.Freeze())
			time.Sleep(5 * time.Second)
			require.NoError(t, srv.Thaw())
		}},
		{name: "full at maxmemory with noeviction", cfg: redistest.Config{MaxMemory: "24mb"},
			inject: func(t *testing.T, _ *redistest.Server, _ *redistest.Proxy, rdb *redis.Client) {
				// Filled, then held at the bound for 2 s: writes are let
				// through while Redis is just under it, and refused once a
				// write (a claim, or a call's record) took it over.
				ctx := context.Background()
				var junk []string
				for i := 0; ; i++ { // most of the way, fast
					k := fmt.Sprint("junk-mb-", i)
					if err := rdb.Set(ctx, k, strings.Repeat("j", 1<<20), 0).Err(); err != nil {
						require.ErrorContains(t, err, "OOM")
						require.NoError(t, rdb.Del(ctx, junk[len(junk)-1]).Err())
						junk = junk[:len(junk)-1]
						break
					}
					junk = append(junk, k)
				}
				fill := func() {
					for {
						k := fmt.Sprint("junk-", len(junk))
						if err := rdb.Set(ctx, k, strings.Repeat("j", 16<<10), 0).Err(); err != nil {
							require.ErrorContains(t, err, "OOM")
							return
						}
						junk = append(junk, k)
					}
				}
				fill()
				for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
					time.Sleep(20 * time.Millisecond) // over the bound: writes refused
					require.NoError(t, rdb.Del(ctx, junk[len(junk)-1]).Err())
					junk = junk[:len(junk)-1]
					fill() // under it for a moment: some pass
				}
				require.NoError(t, rdb.Del(ctx, junk...).Err())
			}},
		{name: "300 ms of latency each way", proxy: true, inject: func(t *testing.T, _ *redistest.Server, p *redistest.Proxy, _ *redis.Client) {
			p.SetLatency(300 * time.Millisecond)
			time.Sleep(3 * time.Second)
			p.SetLatency(0)
		}},
		{name: "replies dropped after the command ran", proxy: true, inject: func(t *testing.T, _ *redistest.Server, p *redistest.Proxy, _ *redis.Client) {
			p.SetDrop(0.15)
			time.Sleep(3 * time.Second)
			p.SetDrop(0)
			t.Logf("%d replies dropped", p.Dropped())
		}},
	} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			runFault(t, f)
		})
	}
}

func runFault(t *testing.T, f fault) {
	srv := redistest.NewWith(t, f.cfg)
	direct := client(t, srv)
	addr := srv.Addr
	var p *redistest.Proxy
	if f.proxy {
		p = redistest.NewProxy(t, srv.Addr)
		addr = p.Addr
	}
	// What a replica's client is in production: go-redis's retries and
	// timeouts; the store's own timeout is a second.
	newClient := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	// Where Redis loses its data, records and claims live 4 s, so that
	// the test sees the refusals end; the options say so (ClaimLifetime).
	// Elsewhere records live an hour, the default.
	const lifetime = 4 * time.Second
	opts := &toolredis.Options{Namespace: namespace(), Timeout: time.Second}
	recordFor := time.Hour
	if f.loses {
		opts.ClaimLifetime, recordFor = lifetime, lifetime
	}
	l := newLedger()
	var agents []*agent
	for range 3 {
		agents = append(agents, newAgent(t, newClient(), opts, l, recordFor))
	}
	session := func(i int) string { return fmt.Sprint("conv-", i%6) }
	id := func(i int) string { return fmt.Sprint("call-", i) }
	if f.cfg.Ephemeral { // not trusted until the lifetime after it started
		for i := range 6 {
			require.Eventually(t, func() bool { return outcome(agents[0].charge(session(i), "warm-up", 0)) == "ran" }, 20*time.Second, 100*time.Millisecond)
		}
	}

	// The load: calls of six sessions, each sent to one replica and, for
	// half, a twin at once to another; deferred approvals resumed on one
	// replica and replayed on another. The fault comes in the middle.
	const n = 60
	var seen tally
	// Resumed approvals are left out where Redis loses its data: their
	// claims live a minute at least (the approval's timeout and a
	// minute), and the refusals after the loss would last as long
	// (TestUsedApprovalIsNotUsedAgainAfterARestart checks them).
	approvals := n / 6
	if f.loses {
		approvals = 0
	}
	pendings := make([]*tool.PendingApproval, n)
	for i := range approvals {
		res := agents[0].transfer(session(i), fmt.Sprint("t-", i), fmt.Sprint("t-", i), nil)
		require.Equal(t, tool.StatusAwaitingApproval, res.Status, res.Text())
		pendings[i] = res.Pending
	}
	var wg sync.WaitGroup
	faultAt := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-faultAt
		f.inject(t, srv, p, direct)
	}()
	for i := range n {
		if i == n/3 {
			close(faultAt)
		}
		for k, a := range []*agent{agents[i%3], agents[(i+1)%3]} {
			if k == 1 && i%2 == 1 {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := a.charge(session(i), id(i), 20<<10)
				o := checkRefusal(t, "during the fault", res)
				seen.add(o)
				switch o {
				case "record", "in progress elsewhere", "ran, result not kept":
					if i%2 == 1 { // no twin: no other call has this ID
						t.Errorf("call %d, made once, is answered %q: %s", i, o, res.Text())
					}
				}
			}()
		}
		if i < approvals {
			wg.Add(2)
			for _, a := range []*agent{agents[1], agents[2]} { // a resume and its replay
				go func() {
					defer wg.Done()
					// Each under a call ID of its own: a replay is not answered from a record.
					res := a.transfer(session(i), fmt.Sprint("t-", i, "-", a == agents[1]), fmt.Sprint("t-", i), pendings[i])
					seen.add(checkRefusal(t, "a resumed approval", res))
				}()
			}
		}
		time.Sleep(30 * time.Millisecond)
	}
	wg.Wait()
	healed := time.Now()
	t.Logf("during the fault: %v", &seen)

	// Redis is healthy again. A call whose tool ran is never run again;
	// one whose tool never ran runs when made again (after the claims'
	// lifetime, when Redis lost its data).
	var again tally
	for i := range n {
		if l.count(session(i)+"/"+id(i)) == 0 {
			continue
		}
		again.add(checkRefusal(t, "a call that ran, made again", agents[(i+2)%3].charge(session(i), id(i), 20<<10)))
	}
	var slowest time.Duration
	for i := range n {
		if l.count(session(i)+"/"+id(i)) != 0 {
			continue
		}
		for {
			res := agents[(i+2)%3].charge(session(i), id(i), 20<<10)
			o := checkRefusal(t, "a call that never ran, made again", res)

			again.add(o)
			if ran(o) {
				break
			}
			if o == "record" || o == "ran, result not kept" {
				t.Errorf("call %d: its tool never ran, and it is answered %q", i, o)
				break
			}
			limit := 3 * freeBound // a hang check on a loaded machine
			if f.loses {
				limit += lifetime
			}
			if time.Since(healed) > limit {
				t.Errorf("call %d: its tool never ran, and %v after Redis was healthy it is still refused: %q", i, time.Since(healed).Round(time.Second), o)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		slowest = max(slowest, time.Since(healed))
	}
	t.Logf("after: %v; the last never-run call ran %v after Redis was healthy again", &again, slowest.Round(100*time.Millisecond))
	assert.Empty(t, l.twice(), "ran twice")
	assert.LessOrEqual(t, l.maxInFlight, chargeLimit, "more charges at once than the limit")
}
