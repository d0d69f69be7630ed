package toolredis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// TaskStore is a [tool.TaskStore] on Redis, for replicas that answer for
// each other's tasks ([tool.Tasks]): any of them reads, cancels or answers
// a task, whichever one runs it.
//
// A task is one key, and each session has an index of its tasks (their
// expiries and sizes) beside it, in the same hash slot (a cluster keeps a
// session's keys together). Create and Replace are scripts that check the
// session's bounds and write the task and its index at once, Replace only
// if the task is still what the caller read, so that of replicas racing to
// change one task exactly one wins. Tasks and indexes expire by Redis's
// TTL.
//
// A TaskStore is safe for concurrent use.
type TaskStore struct {
	c config
}

// NewTaskStore returns a task store on client c (a *redis.Client, a
// cluster or a ring). opts may be nil. It panics if c is nil.
func NewTaskStore(c redis.UniversalClient, opts *Options) *TaskStore {
	return &TaskStore{c: newConfig(c, opts)}
}

// keys are the session's tasks (a hash of task values) and their
// expiries (a sorted set), in one hash slot; a task is their field hash(id).
func (s *TaskStore) keys(session string) []string {
	slot := s.c.namespace + ":task:{" + hash(session) + "}"
	return []string{slot + ":values", slot + ":expiries"}
}

// Create implements [tool.TaskStore].
func (s *TaskStore) Create(ctx context.Context, session, id, value string, expires time.Time, limits tool.TaskLimits) error {
	n, err := run(ctx, &s.c, "task create", func(ctx context.Context) (int64, error) {
		return createTaskScript.Run(ctx, s.c.client, s.keys(session), hash(id), value, max(expires.UnixMilli(), 1),
			time.Now().UnixMilli(), limits.Count, limits.Bytes).Int64()
	})
	switch {
	case err != nil:
		return err
	case n == -1:
		return fmt.Errorf("toolredis: task %s exists", id)
	case n == -2:
		return fmt.Errorf("%w (%d tasks)", tool.ErrTaskLimit, limits.Count)
	case n == -3:
		return fmt.Errorf("%w (%d bytes)", tool.ErrTaskLimit, limits.Bytes)
	}
	return nil
}

// Get implements [tool.TaskStore].
func (s *TaskStore) Get(ctx context.Context, session, id string) (string, error) {
	return run(ctx, &s.c, "task get", func(ctx context.Context) (string, error) {
		v, err := getTaskScript.Run(ctx, s.c.client, s.keys(session), hash(id), time.Now().UnixMilli()).Text()
		if errors.Is(err, redis.Nil) {
			return "", tool.ErrTaskNotFound
		}
		return v, err
	})
}

// Replace implements [tool.TaskStore].
func (s *TaskStore) Replace(ctx context.Context, session, id, old, value string, expires time.Time, maxBytes int64) (bool, error) {
	n, err := run(ctx, &s.c, "task replace", func(ctx context.Context) (int64, error) {
		return replaceTaskScript.Run(ctx, s.c.client, s.keys(session), hash(id), old, value, max(expires.UnixMilli(), 1),
			time.Now().UnixMilli(), maxBytes).Int64()
	})
	switch {
	case err != nil:
		return false, err
	case n == -1:
		return false, tool.ErrTaskNotFound
	case n == -3:
		return false, fmt.Errorf("%w (%d bytes)", tool.ErrTaskLimit, maxBytes)
	}
	return n == 1, nil
}

// List implements [tool.TaskStore].
func (s *TaskStore) List(ctx context.Context, session string) ([]string, error) {
	return run(ctx, &s.c, "task list", func(ctx context.Context) ([]string, error) {
		vals, err := listTasksScript.Run(ctx, s.c.client, s.keys(session), time.Now().UnixMilli()).StringSlice()
		if errors.Is(err, redis.Nil) {
			return nil, nil
		}
		return vals, err
	})
}

// The scripts share these steps: purge drops expired tasks (KEYS[1] their
// values, KEYS[2] their expiries); extend keeps both keys as long as the
// last task; bytes sums the values but one.
const taskScriptSteps = `
local function purge(now)
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
  for _, g in ipairs(gone) do redis.call('HDEL', KEYS[1], g) end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
end
local function extend()
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if last[2] then
    redis.call('PEXPIREAT', KEYS[1], last[2])
    redis.call('PEXPIREAT', KEYS[2], last[2])
  end
end
local function bytes(except)
  local n = 0
  for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
    if f ~= except then n = n + redis.call('HSTRLEN', KEYS[1], f) end
  end
  return n
end
`

// createTaskScript keeps ARGV[2] as task ARGV[1] until ARGV[3] ms, unless
// it exists (-1), the session holds ARGV[5] tasks (-2) or ARGV[6] bytes
// would be passed (-3); it returns 1. ARGV[4] is now.
var createTaskScript = redis.NewScript(taskScriptSteps + `
purge(ARGV[4])
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return -1 end
local maxCount, maxBytes = tonumber(ARGV[5]), tonumber(ARGV[6])
if maxCount > 0 and redis.call('ZCARD', KEYS[2]) >= maxCount then return -2 end
if maxBytes > 0 and bytes('') + #ARGV[2] > maxBytes then return -3 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
extend()
return 1
`)

// getTaskScript returns task ARGV[1] unless it expired (ARGV[2] is now).
var getTaskScript = redis.NewScript(`
local exp = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not exp or tonumber(exp) <= tonumber(ARGV[2]) then return false end
return redis.call('HGET', KEYS[1], ARGV[1])
`)

// replaceTaskScript keeps ARGV[3] in place of ARGV[2] as task ARGV[1] until
// ARGV[4] ms: 1 if it did, 0 if something else is kept, -1 if nothing is,
// -3 if the session would pass ARGV[6] bytes. ARGV[5] is now.
var replaceTaskScript = redis.NewScript(taskScriptSteps + `
purge(ARGV[5])
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return -1 end
if cur ~= ARGV[2] then return 0 end
local maxBytes = tonumber(ARGV[6])
if maxBytes > 0 and bytes(ARGV[1]) + #ARGV[3] > maxBytes then return -3 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
extend()
return 1
`)

// listTasksScript returns the session's unexpired tasks (ARGV[1] is now).
var listTasksScript = redis.NewScript(taskScriptSteps + `
purge(ARGV[1])
return redis.call('HVALS', KEYS[1])
`)
