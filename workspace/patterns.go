package workspace

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Patterns is a list of path patterns in the syntax of .gitignore files.
// The workspace uses it for its deny list and its read-only subtrees, and
// file tools use it to honour .gitignore files.
//
// The subset of the .gitignore syntax it understands:
//
//   - one pattern per line; blank lines and lines starting with # are
//     skipped (\# for a literal #); trailing spaces are dropped;
//   - a leading ! negates the pattern: a path it matches is matched no more
//     (\! for a literal !); the last pattern that matches a path decides;
//   - a trailing / matches directories only;
//   - a pattern with no other / matches the base name at any depth (*.pem
//     matches a.pem and keys/b.pem); one with a / is anchored to the
//     directory the patterns belong to (a leading / only anchors);
//   - *, ? and [...] as in [path.Match], never matching a /; ** as a whole
//     segment matches any number of directories (**/x, a/**/b); a trailing
//     /** matches everything inside a directory.
//
// Left out: the files git reads besides .gitignore (.git/info/exclude,
// core.excludesFile), and escaped trailing spaces.
//
// A Patterns is immutable and safe for concurrent use.
type Patterns struct {
	list []pattern
	fold bool // compare case-insensitively and in Unicode NFC
	// An index of list, so that matching a name does not try every
	// pattern: byLast holds the patterns whose last segment is literal,
	// by that segment; stars the base-name patterns made of literals and
	// * alone (*.pem, id_rsa*, *service-account*.json), matched without
	// path.Match; others the rest. Matching tries the patterns the index
	// names, and keeps the last (the highest position) that matches.
	byLast map[string][]int
	stars  []starPattern
	others []int
}

// starPattern is a base-name pattern of literals and *: its literal
// parts, split at each *.
type starPattern struct {
	parts []string
	i     int
}

// match reports whether name matches: the first part starts it, the last
// ends it, and the others appear in order between (taking the leftmost
// occurrence of each is enough when * is the only wildcard).
func (sp *starPattern) match(name string) bool {
	first, last := sp.parts[0], sp.parts[len(sp.parts)-1]
	if len(name) < len(first)+len(last) || !strings.HasPrefix(name, first) || !strings.HasSuffix(name, last) {
		return false
	}
	rest := name[len(first) : len(name)-len(last)]
	for _, mid := range sp.parts[1 : len(sp.parts)-1] {
		i := strings.Index(rest, mid)
		if i < 0 {
			return false
		}
		rest = rest[i+len(mid):]
	}
	return true
}

type pattern struct {
	text    string // as written, for messages
	neg     bool
	dirOnly bool
	base    bool     // no slash: match the last segment only
	segs    []string // anchored segments ("**" is a segment of its own)
	double  bool     // segs holds a "**"
}

// maxPatternBytes bounds one pattern; a longer line is not a pattern.
const maxPatternBytes = 4096

// The reasons a line is not a pattern; path.Match gives the third,
// path.ErrBadPattern. Made once: a file of invalid lines costs no
// allocation per line.
var (
	errPatternLong = fmt.Errorf("longer than %d bytes", maxPatternBytes)
	errPatternUTF8 = errors.New("not valid UTF-8")
)

// maxBadNamed bounds the invalid lines ParsePatterns' error names.
const maxBadNamed = 10

// ParsePatterns parses patterns in .gitignore syntax, one per element; an
// element may also hold several lines, as a .gitignore file does. Matching
// is case-sensitive, as git's is by default. It returns the patterns that
// are valid and an error naming the lines that are not (a malformed [...]
// class, invalid UTF-8, a line over 4096 bytes: the first ten, and how
// many more); git skips such lines, and so may the caller.
func ParsePatterns(lines ...string) (*Patterns, error) {
	return parsePatterns(false, lines)
}

