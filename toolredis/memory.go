package toolredis

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// ApprovalStore is a [tool.ApprovalStore] on Redis. An "allow always"
// answer is a key per session and approval key, expiring by Redis's TTL at
// the time given. A session's claims are one sorted set, each claim
// scored with its expiry, changed by one script that runs atomically
// (drop the expired claims, refuse one already there or past the
// session's bound, add it), so that of any number of replicas claiming
// the same resumed approval at once, exactly one wins, and one session's
// flood is refused at [Options.MaxSessionClaims] without touching any
// other session's room. The set expires with its last claim.
//
// Every failure fails closed, as the interface requires: Allowed and Claim
// report false with their error.
//
// An ApprovalStore is safe for concurrent use.
type ApprovalStore struct {
	c config
}

// NewApprovalStore returns an approval store on client c (a
// *redis.Client, a cluster or a ring). opts may be nil. It panics if c is
// nil.
func NewApprovalStore(c redis.UniversalClient, opts *Options) *ApprovalStore {
	return &ApprovalStore{c: newConfig(c, opts)}
}

// Allowed implements [tool.ApprovalStore] (EXISTS).
func (m *ApprovalStore) Allowed(ctx context.Context, session, key string) (bool, error) {
	k := m.c.key("allow", session, key)
	return run(ctx, &m.c, "allowed", func(ctx context.Context) (bool, error) {
		n, err := m.c.client.Exists(ctx, k).Result()
		return err == nil && n > 0, err
	})
}

// Remember implements [tool.ApprovalStore] (SET with PXAT). Remembering a
// key again sets its new expiry; an expiry already past forgets it.
func (m *ApprovalStore) Remember(ctx context.Context, session, key string, expires time.Time) error {
	k := m.c.key("allow", session, key)
	_, err := run(ctx, &m.c, "remember", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, set(ctx, m.c.client, k, "1", expires, false)
	})
	return err
}

// Claim implements [tool.ApprovalStore]: it reports true to the first
// claim of session and id until that claim expires. A session that holds
// [Options.MaxSessionClaims] unexpired claims has its next one refused
// with an error wrapping [tool.ErrApprovalStoreFull].
func (m *ApprovalStore) Claim(ctx context.Context, session, id string, expires time.Time) (bool, error) {
	k, member := m.c.key("claims", session), hash(id)
	n, err := run(ctx, &m.c, "claim", func(ctx context.Context) (int64, error) {
		return claimScript.Run(ctx, m.c.client, []string{k}, member, max(expires.UnixMilli(), 1), m.c.maxSessionClaims).Int64()
	})
	switch {
	case err != nil:
		return false, err
	case n < 0:
		return false, fmt.Errorf("toolredis: session over its %d claims: %w", m.c.maxSessionClaims, tool.ErrApprovalStoreFull)
	}
	return n == 1, nil
}

// claimScript claims ARGV[1] until ARGV[2] (ms since the epoch, by Redis's
// clock) in the session's sorted set KEYS[1], whose unexpired claims are
// bounded to ARGV[3]: 1 for the first claim, 0 for a claim already there,
// -1 for a session at its bound. TIME makes the script non-deterministic,
// so it replicates its effects (the default since Redis 7).
var claimScript = redis.NewScript(`
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local exp = tonumber(ARGV[2])
if exp <= now then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('ZADD', KEYS[1], exp, ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
`)

var (
	_ tool.ApprovalStore = (*ApprovalStore)(nil)
	_ tool.SpillStore    = (*SpillStore)(nil)
)
