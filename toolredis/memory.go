package toolredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// ApprovalStore is a [tool.ApprovalStore] on Redis. An "allow always"
// answer is a key per session and approval key, expiring by Redis's TTL at
// the time given. A resumed approval's one-time claim is a key of its own,
// and each session's claims a sorted set scored by expiry, changed by one
// script that runs atomically (drop the expired claims, refuse one already
// there or past the session's bound, add it), so that of any number of
// replicas claiming the same resumed approval at once, exactly one wins,
// and one session's flood is refused at [Options.MaxSessionClaims]
// without touching any other session's room. The set expires with its
// last claim.
//
// A claim belongs to the Claim that made it (a token of its own, kept in
// it): the client's retry of a claim whose reply was lost finds it and
// reports it made, not used before. A Claim that fails (Redis did not
// answer in time) gives its claim back, in the background, once Redis
// answers, so that an approval whose call did not run can be used when
// the call is made again; a claim Redis makes after that is refused. A
// claim is granted only while Redis is trusted not to have lost the
// claims it held (see [RecordStore] and [Options.Durability]), so that a
// used approval is not used again after a restart without persistence.
//
// Every failure fails closed, as the interface requires: Allowed and Claim
// report false with their error.
//
// An ApprovalStore is safe for concurrent use.
type ApprovalStore struct {
	c     config
	g     guard
	backs chan struct{} // bounds the claims being given back at once
}

// maxGivingBack bounds the claims an ApprovalStore gives back at once; a
// failed claim past it lapses at its expiry instead.
const maxGivingBack = 256

