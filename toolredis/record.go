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
// one replica is answered from its record on any other. Claim, Replace
// and Record are scripts that read and write atomically (claim if absent;
// replace only what was given), so that of any number of replicas claiming
// the same call at once, exactly one runs it. Keys expire by Redis's TTL
// at the time given.
//
// One session's claims and records hold at most
// [Options.MaxSessionRecordBytes] together: past it, its oldest records
// are dropped in the same script that keeps a new entry, so that one
// session's flood of calls fills neither Redis nor the other sessions'
// room; a claim, whose call is in progress, is never dropped, and a
// session whose claims fill its room has its next claim refused. A
// session's keys carry the hash tag of its bucket (see the package
// documentation), so the script works on a Redis Cluster.
//
// A claim is granted only while Redis is trusted not to have lost the
// claims it held ([Options.Durability]): one found restarted without its
// data, flushed, evicting, or replaced by a replica is refused claims,
// wrapping [tool.ErrStoreLostData], until [Options.ClaimLifetime] after
// the loss. Replacing a claim with one at most a little longer (renewed,
// started, given back, marked as run without a record) is let through by
// a Redis at its maxmemory, so that the pipeline can always say what
// happened to a call; a new claim and a record are not.
//
// A record larger than [Options.MaxRecordBytes] is refused before
// anything is sent; the pipeline then marks its call as one that ran and
// whose result could not be kept.
//
// A RecordStore is safe for concurrent use.
type RecordStore struct {
	c config
	g guard
}

// recordEntryCost is what one entry counts against its session's bound
// besides its value: its key, in the session's lists, and Redis's
// overhead for each, rounded up.
const recordEntryCost = 256

// recordSlack is how much longer than the claim it replaces a new claim
// may be and still be let through at maxmemory.
const recordSlack = 128

// NewRecordStore returns a record store on client c (a *redis.Client, a
// cluster or a ring). opts may be nil. It panics if c is nil.
func NewRecordStore(c redis.UniversalClient, opts *Options) *RecordStore {
	s := &RecordStore{c: newConfig(c, opts)}
	s.g = newGuard(&s.c)
	return s
}

// recordKeys are the keys of one entry: the bucket's marker, the entry's,
// and its session's sorted set of claims (scored by expiry), list of
// records (oldest first) and hash of costs (with their sum under "used"
// and the latest expiry under "exp"). All carry the bucket's hash tag.
type recordKeys struct {
	bucket                                int
	marker, entry, claims, records, sizes string
}

func (s *RecordStore) keys(session, id string) recordKeys {
	b := bucketOf(session)
	t, ns, sh := tag(b), s.c.namespace, hash(session)
	return recordKeys{
		bucket:  b,
		marker:  s.g.marker(b),
		entry:   ns + ":record:" + t + ":" + hash(session, id),
		claims:  ns + ":recclaims:" + t + ":" + sh,
		records: ns + ":records:" + t + ":" + sh,
		sizes:   ns + ":recsizes:" + t + ":" + sh,
	}
}

// Claim implements [tool.RecordStore].
func (s *RecordStore) Claim(ctx context.Context, session, id, value string, expires time.Time) (string, bool, error) {
	if len(value) > s.c.maxRecord {
		return "", false, s.tooLarge(len(value))
	}
	k := s.keys(session, id)
	type reply struct {
		kept    string
		claimed bool
	}
	r, err := run(ctx, &s.c, "record claim", func(ctx context.Context) (reply, error) {
		for again := true; ; {
			res, err := claimRecordScript.Run(ctx, s.c.client, []string{k.marker, k.entry, k.claims, k.records, k.sizes},
				s.g.arg(), value, max(expires.UnixMilli(), 1), s.c.maxSessionRecord, len(value)+recordEntryCost).StringSlice()
			if err != nil {
				return reply{}, err
			}
			switch res[0] {
			case "claimed":
				s.g.granted(k.bucket)
				return reply{claimed: true}, nil
			case "kept":
				return reply{kept: res[1]}, nil
			case "full":
				return reply{}, fmt.Errorf("the session's %s bytes of calls in progress leave no room for another (Options.MaxSessionRecordBytes is %d): %w", res[1], s.c.maxSessionRecord, tool.ErrRecordStoreFull)
			}
			retry, err := s.g.fix(ctx, k.bucket, res[1])
			switch {
			case err != nil:
				return reply{}, err
			case !retry || !again:
				return reply{}, errors.New("the server's marker keeps changing")
			}
			again = false
		}
	})
	// A claim's own lifetime is not noted (s.g.lived): a claim lost before
	// its call started is harmless, since the call starts only if it
	// still holds the claim (tool.RecordStore). What must outlive a loss
	// is a started claim or a record, kept by Replace or Record.
	return r.kept, r.claimed, err
}

