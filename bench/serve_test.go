package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Both servers answer the same call with the same result, in sessions and
// stateless.
func TestServeCases(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		for _, c := range ServeCases() {
			t.Run(protocol+"/"+c.ID, func(t *testing.T) {
				s, err := c.Open(protocol >= "2026-07-28")
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				clients, err := s.Connect(context.Background(), 2, protocol)
				if err != nil {
					t.Fatal(err)
				}
				defer clients.Close()
				if r, err := clients.Load(context.Background(), 50*time.Millisecond); err != nil || r.Calls == 0 {
					t.Fatalf("%+v %v", r, err)
				}
				if protocol < "2026-07-28" {
					if b, g, err := s.IdleSessionCost(10); err != nil || b <= 0 || g < 0 {
						t.Errorf("idle session cost: %v bytes, %v goroutines, %v", b, g, err)
					}
				}
			})
		}
	}
}

// BenchmarkServe calls the tool b.N times spread over 1, 16 and 200
// concurrent sessions, through the bare SDK and through toolmcp, and
// reports calls/s besides ns/op. go run ./cmd/servetable runs the same
// load in interleaved rounds and prints latency percentiles and the
// ratios.
func BenchmarkServe(b *testing.B) {
	for _, n := range []int{1, 16, 200} {
		for _, c := range ServeCases() {
			b.Run(fmt.Sprintf("sessions=%d/%s", n, c.ID), func(b *testing.B) {
				s, err := c.Open(false)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				clients, err := s.Connect(context.Background(), n, "2025-11-25")
				if err != nil {
					b.Fatal(err)
				}
				defer clients.Close()
				b.ResetTimer()
				if n == 1 {
					for b.Loop() {
						if err := clients.Call(context.Background(), 0); err != nil {
							b.Fatal(err)
						}
					}
				} else {
					// About n goroutines, each on a session of its own.
					b.SetParallelism((n + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
					var session atomic.Int64
					b.RunParallel(func(pb *testing.PB) {
						i := int(session.Add(1)-1) % n
						for pb.Next() {
							if err := clients.Call(context.Background(), i); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}
