package toolredis

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// ApprovalStore is a [tool.ApprovalStore] on Redis. An "allow always"
// answer is a key per session and approval key; a claim is a key per id,
// set only if absent (SET NX), so that of any number of replicas claiming
// the same resumed approval at once, exactly one wins. Both expire by
// Redis's TTL at the time given.
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

// Claim implements [tool.ApprovalStore] (SET NX with PXAT): it reports
// true to the first claim of id until that claim expires.
func (m *ApprovalStore) Claim(ctx context.Context, id string, expires time.Time) (bool, error) {
	k := m.c.key("claim", id)
	return run(ctx, &m.c, "claim", func(ctx context.Context) (bool, error) {
		err := set(ctx, m.c.client, k, "1", expires, true)
		switch {
		case errors.Is(err, redis.Nil):
			return false, nil // claimed before
		case err != nil:
			return false, err
		}
		return true, nil
	})
}

var (
	_ tool.ApprovalStore = (*ApprovalStore)(nil)
	_ tool.SpillStore    = (*SpillStore)(nil)
)
