package toolredis_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

// TestOnARedisCluster runs every store on a real Redis Cluster of three
// masters, each with a replica, started from plain redis-server: the
// stores' contracts; then three replicas of an agent, each with its own
// cluster client, whose sessions' keys span the masters; then the same
// through a failover by hand and through a master killed.
func TestOnARedisCluster(t *testing.T) {
	t.Parallel()
	cl := redistest.NewCluster(t, 3, 1)
	newClient := func(t *testing.T) *redis.ClusterClient {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}

	t.Run("the stores' contracts", func(t *testing.T) {
		rdb := newClient(t)
		opts := func() *toolredis.Options { return &toolredis.Options{Namespace: namespace()} }
		t.Run("records", func(t *testing.T) {
			tooltest.TestRecordStore(t, func(*testing.T) tool.RecordStore { return toolredis.NewRecordStore(rdb, opts()) })
		})
		t.Run("approvals", func(t *testing.T) {
			tooltest.TestApprovalStore(t, func(*testing.T) tool.ApprovalStore { return toolredis.NewApprovalStore(rdb, opts()) })
		})
		t.Run("spills", func(t *testing.T) {
			tooltest.TestSpillStore(t, func(*testing.T) tool.SpillStore { return toolredis.NewSpillStore(rdb, opts()) })
		})
		t.Run("limits", func(t *testing.T) {
			tooltest.TestLimiter(t, func(*testing.T) tool.Limiter { return toolredis.NewLimiter(rdb, opts()) })
		})
		t.Run("pending approvals", func(t *testing.T) {
			tooltest.TestPendingApprovalStore(t, func(*testing.T) tool.PendingApprovalStore {
				return toolredis.NewPendingApprovalStore(rdb, opts())
			})
		})
	})

	t.Run("three replicas, sessions across the masters", func(t *testing.T) {
		ns := namespace()
		opts := &toolredis.Options{Namespace: ns}
		l := newLedger()
		var agents []*agent
		for range 3 {
			agents = append(agents, newAgent(t, newClient(t), opts, l, time.Hour))
		}
		const sessions = 24
		ranOnce(t, agents, l, sessions, "before")

		// Each master holds some of them.
		rdb := newClient(t)
		var mu sync.Mutex
		held := map[string]int{}
		require.NoError(t, rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			ks, err := m.Keys(ctx, ns+":*").Result()
			mu.Lock()
			held[m.Options().Addr] = len(ks)
			mu.Unlock()
			return err
		}))
		require.Len(t, held, 3)
		for addr, n := range held {
			assert.Positive(t, n, "master %s holds none of the sessions' keys", addr)
		}

		// Output cut on one replica is read on another, and a pending
		// approval offered on one is answered on another.
		res := agents[0].charge("conv-spill", "long", 200<<10)
		tooltest.WantOK(t, res)
		m := cursorRE.FindStringSubmatch(res.Text())
		require.NotNil(t, m, "no way to read on: %.300s", res.Text())
		read := agents[1].reg.Call(context.Background(), struct{}{}, tool.Request{ID: "read", Name: tool.ReadOutputTool, Args: []byte(`{"cursor":"` + m[1] + `"}`), Session: "conv-spill"})
		tooltest.WantOK(t, read)
		assert.Contains(t, read.Text(), "xxxxxxxx")
		pa, pb := toolredis.NewPendingApprovalStore(newClient(t), opts), toolredis.NewPendingApprovalStore(newClient(t), opts)
		p := &tool.PendingApproval{State: "state-1", Session: "conv-pending", Request: tool.ApprovalRequest{Tool: "transfer", Session: "conv-pending"}, Expires: time.Now().Add(time.Hour)}
		require.NoError(t, pa.Offer(context.Background(), p, time.Now().Add(time.Hour)))
		listed, err := pb.List(context.Background(), "conv-pending")
		require.NoError(t, err)
		require.Len(t, listed, 1)
		ok, err := pb.Answer(context.Background(), "state-1", tool.Decision{Kind: tool.DecisionAllowOnce})
		require.NoError(t, err)
		assert.True(t, ok)
		ok, err = pa.Answer(context.Background(), "state-1", tool.Decision{Kind: tool.DecisionDeny})
		require.NoError(t, err)
		assert.False(t, ok, "answered twice")

		t.Run("through a failover by hand", func(t *testing.T) {
			master, err := rdb.MasterForKey(context.Background(), "{"+"000"+"}")
			require.NoError(t, err)
			_, err = cl.Failover(master.Options().Addr)
			require.NoError(t, err)
			// The replica caught up before it took over: every record is
			// there. Redis cannot say so, though: by default the stores take
			// a replica that took over to have lost the last writes, and
			// refuse claims on its shard for the claims' lifetime.
			ranOnce(t, agents, l, sessions, "after the failover")
		})
		t.Run("through a master killed", func(t *testing.T) {
			master, err := rdb.MasterForKey(context.Background(), "{"+"111"+"}")
			require.NoError(t, err)
			cl.Node(master.Options().Addr).Kill()
			require.NoError(t, cl.WaitReady(60*time.Second))
			ranOnce(t, agents, l, sessions, "after a master was killed")
		})
		assert.Empty(t, l.twice(), "ran twice")
	})
}

// ranOnce sends, in each of n sessions, a new call and its twin to two
// replicas at once, then the calls of earlier rounds again to a third: no
// call runs twice, every call that ran is answered from its record or
// refused saying which case it is, and a refusal of a new call says the
// store may have lost data (a shard that failed over) or that it is not
// run. It also resumes a deferred approval on one replica and replays it
// on another: it runs once.
func ranOnce(t *testing.T, agents []*agent, l *ledger, n int, round string) {
	t.Helper()
	var seen tally
	var wg sync.WaitGroup
	for i := range n {
		session := fmt.Sprint("conv-", i)
		for k := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := agents[(i+k)%3].charge(session, round, 1<<10)
				seen.add(checkRefusal(t, round, res))
			}()
		}
	}
	wg.Wait()
	for i := range n {
		session := fmt.Sprint("conv-", i)
		for _, earlier := range []string{"before", "after the failover", "after a master was killed"} {
			if l.count(session+"/"+earlier) == 0 {
				continue
			}
			o := checkRefusal(t, round+", "+earlier+" again", agents[(i+2)%3].charge(session, earlier, 1<<10))
			seen.add("again: " + o)
			assert.NotEqual(t, "ran", o, "%s/%s ran again %s", session, earlier, round)
		}
		key := session + "/t-" + round
		pending := agents[0].transfer(session, "t-"+round, key, nil)
		if pending.Status == tool.StatusAwaitingApproval {
			a := agents[1].transfer(session, "t-"+round+"-a", key, pending.Pending)
			b := agents[2].transfer(session, "t-"+round+"-b", key, pending.Pending)
			seen.add("resumed: " + checkRefusal(t, round, a))
			seen.add("replayed: " + checkRefusal(t, round, b))
		} else {
			seen.add("deferred: " + checkRefusal(t, round, pending))
		}
	}
	t.Logf("%s: %v", round, &seen)
	assert.Empty(t, l.twice(), "ran twice")
}