func parsePatterns(fold bool, lines []string) (*Patterns, error) {
	p := &Patterns{fold: fold}
	var bad []string
	nbad := 0
	for _, block := range lines {
		for line := range strings.SplitSeq(block, "\n") {
			pt, ok, err := parsePattern(line, fold)
			if err != nil {
				// Only the first few are named: a file of invalid lines
				// would otherwise cost a message per line, about 100 times
				// its size.
				if nbad++; nbad <= maxBadNamed {
					bad = append(bad, fmt.Sprintf("%q: %v", cut(line, 80), err))
				}
				continue
			}
			if ok {
				p.list = append(p.list, pt)
			}
		}
	}
	p.index()
	if nbad > maxBadNamed {
		bad = append(bad, fmt.Sprintf("and %d more", nbad-maxBadNamed))
	}
	if len(bad) > 0 {
		return p, fmt.Errorf("workspace: invalid patterns: %s", strings.Join(bad, "; "))
	}
	return p, nil
}

func (p *Patterns) index() {
	p.byLast = make(map[string][]int)
	for i, pt := range p.list {
		last := pt.segs[len(pt.segs)-1]
		switch {
		case !strings.ContainsAny(last, `*?[\`):
			p.byLast[last] = append(p.byLast[last], i)
		case pt.base && !strings.ContainsAny(last, "?[\\"):
			p.stars = append(p.stars, starPattern{strings.Split(last, "*"), i})
		default:
			p.others = append(p.others, i)
		}
	}
}

func parsePattern(line string, fold bool) (pattern, bool, error) {
	line = strings.TrimSuffix(line, "\r")
	if len(line) > maxPatternBytes {
		return pattern{}, false, errPatternLong
	}
	if !utf8.ValidString(line) {
		return pattern{}, false, errPatternUTF8
	}
	line = strings.TrimRight(line, " ")
	if line == "" || line[0] == '#' {
		return pattern{}, false, nil
	}
	pt := pattern{text: line}
	switch {
	case line[0] == '!':
		pt.neg = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		pt.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return pattern{}, false, nil // "/" or "!/": matches nothing, as in git
	}
	if fold {
		line = foldName(line)
	}
	// Each segment is checked before it is kept: a line that is not a
	// pattern costs no allocation.
	if !strings.Contains(line, "/") {
		if err := checkSeg(line); err != nil {
			return pattern{}, false, err
		}
		pt.base = true
		pt.segs = []string{line}
	} else {
		line = strings.TrimLeft(line, "/")
		for s := range strings.SplitSeq(line, "/") {
			if s == "" {
				continue // a//b is a/b
			}
			if s == "**" {
				if n := len(pt.segs); n > 0 && pt.segs[n-1] == "**" {
					continue // **/** is **
				}
				pt.double = true
			} else if err := checkSeg(s); err != nil {
				return pattern{}, false, err
			}
			pt.segs = append(pt.segs, s)
		}
		if len(pt.segs) == 0 {
			return pattern{}, false, nil
		}
	}
	if pt.base && pt.segs[0] == "**" {
		pt.double = true // "**" alone: everything
		pt.base = false
	}
	return pt, true, nil
}

// checkSeg reports a malformed segment ("**" is one of its own).
func checkSeg(s string) error {
	if s == "**" {
		return nil
	}
	_, err := path.Match(s, "")
	return err
}

// Len returns the number of patterns.
func (p *Patterns) Len() int {
	if p == nil {
		return 0
	}
	return len(p.list)
}

// Match reports whether name is matched by the patterns: the last pattern
// that matches it decides, and a negated pattern un-matches. name is a
// slash-separated path relative to the directory the patterns belong to,
// without a leading or trailing slash; isDir says whether it is a
// directory (patterns ending in / match only those). decided reports
// whether any pattern matched at all, so that a caller stacking the
// patterns of nested directories can let the deepest that decides win.
//
// Match looks at name alone, not at its parent directories: git, and the
// workspace, also treat everything under a matched directory as matched.
func (p *Patterns) Match(name string, isDir bool) (matched, decided bool) {
	if p == nil || len(p.list) == 0 {
		return false, false
	}
	if p.fold {
		name = foldName(name)
	}
	return p.match(name, isDir)
}

// match is Match for a name already folded.
func (p *Patterns) match(name string, isDir bool) (matched, decided bool) {
	last := name[strings.LastIndexByte(name, '/')+1:]
	var segs []string
	best := -1
	// try tries pattern i; known says the index matched its last
	// segment, which is all a base-name pattern has.
	try := func(i int, known bool) {
		if i <= best {
			return
		}
		pt := &p.list[i]
		if known && pt.base {
			if !pt.dirOnly || isDir {
				best = i
			}
			return
		}
		if segs == nil {
			segs = strings.Split(name, "/")
		}
		if pt.match(segs, isDir) {
			best = i
		}
	}
	for _, i := range p.byLast[last] {
		try(i, true)
	}
	for k := range p.stars {
		if sp := &p.stars[k]; sp.i > best && sp.match(last) {
			try(sp.i, true)
		}
	}
	for _, i := range p.others {
		try(i, false)
	}
	if best < 0 {
		return false, false
	}
	return !p.list[best].neg, true
}

// matchTree reports whether name or one of its parent directories is
// matched (the last pattern decides at each level): what a deny list
// needs, since a matched directory covers everything under it.
func (p *Patterns) matchTree(name string, isDir bool) bool {
	if p.Len() == 0 || name == "." {
		return false
	}
	// Folded once: folding each directory above again cost time in the
	// square of the path's length for every name a walk lists.
	if p.fold {
		name = foldName(name)
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			if m, _ := p.match(name[:i], true); m {
				return true
			}
		}
	}
	m, _ := p.match(name, isDir)
	return m
}

func (pt *pattern) match(segs []string, isDir bool) bool {
	if pt.dirOnly && !isDir {
		return false
	}
	if pt.base {
		return segMatch(pt.segs[0], segs[len(segs)-1])
	}
	if !pt.double {
		if len(segs) != len(pt.segs) {
			return false
		}
		for i, s := range pt.segs {
			if !segMatch(s, segs[i]) {
				return false
			}
		}
		return true
	}
	return matchDouble(pt.segs, segs)
}

// matchDouble matches segments where "**" stands for any number of
// segments, at least one when it is the last ("a/**" matches what is inside
// a, not a itself). It keeps the set of reachable pattern positions, so it
// takes time proportional to the product of the two lengths whatever the
// input, never exponential.
func matchDouble(pat, segs []string) bool {
	cur := make([]bool, len(pat)+1)
	next := make([]bool, len(pat)+1)
	cur[0] = true
	skipStars(pat, cur)
	for _, s := range segs {
		clear(next)
		for pi := range pat {
			if !cur[pi] {
				continue
			}
			if pat[pi] == "**" {
				next[pi] = true   // ** takes this segment and may take more
				next[pi+1] = true // or takes this one and stops
			} else if segMatch(pat[pi], s) {
				next[pi+1] = true
			}
		}
		skipStars(pat, next)
		cur, next = next, cur
	}
	return cur[len(pat)]
}

// skipStars marks the positions reachable past a ** that matches no
// segment, which a trailing ** may not do.
func skipStars(pat []string, set []bool) {
	for pi := range pat {
		if set[pi] && pat[pi] == "**" && pi+1 < len(pat) {
			set[pi+1] = true
		}
	}
}

func segMatch(pat, seg string) bool {
	ok, err := path.Match(pat, seg)
	return ok && err == nil
}

// foldName is the form names are compared in when case is folded: what a
// case-insensitive file system (macOS, Windows) treats as the same name.
// NFC because macOS also equates the composed and decomposed forms.
func foldName(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToLower(norm.NFC.String(s))
		}
	}
	return strings.ToLower(s)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
