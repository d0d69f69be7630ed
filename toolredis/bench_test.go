package toolredis_test

import (
	"context"
	"strconv"
	"strings"
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

// BenchmarkSpillPut keeps 32 KiB, a cut result's size at the default
// caps, under a session's id (the script that holds the session to its
// bound, dropping its oldest entry on every put once it is full), against
// a bare SET of the same data with an expiry and against a Put of an id
// of no session (a SET behind the store's key hash and timeout).
func BenchmarkSpillPut(b *testing.B) {
	srv := redistest.New(b)
	rdb := client(b, srv)
	ctx := context.Background()
	ns := namespace()
	s := toolredis.NewSpillStore(rdb, &toolredis.Options{Namespace: ns, MaxSessionSpillBytes: 1 << 20})
	data := string(make([]byte, 32<<10))
	later := time.Now().Add(time.Hour)
	b.Run("floor=SET", func(b *testing.B) {
		for b.Loop() {
			if err := rdb.Set(ctx, ns+":raw", data, time.Hour).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Put/no-session", func(b *testing.B) { // a SET, as before sessions were bounded
		for b.Loop() {
			if err := s.Put(ctx, "id", data, later); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Put", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if err := s.Put(ctx, "5e55104d16e57a11."+strconv.Itoa(i), data, later); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRecordClaim claims a new call ID, against a bare SET NX of the
// same value, in the same run: with the check that Redis has not lost
// data (the server's INFO, read by the script), and without it
// (DurabilityLossAccepted); and a call's whole life in the store (the
// claim, made a started one, then its record).
func BenchmarkRecordClaim(b *testing.B) {
	srv := redistest.New(b)
	rdb := client(b, srv)
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	const claim = `{"claim":"0123456789abcdef0123456789abcdef","tool":"charge","args":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}`
	b.Run("floor=SET NX", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if err := rdb.SetNX(ctx, "floor:"+strconv.Itoa(i), claim, time.Hour).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		d    toolredis.Durability
	}{{"Claim", toolredis.DurabilityChecked}, {"Claim, not checking for lost data", toolredis.DurabilityLossAccepted}} {
		b.Run(c.name, func(b *testing.B) {
			s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace(), Durability: c.d})
			i := 0
			for b.Loop() {
				i++
				if _, ok, err := s.Claim(ctx, "conv", strconv.Itoa(i), claim, later); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
	b.Run("Claim, Replace, Record", func(b *testing.B) {
		s := toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: namespace()})
		i := 0
		for b.Loop() {
			i++
			id := strconv.Itoa(i)
			if _, ok, err := s.Claim(ctx, "conv", id, claim, later); err != nil || !ok {
				b.Fatal(ok, err)
			}
			if ok, err := s.Replace(ctx, "conv", id, claim, claim+" ", later); err != nil || !ok {
				b.Fatal(ok, err)
			}
			if ok, err := s.Record(ctx, "conv", id, claim+" ", "a record of 1 KiB "+strings.Repeat("x", 1000), later); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}
