package process

import (
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/toolbelt-go/tool/internal/text"
)

// HeadTailBuffer is an io.Writer that keeps the start and the end of what
// is written to it, within a byte cap, and counts what it drops in between.
// Writes never fail and never block, so a writer of any size (a child
// process's output, a log) is drained at full speed in bounded memory.
// It is safe for concurrent use, so stdout and stderr can share one.
type HeadTailBuffer struct {
	mu    sync.Mutex
	head  []byte // the first headCap bytes
	tail  []byte // ring of the last bytes, len(tail) == tailCap once full
	pos   int    // next write position in tail once it is full
	total int64
	max   int
}

// minHeadTail is the smallest cap of a HeadTailBuffer, so the marker fits.
const minHeadTail = 256

// NewHeadTailBuffer returns a buffer that keeps at most limit bytes: two
// thirds from the start, one third from the end. A limit below 256 is raised
// to 256.
func NewHeadTailBuffer(limit int) *HeadTailBuffer {
	return &HeadTailBuffer{max: max(limit, minHeadTail)}
}

func (b *HeadTailBuffer) caps() (head, tail int) {
	head = b.max * 2 / 3
	return head, b.max - head
}

// Write keeps what fits of p and counts the rest. It always returns
// len(p), nil.
func (b *HeadTailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	headCap, tailCap := b.caps()
	if room := headCap - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(p) >= tailCap { // only the last tailCap bytes can survive
		p = p[len(p)-tailCap:]
	}
	if len(b.tail) < tailCap { // still filling
		k := min(tailCap-len(b.tail), len(p))
		b.tail = append(b.tail, p[:k]...)
		p = p[k:]
		b.pos = len(b.tail) % tailCap
	}
	for len(p) > 0 { // at most two copies round the ring
		k := copy(b.tail[b.pos:], p)
		p = p[k:]
		b.pos = (b.pos + k) % tailCap
	}
	return n, nil
}

// Len returns how many bytes were written in all.
func (b *HeadTailBuffer) Len() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Dropped returns how many bytes String leaves out: zero while everything
// written fits.
func (b *HeadTailBuffer) Dropped() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, _, dropped := b.parts()
	return dropped
}

// parts returns the kept head and tail, each cut on a character boundary,
// and the count of bytes between them.
func (b *HeadTailBuffer) parts() (head, tail []byte, dropped int64) {
	if _, tailCap := b.caps(); len(b.tail) < tailCap || b.pos == 0 {
		tail = b.tail
	} else {
		tail = append(append(make([]byte, 0, len(b.tail)), b.tail[b.pos:]...), b.tail[:b.pos]...)
	}
	if b.total <= int64(b.max) {
		return append(b.head[:len(b.head):len(b.head)], tail...), nil, 0
	}
	head = b.head[:len(b.head)-trailingPartial(b.head)]
	i := 0
	for i < len(tail) && i < utf8.UTFMax && !utf8.RuneStart(tail[i]) {
		i++
	}
	tail = tail[i:]
	return head, tail, b.total - int64(len(head)) - int64(len(tail))
}

// trailingPartial returns how many bytes at the end of p are an incomplete
// UTF-8 sequence.
func trailingPartial(p []byte) int {
	for i := 1; i <= min(utf8.UTFMax-1, len(p)); i++ {
		c := p[len(p)-i]
		if utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(p[len(p)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// String returns what was written when it all fit; otherwise the head and
// the tail joined by a marker that says how many bytes were cut. The result
// is cut on character boundaries but not otherwise cleaned: invalid UTF-8
// written to the buffer is still there (the output stage escapes it).
func (b *HeadTailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	head, tail, dropped := b.parts()
	if dropped == 0 && tail == nil {
		return string(head)
	}
	return string(head) + "\n[… " + strconv.FormatInt(dropped, 10) + " bytes cut here …]\n" + string(tail)
}

// Tail returns up to n of the last bytes written, starting on a character
// boundary: the end of an error output, where the reason usually is.
func (b *HeadTailBuffer) Tail(n int) string {
	return text.Tail(b.String(), n)
}
