package toolredis_test

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool/toolredis/redistest"
)

// client returns a client of srv, closed when the test ends. Its timeouts
// are go-redis's defaults except where a test needs them shorter, and it
// leaves ContextTimeoutEnabled off: the stores must bound their calls
// without it.
func client(t testing.TB, srv *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, DialTimeout: time.Second, MaxRetries: 1})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// namespace returns a namespace no other test uses, so tests may share a
// server.
func namespace() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "test-" + hex.EncodeToString(b[:])
}
