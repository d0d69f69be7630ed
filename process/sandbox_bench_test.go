//go:build linux

package process_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/toolbelt-go/tool/internal/sandboxtest"
	"github.com/toolbelt-go/tool/process"
)

// BenchmarkSandbox measures what a sandbox costs a command: each iteration
// runs the same command bare and in the sandbox, one after the other, so
// that both see the same machine; it reports the time of each and the
// ratio:
//
//	go test -run '^$' -bench Sandbox -count 5 ./process
func BenchmarkSandbox(b *testing.B) {
	for _, mode := range sandboxtest.Modes {
		for _, access := range []string{"read", "write"} {
			b.Run(mode.String()+"/"+access, func(b *testing.B) {
				sandboxtest.Need(b, mode)
				j := newJail(b)
				sb := j.sandbox(mode, access == "write")
				cmd := process.Command{Path: "sh", Args: []string{"-c", "cat a.txt"}, Dir: j.ws, Env: os.Environ()}
				boxed := cmd
				boxed.Sandbox = sb
				var bare, inside time.Duration
				run := func(c process.Command) time.Duration {
					start := time.Now()
					res, err := process.Run(context.Background(), c)
					if err != nil || res.Stdout != "hello\n" {
						b.Fatal(err, res)
					}
					return time.Since(start)
				}
				i := 0
				for b.Loop() {
					// In turns, which goes first: neither pays for the
					// other's cold start.
					if i++; i%2 == 0 {
						bare += run(cmd)
						inside += run(boxed)
					} else {
						inside += run(boxed)
						bare += run(cmd)
					}
				}
				b.ReportMetric(float64(bare.Microseconds())/1000/float64(b.N), "bare-ms")
				b.ReportMetric(float64(inside.Microseconds())/1000/float64(b.N), "sandboxed-ms")
				b.ReportMetric(float64(inside)/float64(bare), "ratio")
			})
		}
	}
}
