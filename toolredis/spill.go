package toolredis

import (
	"context"
	"fmt"
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
// A SpillStore is safe for concurrent use.
type SpillStore struct {
	c config
}

// NewSpillStore returns a spill store on client c (a *redis.Client, a
// cluster or a ring). opts may be nil. It panics if c is nil.
func NewSpillStore(c redis.UniversalClient, opts *Options) *SpillStore {
	return &SpillStore{c: newConfig(c, opts)}
}

// Put implements [tool.SpillStore]: SET with an absolute expiry (PXAT). An
// expiry already past removes what id held. Data over
// [Options.MaxSpillBytes] is refused before anything is sent.
func (s *SpillStore) Put(ctx context.Context, id, data string, expires time.Time) error {
	if len(data) > s.c.maxSpill {
		return fmt.Errorf("toolredis: %d bytes of output are over the %d bytes one spilled entry may hold", len(data), s.c.maxSpill)
	}
	key := s.c.key("spill", id)
	_, err := run(ctx, &s.c, "spill put", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, set(ctx, s.c.client, key, data, expires, false)
	})
	return err
}

// Get implements [tool.SpillStore]: up to n bytes from byte off, read with
// GETRANGE in one transaction with the checks that tell a missing entry
// (wrapping [tool.ErrSpillGone]) from a read past its end (another error).
func (s *SpillStore) Get(ctx context.Context, id string, off, n int) (string, error) {
	if off < 0 || n < 0 {
		return "", fmt.Errorf("toolredis: spill read of %d bytes at %d is out of range", n, off)
	}
	key := s.c.key("spill", id)
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
