package text

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Closest returns up to n candidates that look like name: the same letters
// in another case, look-alike characters from other scripts, or a small edit
// away. Nearest first; none when nothing is close.
func Closest(name string, candidates []string, n int) []string {
	if len(name) > 256 {
		name = Cut(name, 256)
	}
	skel := skeleton(name)
	type scored struct {
		s    string
		dist int
	}
	var found []scored
	for _, c := range candidates {
		cs := skeleton(c)
		d := distance(skel, cs)
		limit := max(1, min(utf8.RuneCountInString(c), utf8.RuneCountInString(name))/3)
		if d <= limit || strings.Contains(cs, skel) && len(skel) >= 3 || strings.Contains(skel, cs) && len(cs) >= 3 {
			found = append(found, scored{c, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].dist != found[j].dist {
			return found[i].dist < found[j].dist
		}
		return found[i].s < found[j].s
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
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 {
		return len(rb)
	}
	if len(rb) == 0 {
		return len(ra)
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
