package toolredis_test

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool/toolredis/redistest"
)

// client returns a client of srv, closed when the test ends. It leaves
// ContextTimeoutEnabled off: the stores must bound their calls without
// it. Its read and write timeouts are a minute, longer than any bound a
// test checks, so that a store that waited on the client instead of
// returning at its own timeout fails the test (with go-redis's default
// read timeout, 3 s, it would pass the 10 s bound a loaded machine
// needs).
func client(t testing.TB, srv *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, DialTimeout: time.Second, MaxRetries: 1,
		ReadTimeout: time.Minute, WriteTimeout: time.Minute})
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
