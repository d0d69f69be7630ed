// Package expiring is a bounded set of keys that expire, oldest first, in
// groups that are bounded too: what the in-memory approval store keeps its
// answers and claims in, one group per session.
package expiring

import (
	"container/list"
	"time"
)

// Set is a bounded set of keys that expire, each in a group (a session).
// It is not safe for concurrent use: its owner holds a lock.
type Set struct {
	max, perGroup int
	evictLive     bool // past a bound, drop the oldest live key; else refuse the new one
	m             map[string]*list.Element
	order         list.List // of *entry, oldest first
	groups        map[string]*list.List
}

type entry struct {
	key, group string
	expires    time.Time
	inGroup    *list.Element // in groups[group], of *entry
}

// New returns a set of at most max keys, at most perGroup of them in one
// group (zero: no bound of its own). Past a bound, expired keys go first;
// then, with evictLive, the oldest live key (of the group, for the group's
// bound) makes room, and without it the new key is refused (Add reports
// false). The group bound is what keeps one group's flood from using up
// the room of the others.
func New(max, perGroup int, evictLive bool) *Set {
	return &Set{max: max, perGroup: perGroup, evictLive: evictLive, m: map[string]*list.Element{}, groups: map[string]*list.List{}}
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

// Delete drops key, if it is held.
func (s *Set) Delete(key string) {
	if el, ok := s.m[key]; ok {
		s.remove(el)
	}
}

// Len returns the number of keys held, expired ones not yet dropped
// included.
func (s *Set) Len() int { return len(s.m) }

// Add records key, in group, until expires and reports whether it could.
func (s *Set) Add(key, group string, expires, now time.Time) bool {
	if el, ok := s.m[key]; ok {
		s.remove(el)
	}
	// Most keys expire in the order they came (one lifetime for all), so
	// the expired ones are at the front.
	for f := s.order.Front(); f != nil && !now.Before(f.Value.(*entry).expires); f = s.order.Front() {
		s.remove(f)
	}
	if g := s.groups[group]; s.perGroup > 0 && g != nil && g.Len() >= s.perGroup {
		s.sweepGroup(g, now) // an expired key behind a live one; at most perGroup of them
		if g.Len() >= s.perGroup {
			if !s.evictLive {
				return false
			}
			s.remove(s.m[g.Front().Value.(*entry).key])
		}
	}
	if len(s.m) >= s.max {
		if !s.evictLive {
			s.sweep(now)
			if len(s.m) >= s.max {
				return false
			}
		} else {
			s.remove(s.order.Front())
		}
	}
	e := &entry{key: key, group: group, expires: expires}
	g := s.groups[group]
	if g == nil {
		g = list.New()
		s.groups[group] = g
	}
	e.inGroup = g.PushBack(e)
	s.m[key] = s.order.PushBack(e)
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

func (s *Set) sweepGroup(g *list.List, now time.Time) {
	for el := g.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*entry); !now.Before(e.expires) {
			s.remove(s.m[e.key])
		}
		el = next
	}
}

func (s *Set) remove(el *list.Element) {
	e := s.order.Remove(el).(*entry)
	delete(s.m, e.key)
	g := s.groups[e.group]
	g.Remove(e.inGroup)
	if g.Len() == 0 {
		delete(s.groups, e.group)
	}
}
