// Package expiring is a bounded set of keys that expire, oldest first: what
// the in-memory approval store keeps its answers and claims in.
package expiring

import (
	"container/list"
	"time"
)

// Set is a bounded set of keys that expire. It is not safe for concurrent
// use: its owner holds a lock.
type Set struct {
	max       int
	evictLive bool // past max, drop the oldest live key; else refuse the new one
	m         map[string]*list.Element
	order     list.List // of *entry, oldest first
}

type entry struct {
	key     string
	expires time.Time
}

// New returns a set of at most max keys. Past max, expired keys go first;
// then, with evictLive, the oldest live key makes room, and without it the
// new key is refused (Add reports false).
func New(max int, evictLive bool) *Set {
	return &Set{max: max, evictLive: evictLive, m: map[string]*list.Element{}}
}

// Has reports whether key is in the set and unexpired at now.
func (s *Set) Has(key string, now time.Time) bool {
	el, ok := s.m[key]
	if !ok {
		return false
	}
	if !now.Before(el.Value.(*entry).expires) {
		s.remove(el)
		return false
	}
	return true
}

// Add records key until expires and reports whether it could.
func (s *Set) Add(key string, expires, now time.Time) bool {
	if el, ok := s.m[key]; ok {
		s.remove(el)
	}
	// Most keys expire in the order they came (one lifetime for all), so
	// the expired ones are at the front.
	for f := s.order.Front(); f != nil && !now.Before(f.Value.(*entry).expires); f = s.order.Front() {
		s.remove(f)
	}
	if len(s.m) >= s.max {
		if !s.evictLive {
			s.sweep(now) // an expired key behind a live one
			if len(s.m) >= s.max {
				return false
			}
		} else {
			s.remove(s.order.Front())
		}
	}
	s.m[key] = s.order.PushBack(&entry{key: key, expires: expires})
	return true
}

func (s *Set) sweep(now time.Time) {
	for el := s.order.Front(); el != nil; {
		next := el.Next()
		if !now.Before(el.Value.(*entry).expires) {
			s.remove(el)
		}
		el = next
	}
}

func (s *Set) remove(el *list.Element) {
	delete(s.m, s.order.Remove(el).(*entry).key)
}
