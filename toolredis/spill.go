package toolredis

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// SpillStore is a [tool.SpillStore] on Redis: the output a result's cap cut
// is kept under a key of its own until it expires, and read_output reads it
// back a range at a time (GETRANGE), so that a part is never more than what
// was asked for, whatever the entry's size. Any replica with the same
// client target and [Options.Namespace] reads what another kept.
//
// One session's entries hold at most [Options.MaxSessionSpillBytes]
// together: past it, that session's oldest entries are dropped, so that a
// session whose model asks for long results again and again fills neither
// Redis nor the other sessions' share of it. The session is the part of an
// id before its first dot, as the registry makes ids; an id without a dot
// is bounded only by [Options.MaxSpillBytes] and its expiry.
//
// A SpillStore is safe for concurrent use.
type SpillStore struct {
	c config
}

// spillEntryCost is what one entry counts against its session's bound
// besides its data: its key, its place in the session's list and sizes,
// and Redis's overhead for each, rounded up. It keeps a session of many
// small entries bounded too.
const spillEntryCost = 256

// NewSpillStore returns a spill store on client c (a *redis.Client, a
// cluster or a ring). opts may be nil. It panics if c is nil.
func NewSpillStore(c redis.UniversalClient, opts *Options) *SpillStore {
	return &SpillStore{c: newConfig(c, opts)}
}

// Put implements [tool.SpillStore]: SET with an absolute expiry (PXAT). An
// expiry already past removes what id held. Data over
// [Options.MaxSpillBytes] or over [Options.MaxSessionSpillBytes] is refused
// before anything is sent. An entry of a session is kept, and its
// session's oldest entries dropped to make room, in one script, so that
// replicas putting at once never hold the session over its bound.
func (s *SpillStore) Put(ctx context.Context, id, data string, expires time.Time) error {
	if len(data) > s.c.maxSpill {
		return fmt.Errorf("toolredis: %d bytes of output are over the %d bytes one spilled entry may hold", len(data), s.c.maxSpill)
	}
	k := s.keys(id)
	if !k.bounded {
		_, err := run(ctx, &s.c, "spill put", func(ctx context.Context) (struct{}, error) {
			return struct{}{}, set(ctx, s.c.client, k.entry, data, expires, false)
		})
		return err
	}
	cost := len(data) + spillEntryCost
	if cost > s.c.maxSessionSpill {
		return fmt.Errorf("toolredis: %d bytes of output are over the %d bytes one session's spilled entries may hold (Options.MaxSessionSpillBytes)", len(data), s.c.maxSessionSpill)
	}
	_, err := run(ctx, &s.c, "spill put", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, spillScript.Run(ctx, s.c.client, []string{k.entry, k.order, k.sizes},
			data, max(expires.UnixMilli(), 1), s.c.maxSessionSpill, cost).Err()
	})
	return err
}

// spillKeys are the keys of one entry: the entry's, and, for an entry of a
// session, the session's list of entries (oldest first) and its hash of
// their costs. The three share a hash tag, the session's digest, so that
// one script may use them all on a Redis Cluster.
type spillKeys struct {
	entry, order, sizes string
	bounded             bool // false for an id of no session: entry alone is set
}

func (s *SpillStore) keys(id string) spillKeys {
	session, _, ok := strings.Cut(id, ".")
	if !ok {
		return spillKeys{entry: s.c.key("spill", id)}
	}
	tag := "{" + hash(session)[:16] + "}"
	return spillKeys{
		entry:   s.c.namespace + ":spill:" + tag + ":" + hash(id),
		order:   s.c.namespace + ":spills:" + tag,
		sizes:   s.c.namespace + ":spillsizes:" + tag,
		bounded: true,
	}
}

