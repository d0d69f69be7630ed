package text

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Closest returns up to n candidates that look like name: the same letters
// in another case, look-alike characters from other scripts, or a small edit
// away. Nearest first; none when nothing is close.
//
// Close means, on the names folded by skeleton: at most one edit (a
// character inserted, deleted or replaced, or two neighbours swapped) for
// every three characters of the longer name, or one name containing the
// other when the shorter has at least three characters. So "qurey" is
// close to "query", "pth" to "path", "readfile" to "read_file" and "url"
// to "base_url"; but no one-letter or two-letter name is close to another
// that differs by a letter ("b" and "a", "to" and "do"): a suggestion that
// shares nothing with the name does not help.
func Closest(name string, candidates []string, n int) []string {
	skel, skelRunes := prepare(name)
	var found []scored
	for _, c := range candidates {
		cs := skeleton(c)
		found = score(found, c, cs, utf8.RuneCountInString(cs), skel, skelRunes)
	}
	return best(found, n)
}

// Candidates are names prepared for [Closest], each folded once: for a list
// that many calls are matched against (an enum's values, say).
type Candidates struct {
	names, skels []string
	runes        []int
}

// NewCandidates prepares names.
func NewCandidates(names []string) *Candidates {
	c := &Candidates{names: names, skels: make([]string, len(names)), runes: make([]int, len(names))}
	for i, s := range names {
		c.skels[i] = skeleton(s)
		c.runes[i] = utf8.RuneCountInString(c.skels[i])
	}
	return c
}

// Closest is [Closest] over the prepared names.
func (c *Candidates) Closest(name string, n int) []string {
	if c == nil {
		return nil
	}
	skel, skelRunes := prepare(name)
	var found []scored
	for i, s := range c.names {
		found = score(found, s, c.skels[i], c.runes[i], skel, skelRunes)
	}
	return best(found, n)
}

type scored struct {
	s    string
	dist int
}

// prepare folds the name looked for.
func prepare(name string) (string, int) {
	if len(name) > 256 {
		name = Cut(name, 256)
	}
	skel := skeleton(name)
	return skel, utf8.RuneCountInString(skel)
}

// score appends candidate c, folded as cs (csRunes long), to found when it
// is close to the folded name skel.
func score(found []scored, c, cs string, csRunes int, skel string, skelRunes int) []scored {
	limit := max(csRunes, skelRunes) / 3
	// The distance is at least the difference in length: past the
	// limit, it is not worth computing (its cost is the product of
	// the lengths, and a candidate, an enum's value, may be long).
	d := max(csRunes, skelRunes)
	if abs(csRunes-skelRunes) <= limit {
		d = distance(skel, cs)
	}
	if d <= limit || strings.Contains(cs, skel) && len(skel) >= 3 || strings.Contains(skel, cs) && len(cs) >= 3 {
		found = append(found, scored{c, d})
	}
	return found
}

// best returns the n nearest of found, nearest first.
func best(found []scored, n int) []string {
	slices.SortStableFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.s, b.s))
	})
	out := make([]string, 0, min(n, len(found)))
	for i := 0; i < len(found) && i < n; i++ {
		out = append(out, found[i].s)
	}
	return out
}

// confusables maps characters that render like ASCII letters to the letter.
var confusables = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's',
	'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p', 'С': 'c', 'Т': 't', 'Х': 'x',
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'Ι': 'i', 'Ο': 'o', 'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Κ': 'k', 'Τ': 't',
	'ı': 'i', 'ℓ': 'l', '０': '0', '１': '1', '－': '-', '＿': '_', '‐': '-', '–': '-', '—': '-',
}

// skeleton folds case, look-alikes and the separators '-' and '_' so that
// names a model confuses compare equal.
func skeleton(s string) string {
	if ascii(s) {
		return skeletonASCII(s)
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if c, ok := confusables[r]; ok {
			r = c
		}
		if r >= 'Ａ' && r <= 'ｚ' {
			r = r - 'Ａ' + 'A'
		}
		if r == '-' || r == ' ' || r == '.' {
			r = '_'
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}

// distance is the Damerau–Levenshtein (optimal string alignment) distance
// between a and b, in runes.
func distance(a, b string) int {
	if ascii(a) && ascii(b) {
		return osa([]byte(a), []byte(b))
	}
	return osa([]rune(a), []rune(b))
}

// osa is the optimal string alignment distance between a and b. Rows of
// up to 64 cells live on the stack, those of short names in a smaller
// buffer: it is cleared on every call.
func osa[T byte | rune](a, b []T) int {
	if len(a) == 0 {
		return len(b)
	}
	if len(b) == 0 {
		return len(a)
	}
	switch n := len(b) + 1; {
	case n <= 17:
		var buf [3 * 17]int
		return osaRows(a, b, buf[:n], buf[17:17+n], buf[34:34+n])
	case n <= 65:
		var buf [3 * 65]int
		return osaRows(a, b, buf[:n], buf[65:65+n], buf[130:130+n])
	default:
		return osaRows(a, b, make([]int, n), make([]int, n), make([]int, n))
	}
}

// osaRows is osa with its three rows given.
func osaRows[T byte | rune](a, b []T, prev2, prev, cur []int) int {
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// ascii reports whether s is all ASCII.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// skeletonASCII is skeleton for ASCII text: lower case, with '-', ' ' and
// '.' as '_'. It returns s itself when nothing changes.
func skeletonASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' || c == '-' || c == ' ' || c == '.' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				switch c := b[j]; {
				case 'A' <= c && c <= 'Z':
					b[j] = c + 'a' - 'A'
				case c == '-' || c == ' ' || c == '.':
					b[j] = '_'
				}
			}
			return string(b)
		}
	}
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
