package toolredis

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"time"

	"github.com/redis/go-redis/v9"
)

// Options configure the stores. A nil *Options, or a zero field, means the
// documented default.
type Options struct {
	// Namespace starts every key (Namespace + ":spill:" + …). Replicas of
	// one agent use the same; agents sharing a Redis use different ones.
	// Empty means "toolbelt".
	Namespace string
	// Timeout bounds each operation, on top of the caller's context: an
	// operation Redis has not answered within it fails, and the pipeline
	// falls back (see the package documentation). Zero means
	// [DefaultTimeout]; negative means the context alone bounds it.
	Timeout time.Duration
	// MaxSpillBytes bounds one spilled entry. A larger one is refused, and
	// the result is then cut without a way to read on. Zero means
	// [DefaultMaxSpillBytes].
	MaxSpillBytes int
	// MaxSessionSpillBytes bounds what the spilled entries of one session
	// hold together in a [SpillStore] (the session is the part of an id
	// before its first dot, as the registry makes ids; see
	// [tool.SpillStore]): the data, and a fixed cost per entry for its
	// keys. Past it, that session's oldest entries are dropped to make
	// room, so that one session's flood of long results costs only that
	// session, and an entry larger than the bound alone is refused. Zero
	// means four entries of the largest size (MaxSpillBytes), 32 MiB by
	// default: many times what a conversation reads back in the entries'
	// lifetime (the cursor TTL).
	MaxSessionSpillBytes int
	// MaxSessionClaims bounds the unexpired claims of resumed approvals
	// one session may hold in an [ApprovalStore]: past it, the session's
	// next claim is refused (its resumed call does not run), and no other
	// session is affected. Zero means [DefaultMaxSessionClaims].
	MaxSessionClaims int
	// MaxRecordBytes bounds one record of a [RecordStore]: the model view
	// of one result, as JSON. A larger record is not kept (its call is
	// marked as one that ran whose result could not be kept). Zero means
	// [DefaultMaxRecordBytes].
	MaxRecordBytes int
	// MaxSessionRecordBytes bounds what the claims and records of one
	// session hold together in a [RecordStore]: the values, and a fixed
	// cost per entry for its keys. Past it, that session's oldest records
	// are dropped to make room (a repeat of their calls then runs again);
	// its claims, calls in progress, never are: when they alone fill it,
	// the session's next claim is refused (wrapping
	// [tool.ErrRecordStoreFull]), and no other session is affected. Zero
	// means sixteen records of the largest size (MaxRecordBytes), 16 MiB
	// by default.
	MaxSessionRecordBytes int
	// Durability says how far the stores take Redis to keep what it
	// acknowledged: whether a server found restarted, or a replica that
	// took over, may have lost claims. The zero value,
	// [DurabilityChecked], asks the server.
	Durability Durability
	// ClaimLifetime is the longest a claim of the stores lives: the
	// registry's RecordFor, and a resumed approval's claim
	// (ApprovalOptions.Timeout and a minute), whichever is longer. After
	// Redis may have lost its data, claims are refused for this long (or
	// for the longest lifetime of a claim this process kept, if longer),
	// since one it lost could matter until then. Zero means
	// [DefaultClaimLifetime].
	ClaimLifetime time.Duration
}

// DefaultNamespace starts every key when Options leave Namespace empty.
const DefaultNamespace = "toolbelt"

// DefaultTimeout bounds each Redis operation when Options leave Timeout
// unset: long enough for a loaded Redis, short enough that a call does not
// stall for long on one that stopped answering.
const DefaultTimeout = time.Second

// DefaultMaxSpillBytes bounds one spilled entry when Options leave
// MaxSpillBytes unset: a result's cut part larger than this is not kept.
const DefaultMaxSpillBytes = 8 << 20

// DefaultMaxSessionClaims bounds one session's claims when Options leave
// MaxSessionClaims unset: far more deferred approvals than a person answers
// in a claim's lifetime (the approval timeout and a minute), far fewer than
// would crowd a shared Redis.
const DefaultMaxSessionClaims = 1000

// DefaultMaxRecordBytes bounds one record when Options leave
// MaxRecordBytes unset: a result at many times the default output cap.
const DefaultMaxRecordBytes = 1 << 20

// config is Options with the defaults filled in.
type config struct {
	client           redis.UniversalClient
	namespace        string
	timeout          time.Duration // <= 0: none
	maxSpill         int
	maxSessionSpill  int
	maxSessionClaims int
	maxRecord        int
	maxSessionRecord int
	durability       Durability
	claimLifetime    time.Duration
}

func newConfig(c redis.UniversalClient, o *Options) config {
	if c == nil {
		panic("toolredis: nil Redis client")
	}
	cfg := config{client: c, namespace: DefaultNamespace, timeout: DefaultTimeout, maxSpill: DefaultMaxSpillBytes, maxSessionClaims: DefaultMaxSessionClaims,
		maxRecord: DefaultMaxRecordBytes}
	if o == nil {
		o = &Options{}
	}
	if o.Namespace != "" {
		cfg.namespace = o.Namespace
	}
	if o.Timeout != 0 {
		cfg.timeout = o.Timeout
	}
	if o.MaxSpillBytes > 0 {
		cfg.maxSpill = o.MaxSpillBytes
	}
	if o.MaxSessionClaims > 0 {
		cfg.maxSessionClaims = o.MaxSessionClaims
	}
	if o.MaxRecordBytes > 0 {
		cfg.maxRecord = o.MaxRecordBytes
	}
	cfg.maxSessionSpill = 4 * (cfg.maxSpill + spillEntryCost)
	if o.MaxSessionSpillBytes > 0 {
		cfg.maxSessionSpill = o.MaxSessionSpillBytes
	}
	cfg.maxSessionRecord = 16 * (cfg.maxRecord + recordEntryCost)
	if o.MaxSessionRecordBytes > 0 {
		cfg.maxSessionRecord = o.MaxSessionRecordBytes
	}
	cfg.durability, cfg.claimLifetime = o.Durability, DefaultClaimLifetime
	if o.ClaimLifetime > 0 {
		cfg.claimLifetime = o.ClaimLifetime
	}
	return cfg
}

// key returns the Redis key of parts under kind ("spill", "allow",
// "claims"): the namespace, the kind, and a hash of the parts. The hash
// keeps keys short and of one length whatever the model or host put in the
// parts.
func (c *config) key(kind string, parts ...string) string {
	return c.namespace + ":" + kind + ":" + hash(parts...)
}

// hash is the hex SHA-256 of parts, each prefixed with its length so that
// no two lists of parts hash alike ("a\x00b","c" and "a","b\x00c" differ).
func hash(parts ...string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, p := range parts {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(p)))])
		_, _ = io.WriteString(h, p)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}
