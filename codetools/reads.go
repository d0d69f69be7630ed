package codetools

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// readLog remembers, per file, the content the model last saw (read or
// wrote), as a hash: enough to tell whether the file changed since, in 32
// bytes. Content rather than modification time and size, because those
// miss an edit within the clock's granularity that keeps the size.
// Bounded: the least recently used entry goes first.
type readLog struct {
	mu  sync.Mutex
	max int
	ll  *list.List // of *readEntry, most recent first
	m   map[string]*list.Element
}

type readEntry struct {
	path string
	sum  [sha256.Size]byte
}

func newReadLog(max int) *readLog {
	return &readLog{max: max, ll: list.New(), m: map[string]*list.Element{}}
}

// remember records that the model has seen content as the file at path.
func (l *readLog) remember(path string, content []byte) {
	sum := sha256.Sum256(content)
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.m[path]; ok {
		e.Value.(*readEntry).sum = sum
		l.ll.MoveToFront(e)
		return
	}
	l.m[path] = l.ll.PushFront(&readEntry{path: path, sum: sum})
	for l.ll.Len() > l.max {
		old := l.ll.Back()
		l.ll.Remove(old)
		delete(l.m, old.Value.(*readEntry).path)
	}
}

// seen says whether the model has seen the file at path, and whether what
// it saw is content.
type seen uint8

const (
	notSeen seen = iota
	seenOther
	seenSame
)

func (l *readLog) check(path string, content []byte) seen {
	sum := sha256.Sum256(content)
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[path]
	if !ok {
		return notSeen
	}
	if e.Value.(*readEntry).sum != sum {
		return seenOther
	}
	return seenSame
}

func (l *readLog) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ll.Init()
	clear(l.m)
}