// Replace implements [tool.RecordStore].
func (s *RecordStore) Replace(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	if len(value) > s.c.maxRecord {
		return false, s.tooLarge(len(value))
	}
	script := replaceRecordScript
	if len(value) <= len(old)+recordSlack {
		script = replaceSmallRecordScript
	}
	k := s.keys(session, id)
	ok, err := run(ctx, &s.c, "record replace", func(ctx context.Context) (bool, error) {
		n, err := script.Run(ctx, s.c.client, []string{k.entry, k.claims, k.records, k.sizes},
			old, value, max(expires.UnixMilli(), 1), len(value)+recordEntryCost).Int64()
		return err == nil && n == 1, err
	})
	if ok {
		s.g.lived(expires)
	}
	return ok, err
}

// Record implements [tool.RecordStore]. To make room in the session's
// bound, its oldest records are dropped; if its claims leave no room,
// the record is refused, wrapping [tool.ErrRecordStoreFull].
func (s *RecordStore) Record(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	if len(value) > s.c.maxRecord {
		return false, s.tooLarge(len(value))
	}
	k := s.keys(session, id)
	n, err := run(ctx, &s.c, "record", func(ctx context.Context) (int64, error) {
		return recordScript.Run(ctx, s.c.client, []string{k.entry, k.claims, k.records, k.sizes},
			old, value, max(expires.UnixMilli(), 1), len(value)+recordEntryCost, s.c.maxSessionRecord).Int64()
	})
	switch {
	case err != nil:
		return false, err
	case n < 0:
		return false, fmt.Errorf("toolredis: the session's calls in progress leave no room for a record of %d bytes (Options.MaxSessionRecordBytes is %d): %w", len(value), s.c.maxSessionRecord, tool.ErrRecordStoreFull)
	case n == 1:
		s.g.lived(expires)
	}
	return n == 1, nil
}

func (s *RecordStore) tooLarge(n int) error {
	return fmt.Errorf("toolredis: a record of %d bytes is over the %d bytes one may hold", n, s.c.maxRecord)
}

// luaRecords defines what the record scripts share, for the session whose
// claims, records and costs are the keys given (see recordKeys):
//
//   - now(): the server's time, in ms;
//   - forget(sizes, k): drops entry k's cost;
//   - sweep(claims, records, sizes, now): drops the lapsed claims, and
//     the records at the front of the list that are gone (expired, or
//     dropped);
//   - room(records, sizes, n, bound): drops the oldest records while n
//     more bytes would not fit; false if they still do not;
//   - extend(claims, records, sizes, exp): the session's keys live until
//     its last entry expires.
//
// Each entry is added to a list once and taken off once, so a call costs
// constant time, amortized, however many entries its session has.
const luaRecords = `
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function forget(sizes, k)
  local c = redis.call('HGET', sizes, k)
  if c then
    redis.call('HDEL', sizes, k)
    redis.call('HINCRBY', sizes, 'used', -tonumber(c))
  end
end
local function sweep(claims, records, sizes, t)
  local lapsed = redis.call('ZRANGEBYSCORE', claims, '-inf', t)
  for _, k in ipairs(lapsed) do forget(sizes, k) end
  if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', claims, '-inf', t) end
  while true do
    local front = redis.call('LINDEX', records, 0)
    if not front or redis.call('EXISTS', front) == 1 then break end
    redis.call('LPOP', records)
    forget(sizes, front)
  end
end
local function room(records, sizes, n, bound)
  local used = tonumber(redis.call('HGET', sizes, 'used') or '0')
  while used + n > bound do
    local front = redis.call('LPOP', records)
    if not front then return false end
    redis.call('DEL', front)
    forget(sizes, front)
    used = tonumber(redis.call('HGET', sizes, 'used') or '0')
  end
  return true
end
local function extend(claims, records, sizes, exp)
  local last = math.max(exp, tonumber(redis.call('HGET', sizes, 'exp') or '0'))
  redis.call('HSET', sizes, 'exp', last)
  redis.call('PEXPIREAT', claims, last)
  redis.call('PEXPIREAT', records, last)
  redis.call('PEXPIREAT', sizes, last)
end
`

