package process_test

import (
	"io"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
)

// The capture benchmarks compare draining 100 MiB of output through a
// HeadTailBuffer with copying it to io.Discard, the floor (the target is at
// least half its throughput); B/op shows the memory stays near the cap:
//
//	go test -run '^$' -bench 'Capture' -count 5
const captureSize = 100 << 20

// floodReader yields n bytes of log-like text without holding them.
type floodReader struct{ left int }

var floodLine = []byte("2026-11-22T12:00:00Z INFO build step finished without errors — ok\n")

func (r *floodReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && n < r.left {
		n += copy(p[n:min(len(p), r.left)], floodLine)
	}
	r.left -= n
	return n, nil
}

func BenchmarkCaptureFloorDiscard(b *testing.B) {
	b.SetBytes(captureSize)
	b.ReportAllocs()
	buf := make([]byte, 32<<10)
	for b.Loop() {
		if _, err := io.CopyBuffer(io.Discard, &floodReader{left: captureSize}, buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCaptureHeadTail(b *testing.B) {
	b.SetBytes(captureSize)
	b.ReportAllocs()
	buf := make([]byte, 32<<10)
	for b.Loop() {
		w := process.NewHeadTailBuffer(tool.DefaultMaxOutputBytes)
		if _, err := io.CopyBuffer(w, &floodReader{left: captureSize}, buf); err != nil {
			b.Fatal(err)
		}
		if w.Dropped() != captureSize-int64(tool.DefaultMaxOutputBytes) {
			b.Fatalf("dropped %d", w.Dropped())
		}
	}
}
