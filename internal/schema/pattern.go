package schema

import (
	"container/list"
	"regexp"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A pattern can cost the regexp engine up to its program size per byte of
// the string it checks, and the fast path and the authority may check the
// same string against the same pattern. For strings long enough for that
// to matter, the answer is remembered, so each pattern runs at most once
// per value.

// memoMinLen is the string length from which pattern answers are
// remembered; shorter strings cost less to check than to look up.
const memoMinLen = 4 << 10

// memoMaxBytes bounds the strings the memo holds (it keeps them alive).
const memoMaxBytes = 8 << 20

type memoKey struct {
	pattern *regexp.Regexp
	s       string
}

type patternMemo struct {
	mu    sync.Mutex
	m     map[memoKey]bool
	order list.List // of memoKey, oldest first
	bytes int
}

var memo = patternMemo{m: map[memoKey]bool{}}

// matchString reports whether re matches s, from the memo when s is long
// and was checked against re before.
func matchString(re *regexp.Regexp, s string) bool {
	if len(s) < memoMinLen {
		return re.MatchString(s)
	}
	k := memoKey{re, s}
	memo.mu.Lock()
	ok, found := memo.m[k]
	memo.mu.Unlock()
	if found {
		return ok
	}
	ok = re.MatchString(s)
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if _, found := memo.m[k]; !found {
		memo.m[k] = ok
		memo.order.PushBack(k)
		memo.bytes += len(s)
		for memo.bytes > memoMaxBytes {
			old := memo.order.Remove(memo.order.Front()).(memoKey)
			delete(memo.m, old)
			memo.bytes -= len(old.s)
		}
	}
	return ok
}

// patterns compiles each distinct pattern of one schema once, for the fast
// path and the authority alike, so both share the memo.
type patterns struct {
	mu sync.Mutex
	m  map[string]*regexp.Regexp
}

func (p *patterns) compile(s string) (*regexp.Regexp, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if re, ok := p.m[s]; ok {
		return re, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, err
	}
	if p.m == nil {
		p.m = map[string]*regexp.Regexp{}
	}
	p.m[s] = re
	return re, nil
}

// engine is the authority's regexp engine: Go's regexp (as santhosh's own
// default), through the memo.
func (p *patterns) engine(s string) (jsonschema.Regexp, error) {
	re, err := p.compile(s)
	if err != nil {
		return nil, err
	}
	return memoRegexp{re}, nil
}

type memoRegexp struct{ re *regexp.Regexp }

func (m memoRegexp) MatchString(s string) bool { return matchString(m.re, s) }
func (m memoRegexp) String() string            { return m.re.String() }
