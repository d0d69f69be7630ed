package redistest

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster the test started from plain redis-server
// processes, as one is set up by hand (redis-server --cluster-enabled yes,
// then redis-cli --cluster create): masters that share the hash slots,
// each with its replicas. Every node is a [Server], which a test may kill,
// freeze or restart.
type Cluster struct {
	// Nodes are every node, the first ones the masters the cluster was
	// created with.
	Nodes []*Server
}

// NewCluster starts a cluster of masters, each with replicas, for the
// test, and stops it when the test ends. It skips the test (or fails it,
// with [RequireEnv] set) when redis-server or redis-cli cannot be run.
// Nodes mark each other failed after a second without an answer, so a
// replica takes over a killed master within seconds.
func NewCluster(t testing.TB, masters, replicas int) *Cluster {
	t.Helper()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		Unavailable(t, errors.New("no redis-cli on PATH"))
	}
	c := &Cluster{}
	for range masters * (1 + replicas) {
		c.Nodes = append(c.Nodes, NewWith(t, Config{Args: []string{"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1000"}}))
	}
	args := []string{"--cluster", "create"}
	args = append(args, c.Addrs()...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	if err := c.WaitReady(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	return c
}

// Addrs returns the addresses of every node, to seed a cluster client.
func (c *Cluster) Addrs() []string {
	var a []string
	for _, n := range c.Nodes {
		a = append(a, n.Addr)
	}
	return a
}

// WaitReady waits until every node that answers says the cluster is
// whole (cluster_state:ok) and knows a master for every slot.
func (c *Cluster) WaitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := c.ready()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *Cluster) ready() error {
	ctx := context.Background()
	for _, n := range c.Nodes {
		if n.Ping(time.Second) != nil {
			continue // down: the test killed it
		}
		rdb := redis.NewClient(&redis.Options{Addr: n.Addr, MaxRetries: -1})
		info, err := rdb.ClusterInfo(ctx).Result()
		rdb.Close()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_ok:16384") {
			return fmt.Errorf("redistest: node %s is not ready:\n%s", n.Addr, info)
		}
	}
	return nil
}

// Node returns the node listening on addr, or nil.
func (c *Cluster) Node(addr string) *Server {
	for _, n := range c.Nodes {
		if n.Addr == addr {
			return n
		}
	}
	return nil
}

// Failover has a replica of the master at addr take its place by hand
// (CLUSTER FAILOVER: the replica first catches up, so nothing is lost),
// and waits until the cluster is whole again. It returns the new master.
func (c *Cluster) Failover(addr string) (*Server, error) {
	replica, err := c.replicaOf(addr)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: replica.Addr, MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.Do(ctx, "CLUSTER", "FAILOVER").Err(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		role, err := rdb.Do(ctx, "ROLE").Slice()
		if err == nil && len(role) > 0 && role[0] == "master" {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("redistest: %s did not take over from %s", replica.Addr, addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return replica, c.WaitReady(30 * time.Second)
}

// replicaOf returns a node that replicates the master at addr.
func (c *Cluster) replicaOf(addr string) (*Server, error) {
	ctx := context.Background()
	for _, n := range c.Nodes {
		if n.Addr == addr || n.Ping(time.Second) != nil {
			continue
		}
		rdb := redis.NewClient(&redis.Options{Addr: n.Addr, MaxRetries: -1})
		role, err := rdb.Do(ctx, "ROLE").Slice()
		rdb.Close()
		if err == nil && len(role) >= 3 && role[0] == "slave" && fmt.Sprintf("%v:%v", role[1], role[2]) == addr {
			return n, nil
		}
	}
	return nil, fmt.Errorf("redistest: no replica of %s", addr)
}