// spillScript keeps ARGV[1] under KEYS[1] until ARGV[2] (ms since the
// epoch) as an entry of cost ARGV[4] of the session whose entries KEYS[2]
// lists, oldest first, and whose costs KEYS[3] holds (with their sum under
// "used" and the latest expiry under "exp"), bounded to ARGV[3] together.
// Entries that expired are forgotten when they reach the front of the
// list; while the new entry does not fit, the oldest are deleted. Each
// entry is added once and removed once, so a Put costs constant time,
// amortized, however many entries the session has (putting an id again
// costs a walk of the list, LREM: the registry never does). Entries of
// the same session share the hash tag of KEYS[1], so the keys read from
// the list are in the same slot as the keys given.
var spillScript = redis.NewScript(`
local cost, bound, exp = tonumber(ARGV[4]), tonumber(ARGV[3]), tonumber(ARGV[2])
local old = redis.call('HGET', KEYS[3], KEYS[1])
if old then
  redis.call('HDEL', KEYS[3], KEYS[1])
  redis.call('HINCRBY', KEYS[3], 'used', -tonumber(old))
  redis.call('LREM', KEYS[2], 1, KEYS[1])
end
local used = tonumber(redis.call('HGET', KEYS[3], 'used') or '0')
while true do
  local front = redis.call('LINDEX', KEYS[2], 0)
  if not front then break end
  local gone = redis.call('EXISTS', front) == 0
  if not gone and used + cost <= bound then break end
  redis.call('LPOP', KEYS[2])
  if not gone then redis.call('DEL', front) end
  used = used - tonumber(redis.call('HGET', KEYS[3], front) or '0')
  redis.call('HDEL', KEYS[3], front)
end
if redis.call('LLEN', KEYS[2]) == 0 then used = 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', exp)
redis.call('RPUSH', KEYS[2], KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], cost, 'used', used + cost)
-- The list is made again when emptied, without an expiry: set both each time.
local last = math.max(exp, tonumber(redis.call('HGET', KEYS[3], 'exp') or '0'))
redis.call('HSET', KEYS[3], 'exp', last)
redis.call('PEXPIREAT', KEYS[2], last)
redis.call('PEXPIREAT', KEYS[3], last)
return used + cost
`)

// Get implements [tool.SpillStore]: up to n bytes from byte off, read with
// GETRANGE in one transaction with the checks that tell a missing entry
// (wrapping [tool.ErrSpillGone]) from a read past its end (another error).
func (s *SpillStore) Get(ctx context.Context, id string, off, n int) (string, error) {
	if off < 0 || n < 0 {
		return "", fmt.Errorf("toolredis: spill read of %d bytes at %d is out of range", n, off)
	}
	key := s.keys(id).entry
	type reply struct {
		exists, size int64
		data         string
	}
	r, err := run(ctx, &s.c, "spill get", func(ctx context.Context) (reply, error) {
		var exists, size *redis.IntCmd
		var part *redis.StringCmd
		_, err := s.c.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			exists = p.Exists(ctx, key)
			size = p.StrLen(ctx, key)
			if n > 0 {
				// No entry is longer than maxSpill, so reading further is
				// pointless; the bound also keeps off+n from overflowing.
				part = p.GetRange(ctx, key, int64(off), int64(off)+int64(min(n, s.c.maxSpill))-1)
			}
			return nil
		})
		if err != nil {
			return reply{}, err
		}
		r := reply{exists: exists.Val(), size: size.Val()}
		if part != nil {
			r.data = part.Val()
		}
		return r, nil
	})
	switch {
	case err != nil:
		return "", err
	case r.exists == 0:
		return "", fmt.Errorf("toolredis: %w", tool.ErrSpillGone)
	case int64(off) > r.size:
		return "", fmt.Errorf("toolredis: spill read at %d of %d bytes is out of range", off, r.size)
	}
	return r.data, nil
}

// set sends SET key value PXAT expires, with NX if nx. The command is
// spelled out because go-redis's SetArgs rounds ExpireAt down to the second
// in some versions (EXAT), which would end every entry up to a second
// early. An expiry in the past is sent as 1 ms after the epoch, since Redis
// refuses a zero or negative time; Redis treats any time past as expired,
// which is what it means. A NX that set nothing returns redis.Nil.
func set(ctx context.Context, c redis.UniversalClient, key, value string, expires time.Time, nx bool) error {
	args := []any{"set", key, value, "pxat", max(expires.UnixMilli(), 1)}
	if nx {
		args = append(args, "nx")
	}
	return c.Do(ctx, args...).Err()
}
