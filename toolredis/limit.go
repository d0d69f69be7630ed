package toolredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// Limiter is a [tool.Limiter] on Redis: the replicas of an agent that
// share it, and the same [tool.CallLimit]s, hold each limit together, so
// that ten replicas allow a tool's rate once, not ten times.
//
// The rate is counted by github.com/go-redis/redis_rate, the go-redis
// project's limiter: the generic cell rate algorithm (the token bucket of
// golang.org/x/time/rate, which the in-process limiter uses) in one Lua
// script, on Redis's clock. Its keys are "rate:" followed by the
// namespace, the only keys that do not start with it.
//
// The calls running at once are leases: one sorted set per limit, each
// lease scored with when it lapses, taken by a script that drops the
// lapsed ones and counts the rest, and given back when the call ends. A
// lease lapses after the call's time limit and grace (the hold the
// pipeline gives; an hour for a tool with no time limit), so the places
// of a replica that died come back by themselves. A call waiting for a
// place asks again, at growing intervals up to a quarter of a second,
// until its Wait or its context ends.
//
// A Limiter is safe for concurrent use.
type Limiter struct {
	c    config
	rate *redis_rate.Limiter
}

// NewLimiter returns a limiter on client c (a *redis.Client, a cluster or
// a ring). opts may be nil. It panics if c is nil.
func NewLimiter(c redis.UniversalClient, opts *Options) *Limiter {
	cfg := newConfig(c, opts)
	return &Limiter{c: cfg, rate: redis_rate.NewLimiter(cfg.client)}
}

// noHoldLease is how long a lease lasts for a call with no time limit.
const noHoldLease = time.Hour

// Start implements [tool.Limiter]: a lease among the calls running at
// once, then a token of the rate, each waited for within lim.Wait and ctx.
// A lease taken for a call the rate then refuses is given back.
func (l *Limiter) Start(ctx context.Context, key string, lim tool.CallLimit, hold time.Duration) (func(), error) {
	var waitUntil time.Time
	if lim.Wait > 0 {
		waitUntil = time.Now().Add(lim.Wait)
	}
	var release func()
	if lim.Concurrent > 0 {
		r, err := l.lease(ctx, key, lim, hold, waitUntil)
		if err != nil {
			return nil, err
		}
		release = r
	}
	if lim.Rate > 0 {
		if err := l.token(ctx, key, lim, waitUntil); err != nil {
			if release != nil {
				release()
			}
			return nil, err
		}
	}
	return release, nil
}

// lease takes a place among the calls running at once, waiting for one
// until waitUntil (zero: not at all).
func (l *Limiter) lease(ctx context.Context, key string, lim tool.CallLimit, hold time.Duration, waitUntil time.Time) (func(), error) {
	if hold <= 0 {
		hold = noHoldLease
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	member, zkey := hex.EncodeToString(b[:]), l.c.key("running", key)
	pause := 10 * time.Millisecond
	for {
		n, err := run(ctx, &l.c, "limit lease", func(ctx context.Context) (int64, error) {
			return leaseScript.Run(ctx, l.c.client, []string{zkey}, lim.Concurrent, hold.Milliseconds(), member).Int64()
		})
		switch {
		case err != nil:
			return nil, err
		case n == 1:
			return func() {
				// The call has ended, maybe because its context did: give
				// the lease back under a context of its own.
				_, _ = run(context.WithoutCancel(ctx), &l.c, "limit release", func(ctx context.Context) (int64, error) {
					return l.c.client.ZRem(ctx, zkey, member).Result()
				})
			}, nil
		}
		if err := pauseUntil(ctx, waitUntil, pause); err != nil {
			return nil, err
		}
		pause = min(2*pause, 250*time.Millisecond)
	}
}

// token takes a token of the rate, waiting for it until waitUntil (zero:
// not at all) when it comes by then.
func (l *Limiter) token(ctx context.Context, key string, lim tool.CallLimit, waitUntil time.Time) error {
	per, burst := lim.Per, lim.Burst
	if per <= 0 {
		per = time.Minute // as CallLimit documents
	}
	if burst <= 0 {
		burst = lim.Rate
	}
	limit := redis_rate.Limit{Rate: lim.Rate, Burst: burst, Period: per}
	rkey := l.c.namespace + ":rate:" + hash(key)
	for {
		res, err := run(ctx, &l.c, "limit rate", func(ctx context.Context) (*redis_rate.Result, error) {
			return l.rate.Allow(ctx, rkey, limit)
		})
		switch {
		case err != nil:
			return err
		case res.Allowed > 0:
			return nil
		}
		retry := res.RetryAfter
		if waitUntil.IsZero() || time.Now().Add(retry).After(waitUntil) {
			return &tool.LimitError{RetryAfter: retry}
		}
		if d, ok := ctx.Deadline(); ok && time.Now().Add(retry).After(d) {
			return &tool.LimitError{RetryAfter: retry}
		}
		if err := pauseUntil(ctx, waitUntil, retry); err != nil {
			return err
		}
	}
}

// pauseUntil sleeps for d, or until waitUntil; it returns ctx's error if
// ctx ends first, and a busy refusal if waitUntil (zero: now) comes first.
func pauseUntil(ctx context.Context, waitUntil time.Time, d time.Duration) error {
	left := time.Until(waitUntil)
	if waitUntil.IsZero() || left <= 0 {
		return &tool.LimitError{Busy: true}
	}
	t := time.NewTimer(min(d, left))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// leaseScript takes a lease ARGV[3] for ARGV[2] ms in the sorted set
// KEYS[1] if fewer than ARGV[1] unlapsed leases are there: 1 if taken, 0
// if not. The set lapses with its last lease. TIME makes the script
// non-deterministic, so it replicates its effects (the default since
// Redis 7).
var leaseScript = redis.NewScript(`
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
`)

var _ tool.Limiter = (*Limiter)(nil)
