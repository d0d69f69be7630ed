package toolredis

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// This file is how a store finds out that Redis may have lost what the
// stores kept there, so that a claim it lost (a call's, or a resumed
// approval's) is not taken for one never made. Any store whose grant must
// not be made twice uses it the same way (the record store's claims, the
// approval store's one-time claims; a store of tasks would too):
//
//   - its keys carry the hash tag of a bucket (bucketOf), so that one
//     script reaches the bucket's marker on a Redis Cluster, where it lives
//     in the same slot;
//   - its granting script starts with luaGuard and calls
//     guard(marker, ARGV[n]) before it grants anything, returning what
//     guard returns when that is not nil;
//   - its Go side passes g.arg() for ARGV[n], and hands what the script
//     returned to g.fix, which establishes the marker again when it is
//     missing or stale and says whether to run the script once more, or
//     gives the error to return (wrapping tool.ErrStoreLostData while
//     Redis is not trusted);
//   - it calls g.lived with the expiry of every claim it keeps, so the
//     time claims are refused after a loss covers the longest of them.
//
// The marker of a bucket is a hash with no expiry: the server run it was
// written under (run_id, which changes with every start of a server, and
// differs between a master and the replica that takes over), the count of
// keys the server evicted then (evicted_keys), and the time before which
// nothing granted can be trusted. A granting script compares them with
// the server's own INFO: a marker missing (the server restarted without
// its data, was flushed, or evicted it), written under another run (the
// server restarted, or another took over), or an eviction since, means
// the bucket may have lost claims, and the script grants nothing until
// the Go side has decided for how long, by establish.

// Durability says how far the stores take Redis to keep what it
// acknowledged, which decides how they treat a Redis that restarted or
// failed over ([Options.Durability]).
type Durability uint8

const (
	// DurabilityChecked asks each server, when it is found restarted or
	// new, whether it keeps every write it acknowledged across a restart
	// (CONFIG GET: appendonly yes and appendfsync always). One that does
	// is trusted across its restarts. One that does not, or cannot be
	// asked (CONFIG refused), and any replica that took over (Redis
	// replicates asynchronously, so it may lack the last writes), is taken
	// to have lost what it held: claims are refused until
	// [Options.ClaimLifetime] after the loss (for a restart, after the
	// server started). The default.
	DurabilityChecked Durability = iota
	// DurabilityDurable is the host's word that no server loses a write it
	// acknowledged, through restarts and failovers (persistence with fsync
	// always, failovers only by hand once the replica caught up, or a
	// service that promises as much): the stores do not ask. A marker gone
	// while this process ran (a flush, an eviction) still counts as a
	// loss.
	DurabilityDurable
	// DurabilityLossAccepted is the host's word that it accepts what a
	// Redis that lost data means: a call that ran may run again, a used
	// approval be used again. The stores neither check nor refuse on that
	// account. For tests, and for a Redis that is only a cache.
	DurabilityLossAccepted
)

// DefaultClaimLifetime is the longest a claim is taken to live when
// Options leave ClaimLifetime unset: the registry's default RecordFor.
const DefaultClaimLifetime = time.Hour

// guardBuckets is how many buckets sessions are spread over, each with
// its marker and its slot on a Redis Cluster: enough to spread a session's
// keys over a cluster of many masters, few enough that the markers cost
// nothing.
const guardBuckets = 1024

// bucketOf returns the bucket of session.
func bucketOf(session string) int {
	s := sha256.Sum256([]byte(session))
	return int(binary.BigEndian.Uint16(s[:2])) % guardBuckets
}

// tag is the hash tag of bucket b: keys that carry it are in one slot.
func tag(b int) string { return "{" + strconv.FormatInt(int64(0x1000+b), 16)[1:] + "}" }

// guard finds out whether Redis may have lost what a store kept there.
// It is safe for concurrent use.
type guard struct {
	c *config
	*memory
}

