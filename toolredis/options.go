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

// config is Options with the defaults filled in.
type config struct {
	client    redis.UniversalClient
	namespace string
	timeout   time.Duration // <= 0: none
	maxSpill  int
}

func newConfig(c redis.UniversalClient, o *Options) config {
	if c == nil {
		panic("toolredis: nil Redis client")
	}
	cfg := config{client: c, namespace: DefaultNamespace, timeout: DefaultTimeout, maxSpill: DefaultMaxSpillBytes}
	if o == nil {
		return cfg
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
	return cfg
}

// key returns the Redis key of parts under kind ("spill", "allow",
// "claim"): the namespace, the kind, and a hash of the parts, each part
// prefixed with its length so that no two lists of parts hash alike
// ("a\x00b","c" and "a","b\x00c" differ). The hash keeps keys short and of
// one length whatever the model or host put in the parts.
func (c *config) key(kind string, parts ...string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, p := range parts {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(p)))])
		_, _ = io.WriteString(h, p)
	}
	var sum [sha256.Size]byte
	return c.namespace + ":" + kind + ":" + hex.EncodeToString(h.Sum(sum[:0]))
}
