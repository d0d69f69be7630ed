package schema

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// Most patterns in tool schemas are a character class repeated between two
// anchors: ^[a-zA-Z0-9_./-]*$, ^[a-z]+$, ^[0-9a-f]{40}$. Go's regexp checks
// those at tens of nanoseconds per byte; a set of runes and a count check
// them at a few. charsetPattern recognises exactly that shape from the
// parsed pattern, and matches the way the regexp would.

// charsetPattern matches strings made only of runes in a set, with a rune
// count between min and max (max < 0: no upper bound).
type charsetPattern struct {
	ascii    [2]uint64 // runes below 128
	ranges   []rune    // pairs, for runes 128 and up
	min, max int
}

// compileCharset returns the matcher for p when p is ^CLASS{min,max}$ (or
// with *, +, ?), and nil otherwise.
func compileCharset(p string) *charsetPattern {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) != 3 {
		return nil
	}
	begin, body, end := re.Sub[0], re.Sub[1], re.Sub[2]
	if begin.Op != syntax.OpBeginText || end.Op != syntax.OpEndText {
		return nil
	}
	c := &charsetPattern{min: 1, max: 1}
	switch body.Op {
	case syntax.OpStar:
		c.min, c.max = 0, -1
	case syntax.OpPlus:
		c.min, c.max = 1, -1
	case syntax.OpQuest:
		c.min, c.max = 0, 1
	case syntax.OpRepeat:
		c.min, c.max = body.Min, body.Max
	case syntax.OpCharClass, syntax.OpLiteral:
	default:
		return nil
	}
	class := body
	if body.Op != syntax.OpCharClass && body.Op != syntax.OpLiteral {
		if len(body.Sub) != 1 {
			return nil
		}
		class = body.Sub[0]
	}
	var ranges []rune
	switch {
	case class.Op == syntax.OpCharClass:
		ranges = class.Rune
	case class.Op == syntax.OpLiteral && len(class.Rune) == 1 && class.Flags&syntax.FoldCase == 0:
		ranges = []rune{class.Rune[0], class.Rune[0]}
	default:
		return nil
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
			c.ascii[r/64] |= 1 << (r % 64)
		}
		if hi >= utf8.RuneSelf {
			c.ranges = append(c.ranges, max(lo, utf8.RuneSelf), hi)
		}
	}
	return c
}

// MatchString reports whether every rune of s is in the set and their count
// is within the bounds. Invalid UTF-8 is read as U+FFFD, as regexp does.
func (c *charsetPattern) MatchString(s string) bool {
	n := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if c.ascii[b/64]&(1<<(b%64)) == 0 {
				return false
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !c.inRanges(r) {
				return false
			}
			i += size
		}
		n++
		if c.max >= 0 && n > c.max {
			return false
		}
	}
	return n >= c.min
}

func (c *charsetPattern) inRanges(r rune) bool {
	for i := 0; i+1 < len(c.ranges); i += 2 {
		if r >= c.ranges[i] && r <= c.ranges[i+1] {
			return true
		}
	}
	return false
}

// Pattern is a compiled pattern: Go's regexp, and the faster matcher when
// the pattern has the shape it knows.
type Pattern struct {
	re      *regexp.Regexp
	charset *charsetPattern
}

// MatchString reports whether the pattern matches s (anywhere, as JSON
// Schema's pattern does: only anchors tie it to the ends).
func (p *Pattern) MatchString(s string) bool {
	if p.charset != nil {
		return p.charset.MatchString(s)
	}
	return matchString(p.re, s)
}

// String returns the pattern as written.
func (p *Pattern) String() string { return p.re.String() }
