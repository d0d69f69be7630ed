package toolredis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
)

// MaxPendingBytes bounds one approval a [PendingApprovalStore] keeps,
// encoded: a larger one (a preview of many large files) is refused, and
// its call cannot be answered on a page.
const MaxPendingBytes = 4 << 20

// PendingApprovalStore is a [tool.PendingApprovalStore] on Redis: the
// approvals that wait for a person's answer, and the answers, shared by
// every replica (package approvalweb's page reads them).
//
// Each approval is a key (SET NX with PXAT: offering it again changes
// nothing), its answer another (SET NX: of any number of answers, from
// any replica, exactly one is recorded), and each session a sorted set of
// its unanswered approvals, scored by their keep time, so that listing a
// session reads only that session's keys; one more sorted set lists the
// sessions that have approvals (Sessions). Every key expires by Redis's
// TTL; nothing is ever scanned. Keys are hashed like the other stores'
// and every command names one key, so it works on a cluster too.
//
// The bound of [tool.MaxPendingPerSession] unanswered approvals per
// session is checked before an approval is added, not atomically with it:
// approvals offered at the same moment in one session may pass it by as
// many. A PendingApprovalStore is safe for concurrent use.
type PendingApprovalStore struct {
	c config
}

// NewPendingApprovalStore returns a store of pending approvals on client
// c (a *redis.Client, a cluster or a ring). opts may be nil. It panics if
// c is nil.
func NewPendingApprovalStore(c redis.UniversalClient, opts *Options) *PendingApprovalStore {
	return &PendingApprovalStore{c: newConfig(c, opts)}
}

// pendingRecord is what is kept of an approval: the approval and when it
// stops being kept, which its answer's key and its session's set share.
type pendingRecord struct {
	P    *tool.PendingApproval `json:"p"`
	Keep int64                 `json:"keep"` // Unix milliseconds
}

// pendingKeys are the keys of the approval of a state: its record, its
// answer, and its member in its session's set (the hash both keys end
// with).
func (m *PendingApprovalStore) pendingKeys(state string) (record, answer, member string) {
	record = m.c.key("pending", state)
	member = record[len(m.c.namespace)+len(":pending:"):]
	return record, m.c.namespace + ":pending-answer:" + member, member
}

// Offer implements [tool.PendingApprovalStore].
func (m *PendingApprovalStore) Offer(ctx context.Context, p *tool.PendingApproval, keep time.Time) error {
	b, err := json.Marshal(pendingRecord{P: p, Keep: keep.UnixMilli()})
	if err != nil {
		return fmt.Errorf("toolredis: offer: %w", err)
	}
	if len(b) > MaxPendingBytes {
		return fmt.Errorf("toolredis: offer: %w: an approval of %d bytes is over the bound of %d", tool.ErrPendingFull, len(b), MaxPendingBytes)
	}
	if !keep.After(time.Now()) {
		return nil // kept until a time already past: nothing to keep
	}
	record, _, member := m.pendingKeys(p.State)
	session := m.c.key("pending-session", p.Session) // raw: two sessions may read alike once escaped
	_, err = run(ctx, &m.c, "offer", func(ctx context.Context) (struct{}, error) {
		c := m.c.client
		now := strconv.FormatInt(time.Now().UnixMilli(), 10)
		if err := c.ZRemRangeByScore(ctx, session, "-inf", now).Err(); err != nil {
			return struct{}{}, err
		}
		n, err := c.ZCard(ctx, session).Result()
		if err != nil {
			return struct{}{}, err
		}
		if n >= tool.MaxPendingPerSession {
			return struct{}{}, fmt.Errorf("%w: the session already has %d unanswered approvals", tool.ErrPendingFull, n)
		}
		err = set(ctx, c, record, string(b), keep, true)
		switch {
		case errors.Is(err, redis.Nil):
			return struct{}{}, nil // kept already: nothing changes
		case err != nil:
			return struct{}{}, err
		}
		all := m.c.key("pending-sessions")
		_, err = c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.ZAdd(ctx, session, redis.Z{Score: float64(keep.UnixMilli()), Member: member})
			// The set lives as long as its longest-kept approval.
			pipe.Do(ctx, "PEXPIREAT", session, keep.UnixMilli(), "NX")
			pipe.Do(ctx, "PEXPIREAT", session, keep.UnixMilli(), "GT")
			// The sessions that have approvals, each as long as its
			// longest-kept one (Sessions), rid of those past it.
			pipe.ZAddGT(ctx, all, redis.Z{Score: float64(keep.UnixMilli()), Member: p.Session})
			pipe.ZRemRangeByScore(ctx, all, "-inf", now)
			pipe.Do(ctx, "PEXPIREAT", all, keep.UnixMilli(), "NX")
			pipe.Do(ctx, "PEXPIREAT", all, keep.UnixMilli(), "GT")
			return nil
		})
		return struct{}{}, err
	})
	return err
}