// NewApprovalStore returns an approval store on client c (a
// *redis.Client, a cluster or a ring). opts may be nil. It panics if c is
// nil.
func NewApprovalStore(c redis.UniversalClient, opts *Options) *ApprovalStore {
	m := &ApprovalStore{c: newConfig(c, opts), backs: make(chan struct{}, maxGivingBack)}
	m.g = newGuard(&m.c)
	return m
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

// claimKeys are the keys of the claim of session and id: its bucket's
// marker, the session's set, the claim, and the key that marks a claim
// given back (with the claim's token appended), all with the bucket's
// hash tag.
type claimKeys struct {
	bucket                       int
	marker, set, claim, backBase string
	member                       string
}

func (m *ApprovalStore) claimKeys(session, id string) claimKeys {
	b := bucketOf(session)
	t, ns := tag(b), m.c.namespace
	return claimKeys{bucket: b, marker: m.g.marker(b), set: ns + ":claims:" + t + ":" + hash(session),
		claim: ns + ":claim:" + t + ":" + hash(session, id), backBase: ns + ":claimback:" + t + ":", member: hash(id)}
}

// Claim implements [tool.ApprovalStore]: it reports true to the first
// claim of session and id until that claim expires. A session that holds
// [Options.MaxSessionClaims] unexpired claims has its next one refused
// with an error wrapping [tool.ErrApprovalStoreFull]; a Redis that may
// have lost claims refuses with one wrapping [tool.ErrStoreLostData].
func (m *ApprovalStore) Claim(ctx context.Context, session, id string, expires time.Time) (bool, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	k := m.claimKeys(session, id)
	res, err := run(ctx, &m.c, "claim", func(ctx context.Context) (string, error) {
		for again := true; ; {
			r, err := claimScript.Run(ctx, m.c.client, []string{k.marker, k.set, k.claim, k.backBase + token},
				m.g.arg(), k.member, max(expires.UnixMilli(), 1), m.c.maxSessionClaims, token).Text()
			if err != nil || !strings.HasPrefix(r, "guard ") {
				return r, err
			}
			retry, err := m.g.fix(ctx, k.bucket, r[len("guard "):])
			switch {
			case err != nil:
				return "", err
			case !retry || !again:
				return "", errors.New("the server's marker keeps changing")
			}
			again = false
		}
	})
	switch {
	case err != nil:
		if !errors.Is(err, tool.ErrStoreLostData) { // else Redis answered: it made no claim
			m.giveBack(k, token, expires)
		}
		return false, err
	case res == "full":
		return false, fmt.Errorf("toolredis: session over its %d claims: %w", m.c.maxSessionClaims, tool.ErrApprovalStoreFull)
	case res == "claimed":
		m.g.granted(k.bucket)
		m.g.lived(expires)
		return true, nil
	}
	return false, nil
}

// giveBack takes back, in the background, a claim whose Claim failed:
// Redis may have made it, or may make it later, and the resumed call it
// was for did not run. It tries until Redis answers, until the claim
// would have expired; a claim Redis makes after that is refused.
func (m *ApprovalStore) giveBack(k claimKeys, token string, expires time.Time) {
	select {
	case m.backs <- struct{}{}:
	default:
		return // too many at once: this one lapses at its expiry
	}
	go func() {
		defer func() { <-m.backs }()
		pause := 100 * time.Millisecond
		for time.Now().Before(expires) {
			_, err := run(context.Background(), &m.c, "claim give back", func(ctx context.Context) (int64, error) {
				return giveBackScript.Run(ctx, m.c.client, []string{k.set, k.claim, k.backBase + token}, k.member, token, max(expires.UnixMilli(), 1)).Int64()
			})
			if err == nil {
				return
			}
			time.Sleep(pause)
			pause = min(2*pause, 2*time.Second)
		}
	}()
}

// claimScript claims ARGV[2] of the session's sorted set KEYS[2] until
// ARGV[3] (ms since the epoch, by Redis's clock), as the key KEYS[3]
// holding the claim's token ARGV[5], if the guard of marker KEYS[1]
// (ARGV[1]) lets it; the session's unexpired claims are bounded to
// ARGV[4]. It returns "claimed" for the first claim, and for a claim
// already there with this token (the client sent it again); "used" for a
// claim already there; "full" for a session at its bound; "back" for a
// claim given back (KEYS[4] exists) before Redis made it; "guard <why>"
// when the guard stops it.
var claimScript = redis.NewScript(`redis.replicate_commands()` + luaGuard + `
if redis.call('EXISTS', KEYS[4]) == 1 then return 'back' end
local kept = redis.call('GET', KEYS[3])
if kept == ARGV[5] then return 'claimed' end
if kept then return 'used' end
local why = guard(KEYS[1], ARGV[1])
if why then return 'guard ' .. why end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local exp = tonumber(ARGV[3])
if exp <= now then return 'claimed' end
if redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf') >= tonumber(ARGV[4]) then return 'full' end
-- The first write: a Redis at maxmemory refuses it, and so the claim
-- (Redis lets a script's later writes through once one was made).
redis.call('SET', KEYS[3], ARGV[5], 'PXAT', exp)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZADD', KEYS[2], exp, ARGV[2])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return 'claimed'
`)

// giveBackScript takes back the claim KEYS[2], member ARGV[1] of the
// session's set KEYS[1], if it holds the token ARGV[2], and marks the
// token given back (KEYS[3]) until the claim would have expired, ARGV[3],
// so that Redis does not make it later. It is small, and let through by a
// Redis at maxmemory.
var giveBackScript = redis.NewScript(`#!lua flags=allow-oom
redis.call('SET', KEYS[3], '1', 'PXAT', ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[2] then
  redis.call('DEL', KEYS[2])
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1
`)

// Release implements [tool.ApprovalReleaser]: the claim of session and
// id is dropped, so that the next Claim of it is the first. The pipeline
// gives back this way the claim of a resumed approval whose call was let
// through and did not start.
func (m *ApprovalStore) Release(ctx context.Context, session, id string) error {
	k := m.claimKeys(session, id)
	_, err := run(ctx, &m.c, "claim release", func(ctx context.Context) (int64, error) {
		return releaseScript.Run(ctx, m.c.client, []string{k.set, k.claim}, k.member).Int64()
	})
	return err
}

// releaseScript drops the claim KEYS[2], member ARGV[1] of the session's
// set KEYS[1]. It only removes, and is let through by a Redis at
// maxmemory.
var releaseScript = redis.NewScript(`#!lua flags=allow-oom
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`)

var (
	_ tool.ApprovalStore    = (*ApprovalStore)(nil)
	_ tool.ApprovalReleaser = (*ApprovalStore)(nil)
	_ tool.SpillStore       = (*SpillStore)(nil)
)