// claimRecordScript keeps the claim ARGV[2] under KEYS[2] until ARGV[3],
// with cost ARGV[5], in the session's bound of ARGV[4] (KEYS[3..5]), if
// nothing is kept there and the guard of marker KEYS[1] (ARGV[1]) lets
// it: {"claimed"}; {"kept", what is kept}; {"full", the bytes used};
// {"guard", why not}. An entry of the same key left in the session's
// lists (a record that expired) is taken off them first.
var claimRecordScript = redis.NewScript(`redis.replicate_commands()` + luaGuard + luaRecords + `
local kept = redis.call('GET', KEYS[2])
if kept then return {'kept', kept} end
local why = guard(KEYS[1], ARGV[1])
if why then return {'guard', why} end
local t, exp, cost = now(), tonumber(ARGV[3]), tonumber(ARGV[5])
if exp <= t then return {'claimed'} end
-- The first write: a Redis at maxmemory refuses it, and so the claim
-- (Redis lets a script's later writes through once one was made).
redis.call('SET', KEYS[2], ARGV[2], 'PXAT', exp)
sweep(KEYS[3], KEYS[4], KEYS[5], t)
if redis.call('HEXISTS', KEYS[5], KEYS[2]) == 1 then
  forget(KEYS[5], KEYS[2])
  redis.call('ZREM', KEYS[3], KEYS[2])
  redis.call('LREM', KEYS[4], 1, KEYS[2])
end
if not room(KEYS[4], KEYS[5], cost, tonumber(ARGV[4])) then
  redis.call('DEL', KEYS[2])
  return {'full', redis.call('HGET', KEYS[5], 'used') or '0'}
end
redis.call('ZADD', KEYS[3], exp, KEYS[2])
redis.call('HSET', KEYS[5], KEYS[2], cost)
redis.call('HINCRBY', KEYS[5], 'used', cost)
extend(KEYS[3], KEYS[4], KEYS[5], exp)
return {'claimed'}
`)

// luaReplace keeps the claim ARGV[2] under KEYS[1] until ARGV[3], with
// cost ARGV[4], in place of the claim ARGV[1], and returns 1, if ARGV[1]
// is kept there as a claim (in the session's set KEYS[2]); otherwise 0.
// An expiry already past removes it.
const luaReplace = luaRecords + `
if redis.call('GET', KEYS[1]) ~= ARGV[1] or not redis.call('ZSCORE', KEYS[2], KEYS[1]) then return 0 end
local t, exp = now(), tonumber(ARGV[3])
if exp <= t then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], KEYS[1])
  forget(KEYS[4], KEYS[1])
  return 1
end
forget(KEYS[4], KEYS[1])
redis.call('SET', KEYS[1], ARGV[2], 'PXAT', exp)
redis.call('ZADD', KEYS[2], exp, KEYS[1])
redis.call('HSET', KEYS[4], KEYS[1], ARGV[4])
redis.call('HINCRBY', KEYS[4], 'used', tonumber(ARGV[4]))
extend(KEYS[2], KEYS[3], KEYS[4], exp)
return 1
`

var (
	// replaceRecordScript is luaReplace, refused whole by a Redis at
	// maxmemory (its flags, none, say so).
	replaceRecordScript = redis.NewScript("#!lua\n" + luaReplace)
	// replaceSmallRecordScript is luaReplace for a claim at most
	// recordSlack bytes longer than the one it replaces, let through by a
	// Redis at maxmemory (the allow-oom flag, Redis 7): the pipeline must
	// be able to give a claim back, make it a started one and mark that a
	// call ran whose record could not be kept, however full Redis is.
	replaceSmallRecordScript = redis.NewScript("#!lua flags=allow-oom\n" + luaReplace)
)

// recordScript keeps the record ARGV[2] under KEYS[1] until ARGV[3],
// with cost ARGV[4], in place of the claim ARGV[1], and returns 1, if
// ARGV[1] is kept there as a claim; 0 if not; -1 if the session's claims
// leave no room for it in the bound ARGV[5]. The session's oldest records
// are dropped to make room. Its flags (none) have a Redis at maxmemory
// refuse it whole: a record may be large.
var recordScript = redis.NewScript("#!lua\n" + luaRecords + `
if redis.call('GET', KEYS[1]) ~= ARGV[1] or not redis.call('ZSCORE', KEYS[2], KEYS[1]) then return 0 end
local t, exp, cost = now(), tonumber(ARGV[3]), tonumber(ARGV[4])
if exp <= t then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], KEYS[1])
  forget(KEYS[4], KEYS[1])
  return 1
end
local was = tonumber(redis.call('HGET', KEYS[4], KEYS[1]) or '0')
if not room(KEYS[3], KEYS[4], cost - was, tonumber(ARGV[5])) then return -1 end
redis.call('ZREM', KEYS[2], KEYS[1])
forget(KEYS[4], KEYS[1])
redis.call('SET', KEYS[1], ARGV[2], 'PXAT', exp)
redis.call('RPUSH', KEYS[3], KEYS[1])
redis.call('HSET', KEYS[4], KEYS[1], cost)
redis.call('HINCRBY', KEYS[4], 'used', cost)
extend(KEYS[2], KEYS[3], KEYS[4], exp)
return 1
`)

var _ tool.RecordStore = (*RecordStore)(nil)