// List implements [tool.PendingApprovalStore].
func (m *PendingApprovalStore) List(ctx context.Context, session string) ([]*tool.PendingApproval, error) {
	key := m.c.key("pending-session", session)
	return run(ctx, &m.c, "list", func(ctx context.Context) ([]*tool.PendingApproval, error) {
		c := m.c.client
		members, err := c.ZRangeByScore(ctx, key, &redis.ZRangeBy{
			Min: strconv.FormatInt(time.Now().UnixMilli(), 10), Max: "+inf", Count: 2 * tool.MaxPendingPerSession,
		}).Result()
		if err != nil || len(members) == 0 {
			return nil, err
		}
		records := make([]*redis.StringCmd, len(members))
		answers := make([]*redis.IntCmd, len(members))
		_, err = c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			for i, member := range members {
				records[i] = pipe.Get(ctx, m.c.namespace+":pending:"+member)
				answers[i] = pipe.Exists(ctx, m.c.namespace+":pending-answer:"+member)
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		var out []*tool.PendingApproval
		for i := range members {
			b, err := records[i].Bytes()
			if errors.Is(err, redis.Nil) || answers[i].Val() > 0 {
				continue // no longer kept, or answered and not yet off the set
			}
			var r pendingRecord
			if err != nil || json.Unmarshal(b, &r) != nil || r.P == nil || r.P.Session != session {
				continue
			}
			out = append(out, r.P)
		}
		return out, nil
	})
}

// Sessions implements [tool.PendingApprovalStore]: one sorted set holds
// the sessions that have approvals, each until its longest-kept approval
// is no longer kept, and is read with ZSCAN (the cursor is its cursor).
// A session whose approvals were all answered is listed until then.
func (m *PendingApprovalStore) Sessions(ctx context.Context, cursor string, limit int) ([]string, string, error) {
	var at uint64
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 10, 64)
		if err != nil {
			return nil, "", fmt.Errorf("toolredis: sessions: the cursor %q is not one Sessions returned", cursor)
		}
		at = n
	}
	if limit <= 0 {
		limit = 1000
	}
	type page struct {
		sessions []string
		next     string
	}
	p, err := run(ctx, &m.c, "sessions", func(ctx context.Context) (page, error) {
		kv, next, err := m.c.client.ZScan(ctx, m.c.key("pending-sessions"), at, "", int64(limit)).Result()
		if err != nil {
			return page{}, err
		}
		now := float64(time.Now().UnixMilli())
		var out []string
		for i := 0; i+1 < len(kv); i += 2 { // member, score
			if score, err := strconv.ParseFloat(kv[i+1], 64); err == nil && score > now {
				out = append(out, kv[i])
			}
		}
		p := page{sessions: out}
		if next != 0 {
			p.next = strconv.FormatUint(next, 10)
		}
		return p, nil
	})
	return p.sessions, p.next, err
}

// Get implements [tool.PendingApprovalStore].
func (m *PendingApprovalStore) Get(ctx context.Context, state string) (*tool.PendingApproval, *tool.Decision, error) {
	record, answer, _ := m.pendingKeys(state)
	type got struct {
		p *tool.PendingApproval
		d *tool.Decision
	}
	g, err := run(ctx, &m.c, "get", func(ctx context.Context) (got, error) {
		var rec, ans *redis.StringCmd
		_, err := m.c.client.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			rec, ans = pipe.Get(ctx, record), pipe.Get(ctx, answer)
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return got{}, err
		}
		r, err := m.decode(rec, state)
		if err != nil {
			return got{}, err
		}
		g := got{p: r.P}
		if b, err := ans.Bytes(); err == nil {
			var d tool.Decision
			if err := json.Unmarshal(b, &d); err != nil {
				return got{}, fmt.Errorf("the answer kept is not readable: %w", err)
			}
			g.d = &d
		}
		return g, nil
	})
	return g.p, g.d, err
}

// decode reads the record of state that cmd got.
func (m *PendingApprovalStore) decode(cmd *redis.StringCmd, state string) (pendingRecord, error) {
	var r pendingRecord
	b, err := cmd.Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return r, tool.ErrPendingGone
	case err != nil:
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil || r.P == nil || r.P.State != state {
		return r, errors.New("the approval kept is not readable")
	}
	return r, nil
}

// Answer implements [tool.PendingApprovalStore].
func (m *PendingApprovalStore) Answer(ctx context.Context, state string, d tool.Decision) (bool, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return false, fmt.Errorf("toolredis: answer: %w", err)
	}
	record, answer, member := m.pendingKeys(state)
	return run(ctx, &m.c, "answer", func(ctx context.Context) (bool, error) {
		c := m.c.client
		r, err := m.decode(c.Get(ctx, record), state)
		if err != nil {
			return false, err
		}
		keep := time.UnixMilli(r.Keep)
		err = set(ctx, c, answer, string(b), keep, true)
		switch {
		case errors.Is(err, redis.Nil):
			return false, nil // answered before
		case err != nil:
			return false, err
		}
		// Off the session's set, which lists the unanswered; List also
		// skips an answered approval should this fail.
		_ = c.ZRem(ctx, m.c.key("pending-session", r.P.Session), member).Err()
		return true, nil
	})
}

var _ tool.PendingApprovalStore = (*PendingApprovalStore)(nil)
