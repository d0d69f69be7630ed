package toolredis_test

import (
	"context"
	"testing"
	"time"

	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
)

// BenchmarkAllowed compares ApprovalStore.Allowed with the bare EXISTS it
// sends, in the same run: the difference is the key hash and the goroutine
// that keeps the call bounded whatever the client's settings.
func BenchmarkAllowed(b *testing.B) {
	srv := redistest.New(b)
	rdb := client(b, srv)
	ctx := context.Background()
	mem := toolredis.NewApprovalStore(rdb, &toolredis.Options{Namespace: namespace()})
	if err := mem.Remember(ctx, "session", "tool\x00mutating", time.Now().Add(time.Hour)); err != nil {
		b.Fatal(err)
	}
	b.Run("floor=EXISTS", func(b *testing.B) {
		for b.Loop() {
			if err := rdb.Exists(ctx, "some-key").Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Allowed", func(b *testing.B) {
		for b.Loop() {
			if ok, err := mem.Allowed(ctx, "session", "tool\x00mutating"); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}

// BenchmarkSpillGet reads 32 KiB, read_output's part size, from a 1 MiB
// entry, against a bare GETRANGE of the same range.
func BenchmarkSpillGet(b *testing.B) {
	srv := redistest.New(b)
	rdb := client(b, srv)
	ctx := context.Background()
	ns := namespace()
	s := toolredis.NewSpillStore(rdb, &toolredis.Options{Namespace: ns})
	data := string(make([]byte, 1<<20))
	if err := s.Put(ctx, "id", data, time.Now().Add(time.Hour)); err != nil {
		b.Fatal(err)
	}
	if err := rdb.Set(ctx, ns+":raw", data, time.Hour).Err(); err != nil {
		b.Fatal(err)
	}
	b.Run("floor=GETRANGE", func(b *testing.B) {
		for b.Loop() {
			if err := rdb.GetRange(ctx, ns+":raw", 500_000, 500_000+32<<10-1).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Get(ctx, "id", 500_000, 32<<10); err != nil {
				b.Fatal(err)
			}
		}
	})
}
