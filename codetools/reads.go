package codetools

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"

	"github.com/toolbelt-go/tool"
)

// readLog remembers, per session and file, the content the model last saw
// (read or wrote), as a hash: enough to tell whether the file changed
// since, in 32 bytes. Per session, because one toolset may serve many
// conversations (an MCP server's sessions): what one model read does not
// let another edit. Content rather than modification time and size, because those
// miss an edit within the clock's granularity that keeps the size.
// Bounded: the least recently used entry goes first.
type readLog struct {
	mu  sync.Mutex
	max int
	ll  *list.List // of *readEntry, most recent first
	m   map[string]*list.Element
}

type readEntry struct {
	key string // readKey
	sum [sha256.Size]byte
}

// readKey is the log's key for path in session: a digest of the session
// (bounded, whatever the session's length), then the path.
func readKey(session, path string) string {
	d := sha256.Sum256([]byte(session))
	return string(d[:16]) + path
}

func newReadLog(max int) *readLog {
	return &readLog{max: max, ll: list.New(), m: map[string]*list.Element{}}
}

// remember records that the model of session has seen content as the
// file at path.
func (l *readLog) remember(session, path string, content []byte) {
	sum := sha256.Sum256(content)
	key := readKey(session, path)
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.m[key]; ok {
		e.Value.(*readEntry).sum = sum
		l.ll.MoveToFront(e)
		return
	}
	l.m[key] = l.ll.PushFront(&readEntry{key: key, sum: sum})
	for l.ll.Len() > l.max {
		old := l.ll.Back()
		l.ll.Remove(old)
		delete(l.m, old.Value.(*readEntry).key)
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

func (l *readLog) check(session, path string, content []byte) seen {
	sum := sha256.Sum256(content)
	key := readKey(session, path)
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[key]
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

// session is the session of the call running under ctx: "" for a call
// without one, or outside a call (all such calls share one memory).
func session(ctx context.Context) string {
	info, _ := tool.CallInfoFrom(ctx)
	return info.Session
}
