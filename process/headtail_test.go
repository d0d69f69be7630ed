package process_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/process"
)

// wantHeadTail is what a HeadTailBuffer of limit must show after data was
// written to it, however the writes were split.
func wantHeadTail(data []byte, limit int) (string, int64) {
	if len(data) <= limit {
		return string(data), 0
	}
	headCap := limit * 2 / 3
	head := data[:headCap]
	if i := lastRuneStart(head); i < len(head) && !utf8.FullRune(head[i:]) {
		head = head[:i] // an incomplete character at the end
	}
	tail := data[len(data)-(limit-headCap):]
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	dropped := int64(len(data) - len(head) - len(tail))
	return fmt.Sprintf("%s\n[… %d bytes cut here …]\n%s", head, dropped, tail), dropped
}

func lastRuneStart(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			return i
		}
	}
	return len(p)
}

func TestHeadTailBuffer(t *testing.T) {
	multi := []byte(strings.Repeat("añ€😀", 500))
	tests := []struct {
		name   string
		data   []byte
		limit  int
		chunks []int // write sizes, repeated; nil writes all at once
	}{
		{"fits", []byte("short output"), 300, nil},
		{"exactly the cap", bytes.Repeat([]byte("x"), 300), 300, nil},
		{"one byte over", bytes.Repeat([]byte("x"), 301), 300, []int{1}},
		{"one write", multi, 300, nil},
		{"byte at a time", multi, 300, []int{1}},
		{"odd chunks", multi, 999, []int{7, 300, 1, 64}},
		{"chunks larger than the tail", multi, 300, []int{250}},
		{"binary", bytes.Repeat([]byte{0xff, 0x00, 0xe2, 0x82}, 1000), 400, []int{3, 17}},
		{"limit raised to 256", multi, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := process.NewHeadTailBuffer(tt.limit)
			writeChunks(b, tt.data, tt.chunks)
			want, dropped := wantHeadTail(tt.data, max(tt.limit, 256))
			assert.Equal(t, want, b.String())
			assert.Equal(t, dropped, b.Dropped())
			assert.Equal(t, int64(len(tt.data)), b.Len())
			if utf8.Valid(tt.data) {
				assert.True(t, utf8.ValidString(b.String()))
			}
		})
	}
}

func writeChunks(w io.Writer, data []byte, chunks []int) {
	if len(chunks) == 0 {
		w.Write(data)
		return
	}
	for i := 0; len(data) > 0; i++ {
		n := min(chunks[i%len(chunks)], len(data))
		w.Write(data[:n])
		data = data[n:]
	}
}

func TestHeadTailBufferTail(t *testing.T) {
	b := process.NewHeadTailBuffer(300)
	fmt.Fprint(b, strings.Repeat("é", 1000)+"error: disk full")
	assert.Equal(t, "é"+"error: disk full", b.Tail(18), "starts on a character")
	assert.Equal(t, "short", func() string { s := process.NewHeadTailBuffer(0); s.Write([]byte("short")); return s.Tail(100) }())
}

func TestHeadTailBufferConcurrentWriters(t *testing.T) {
	b := process.NewHeadTailBuffer(1 << 10)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 1000 {
				fmt.Fprintf(b, "writer %d\n", i)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(8*1000*len("writer 0\n")), b.Len())
	assert.LessOrEqual(t, len(b.String()), 1<<10+64)
}

func FuzzHeadTailBuffer(f *testing.F) {
	f.Add([]byte("hello, world"), uint16(256), uint8(3))
	f.Add(bytes.Repeat([]byte("añ€😀"), 200), uint16(300), uint8(1))
	f.Add(bytes.Repeat([]byte{0xf0, 0x9f}, 300), uint16(257), uint8(250))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, chunk uint8) {
		b := process.NewHeadTailBuffer(int(limit))
		writeChunks(b, data, []int{int(chunk) + 1})
		want, dropped := wantHeadTail(data, max(int(limit), 256))
		require.Equal(t, want, b.String())
		require.Equal(t, dropped, b.Dropped())
	})
}