// memory is what this process knows of a namespace's markers on one
// client, which every store of them shares (guardMemory): the longest
// lifetime of a claim any of them kept, so that after a loss the claims of
// all are refused for as long as any could matter; and the buckets whose
// marker it saw, so that a marker gone is known to be lost.
type memory struct {
	longest atomic.Int64 // ms
	seen    [guardBuckets]atomic.Bool
}

// memories holds the memory of each client and namespace.
var memories sync.Map // of memoryKey to *memory

type memoryKey struct {
	client    redis.UniversalClient
	namespace string
}

// newGuard returns the guard of a store with configuration c.
func newGuard(c *config) guard {
	m, _ := memories.LoadOrStore(memoryKey{c.client, c.namespace}, &memory{})
	return guard{c: c, memory: m.(*memory)}
}

// marker is the key of bucket b's marker.
func (g *guard) marker(b int) string { return g.c.namespace + ":guard:" + tag(b) }

// arg is the guard's argument to a granting script: "" when the host
// accepts lost data, so that the script does not check.
func (g *guard) arg() string {
	if g.c.durability == DurabilityLossAccepted {
		return ""
	}
	return "1"
}

// lived notes that a claim kept until expires: after a loss, claims are
// refused for at least the longest such lifetime.
func (g *guard) lived(expires time.Time) {
	d := time.Until(expires).Milliseconds()
	for {
		old := g.longest.Load()
		if d <= old || g.longest.CompareAndSwap(old, d) {
			return
		}
	}
}

// hold is how long claims are refused after a loss.
func (g *guard) hold() time.Duration {
	return max(g.c.claimLifetime, time.Duration(g.longest.Load())*time.Millisecond)
}

// fix handles what a granting script of bucket b answered when guard
// stopped it (reason): it establishes the marker and reports true when
// the script should run again, or returns the error to give.
func (g *guard) fix(ctx context.Context, b int, reason string) (bool, error) {
	if until, ok := strings.CutPrefix(reason, "untrusted "); ok {
		return false, g.untrusted(until)
	}
	switch reason {
	case "absent", "restarted", "evicted":
	default:
		return false, fmt.Errorf("the guard answered %q", reason)
	}
	durable := "no"
	switch g.c.durability {
	case DurabilityDurable:
		durable = "vouched"
	case DurabilityChecked:
		if ok, err := persists(ctx, g.c.client, g.marker(b)); err == nil && ok {
			durable = "yes"
		}
	}
	seen := ""
	if g.seen[b].Load() {
		seen = "1"
	}
	if err := establishScript.Run(ctx, g.c.client, []string{g.marker(b)}, durable, seen, g.hold().Milliseconds()).Err(); err != nil {
		return false, err
	}
	g.seen[b].Store(true)
	return true, nil
}

// granted notes that bucket b's marker was found as it should be.
func (g *guard) granted(b int) { g.seen[b].Store(true) }

// untrusted is the error of a grant refused until (ms since the epoch,
// and why, as the marker keeps them).
func (g *guard) untrusted(until string) error {
	ms, why, _ := strings.Cut(until, " ")
	n, _ := strconv.ParseInt(ms, 10, 64)
	t := time.UnixMilli(n)
	return fmt.Errorf("toolredis: Redis may have lost claims it held (%s), so none is granted for another %v, until %s (Options.ClaimLifetime after the loss; see Options.Durability): %w",
		why, time.Until(t).Round(time.Second), t.UTC().Format(time.RFC3339), tool.ErrStoreLostData)
}

// persists reports whether the server that holds key keeps every write it
// acknowledged across a restart: appendonly yes, appendfsync always. A
// server that cannot be asked does not, as far as the stores know.
func persists(ctx context.Context, c redis.UniversalClient, key string) (bool, error) {
	ask := func(n *redis.Client) (bool, error) {
		m, err := n.ConfigGet(ctx, "append*").Result()
		if err != nil {
			return false, err
		}
		return m["appendonly"] == "yes" && m["appendfsync"] == "always", nil
	}
	switch c := c.(type) {
	case *redis.Client:
		return ask(c)
	case *redis.ClusterClient:
		n, err := c.MasterForKey(ctx, key)
		if err != nil {
			return false, err
		}
		return ask(n)
	case *redis.Ring:
		var not atomic.Bool // ForEachShard asks them at once
		err := c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error {
			ok, err := ask(n)
			if !ok {
				not.Store(true)
			}
			return err
		})
		return !not.Load() && err == nil, err
	}
	return false, errors.New("a client of an unknown kind cannot be asked")
}

