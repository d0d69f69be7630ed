package toolredis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// RecordStore is a [tool.RecordStore] on Redis: a call's claim, then its
// record, is one key per session and call ID, so that a call that ran on
// one replica is answered from its record on any other. Claim and Replace
// are scripts that read and write the key atomically (claim if absent;
// replace only what was given), so that of any number of replicas claiming
// the same call at once, exactly one runs it. Keys expire by Redis's TTL
// at the time given.
//
// A record larger than [Options.MaxRecordBytes] is refused before
// anything is sent: its call's claim then stays until it expires, and a
// twin is refused rather than run again.
//
// A RecordStore is safe for concurrent use.
type RecordStore struct {
	c config
}

// NewRecordStore returns a record store on client c (a *redis.Client, a
// cluster or a ring). opts may be nil. It panics if c is nil.
func NewRecordStore(c redis.UniversalClient, opts *Options) *RecordStore {
	return &RecordStore{c: newConfig(c, opts)}
}

// Claim implements [tool.RecordStore].
func (s *RecordStore) Claim(ctx context.Context, session, id, value string, expires time.Time) (string, bool, error) {
	if len(value) > s.c.maxRecord {
		return "", false, s.tooLarge(len(value))
	}
	k := s.c.key("record", session, id)
	type reply struct {
		kept    string
		claimed bool
	}
	r, err := run(ctx, &s.c, "record claim", func(ctx context.Context) (reply, error) {
		kept, err := claimRecordScript.Run(ctx, s.c.client, []string{k}, value, max(expires.UnixMilli(), 1)).Text()
		switch {
		case errors.Is(err, redis.Nil):
			return reply{claimed: true}, nil // nothing was kept: now this is
		case err != nil:
			return reply{}, err
		}
		return reply{kept: kept}, nil
	})
	return r.kept, r.claimed, err
}

// Replace implements [tool.RecordStore].
func (s *RecordStore) Replace(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	if len(value) > s.c.maxRecord {
		return false, s.tooLarge(len(value))
	}
	k := s.c.key("record", session, id)
	return run(ctx, &s.c, "record replace", func(ctx context.Context) (bool, error) {
		n, err := replaceRecordScript.Run(ctx, s.c.client, []string{k}, old, value, max(expires.UnixMilli(), 1)).Int64()
		return err == nil && n == 1, err
	})
}

// Record implements [tool.RecordStore].
func (s *RecordStore) Record(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	return s.Replace(ctx, session, id, old, value, expires)
}

func (s *RecordStore) tooLarge(n int) error {
	return fmt.Errorf("toolredis: a record of %d bytes is over the %d bytes one may hold", n, s.c.maxRecord)
}

// claimRecordScript keeps ARGV[1] under KEYS[1] until ARGV[2] (ms since
// the epoch) if nothing is kept there, and returns nil; otherwise it
// returns what is kept.
var claimRecordScript = redis.NewScript(`
local kept = redis.call('GET', KEYS[1])
if kept then return kept end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
return nil
`)

// replaceRecordScript keeps ARGV[2] under KEYS[1] until ARGV[3] in place
// of ARGV[1], and returns 1, if ARGV[1] is what is kept; otherwise 0.
var replaceRecordScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[3])
return 1
`)

var _ tool.RecordStore = (*RecordStore)(nil)