// luaGuard defines guard(marker, on) for a granting script: nil when
// claims may be granted; otherwise why not, for guard.fix: "absent",
// "restarted", "evicted", or "untrusted <ms> <why>" while the marker says
// claims made before it cannot be trusted. With on empty it checks
// nothing. It reads the server's INFO, which costs a few microseconds, and
// TIME: the script must replicate its effects (the default since Redis 7).
const luaGuard = `
local function guard(marker, on)
  if on ~= '1' then return nil end
  local info = redis.call('INFO', 'server', 'stats')
  local run = string.match(info, 'run_id:(%x+)')
  local evicted = string.match(info, 'evicted_keys:(%d+)')
  local m = redis.call('HMGET', marker, 'run', 'evicted', 'trust', 'why')
  if not m[1] then return 'absent' end
  if m[1] ~= run then return 'restarted' end
  if m[2] ~= evicted then return 'evicted' end
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if tonumber(m[3]) > now then return 'untrusted ' .. m[3] .. ' ' .. (m[4] or '') end
  return nil
end
`

// establishScript writes the marker KEYS[1] for the server that holds it:
// its run, its evicted count, and the time until which nothing granted
// can be trusted, the later of the marker's and the loss's time plus
// ARGV[3] ms. ARGV[1] says whether the server keeps what it acknowledged:
// "yes" across its restarts (it said so), "vouched" across restarts and
// failovers (the host said so), "no". ARGV[2] is "1" when this process
// saw the marker before. The loss's time:
//
//   - no marker, none seen: a replica took over (now, unless the host
//     vouched), else a new Redis if it keeps what it acknowledged, else it
//     restarted without its data (when it started);
//   - no marker, one seen: flushed or evicted (now);
//   - another run: nothing lost if it keeps what it acknowledged (and,
//     for a replica that took over, the host vouched), else when it
//     started, or now for a replica that took over;
//   - keys evicted since: now.
var establishScript = redis.NewScript(`
redis.replicate_commands()
local info = redis.call('INFO', 'server', 'stats', 'replication')
local run = string.match(info, 'run_id:(%x+)')
local evicted = string.match(info, 'evicted_keys:(%d+)')
local uptime = tonumber(string.match(info, 'uptime_in_seconds:(%d+)'))
local promoted = string.match(info, 'second_repl_offset:(%-?%d+)') ~= '-1'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local started = now - uptime * 1000
local m = redis.call('HMGET', KEYS[1], 'run', 'evicted', 'trust', 'why')
local trust, why = tonumber(m[3] or '0'), m[4] or ''
local durable, seen, hold = ARGV[1], ARGV[2] == '1', tonumber(ARGV[3])
local lost, what
if not m[1] then
  if seen then lost, what = now, 'its data is gone: restarted without persistence, flushed or evicted'
  elseif promoted and durable ~= 'vouched' then lost, what = now, 'a replica took over'
  elseif durable == 'no' then lost, what = started, 'it started without persistence that keeps every write, and may have lost what it held before'
  end
elseif m[1] ~= run then
  if promoted and durable ~= 'vouched' then lost, what = now, 'a replica took over'
  elseif durable == 'no' then lost, what = started, 'it restarted without persistence that keeps every write'
  end
elseif m[2] ~= evicted then
  lost, what = now, 'it evicted keys'
end
if lost and lost + hold > trust then trust, why = lost + hold, what end
redis.call('HSET', KEYS[1], 'run', run, 'evicted', evicted, 'trust', trust, 'why', why)
return trust
`)
