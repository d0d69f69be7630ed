package workspace

import (
	"strings"
	"testing"
	"time"
)

func TestPatternsMatch(t *testing.T) {
	cases := []struct {
		patterns string
		name     string
		isDir    bool
		want     bool
	}{
		// A name without a slash matches the base name at any depth.
		{"*.pem", "a.pem", false, true},
		{"*.pem", "keys/deep/b.pem", false, true},
		{"*.pem", "a.pem.txt", false, false},
		{".env", ".env", false, true},
		{".env", "sub/.env", false, true},
		{".env", "sub/.envrc", false, false},
		// A slash anchors.
		{"/build", "build", true, true},
		{"/build", "sub/build", true, false},
		{"docs/*.md", "docs/a.md", false, true},
		{"docs/*.md", "docs/x/a.md", false, false},
		{"docs/*.md", "x/docs/a.md", false, false},
		// A trailing slash matches directories only.
		{"out/", "out", true, true},
		{"out/", "out", false, false},
		{"out/", "a/out", true, true},
		// **.
		{"**/vendor", "vendor", true, true},
		{"**/vendor", "a/b/vendor", true, true},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"a/**/b", "a/x/y/c", false, false},
		{"a/**", "a", true, false},
		{"a/**", "a/x", false, true},
		{"a/**", "a/x/y", false, true},
		{"**", "anything/at/all", false, true},
		// Negation: the last match decides.
		{"*.log\n!keep.log", "x.log", false, true},
		{"*.log\n!keep.log", "keep.log", false, false},
		{"!keep.log\n*.log", "keep.log", false, true},
		// Comments, blanks, escapes, trailing spaces.
		{"# comment\n\n*.tmp   ", "a.tmp", false, true},
		{`\#hash`, "#hash", false, true},
		{`\!bang`, "!bang", false, true},
		{"# *.go", "a.go", false, false},
		// Classes and ?.
		{"file?.[ch]", "file1.c", false, true},
		{"file?.[ch]", "file12.c", false, false},
		{"/", "x", false, false},
	}
	for _, c := range cases {
		p, err := ParsePatterns(c.patterns)
		if err != nil {
			t.Fatalf("%q: %v", c.patterns, err)
		}
		if got, _ := p.Match(c.name, c.isDir); got != c.want {
			t.Errorf("patterns %q, name %q (dir %v): matched = %v, want %v", c.patterns, c.name, c.isDir, got, c.want)
		}
	}
}

func TestPatternsDecided(t *testing.T) {
	p, _ := ParsePatterns("!keep.log")
	m, decided := p.Match("keep.log", false)
	if m || !decided {
		t.Fatalf("a negated pattern that matches decides: matched %v decided %v", m, decided)
	}
	if _, decided := p.Match("other", false); decided {
		t.Fatal("no pattern matched, yet decided")
	}
}

func TestPatternsFold(t *testing.T) {
	p, err := parsePatterns(true, []string{".env", "Secrets/", "*.PEM", "café"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".ENV", "x/.Env", "key.pem", "KEY.Pem", "cafe\u0301"} {
		if m, _ := p.Match(name, false); !m {
			t.Errorf("%q is not matched with case and normalization folded", name)
		}
	}
	if !p.matchTree("secrets/inner.txt", false) {
		t.Error("a file under a matched directory is not matched by matchTree")
	}
	if p.matchTree("other/inner.txt", false) {
		t.Error("matchTree matched an unrelated path")
	}
}

func TestParsePatternsErrors(t *testing.T) {
	p, err := ParsePatterns("good.txt\n[unclosed\n" + strings.Repeat("a", 5000) + "\n\xff")
	if err == nil {
		t.Fatal("no error for invalid lines")
	}
	for _, want := range []string{`"[unclosed"`, "longer than 4096 bytes", "not valid UTF-8"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if p.Len() != 1 {
		t.Fatalf("the valid line was not kept: %d patterns", p.Len())
	}
	if m, _ := p.Match("good.txt", false); !m {
		t.Fatal("the valid pattern does not match")
	}
}

// TestParsePatternsErrorsBounded checks that a file of invalid lines
// costs about its size to parse, not a message per line: 4 Mi lines of
// "\xff" allocated 846 MB (a .gitignore is read on every walk).
func TestParsePatternsErrorsBounded(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"invalid UTF-8", strings.Repeat("\xff\n", 1<<20)},
		{"unclosed class", strings.Repeat("[\n", 1<<20)},
		{"long lines", strings.Repeat(strings.Repeat("a", 4097)+"\n", 512)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			allocs := testing.AllocsPerRun(1, func() { _, err = ParsePatterns(c.text) })
			if err == nil || !strings.Contains(err.Error(), "more") {
				t.Fatalf("error %v does not say how many more lines are invalid", err)
			}
			if len(err.Error()) > 4096 {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			if allocs > 10_000 {
				t.Fatalf("%v allocations to parse %d bytes of invalid lines", allocs, len(c.text))
			}
		})
	}
}

// TestPatternsLinear checks that many ** against a deep path do not blow
// up: a backtracking matcher would take exponential time here, so the
// bound is a hang check (10 s, for a loaded machine).
func TestPatternsLinear(t *testing.T) {
	pat := strings.Repeat("**/a/", 200) + "b"
	p, err := ParsePatterns(pat)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("a/", 1000) + "c"
	start := time.Now()
	if m, _ := p.Match(name, false); m {
		t.Fatal("matched")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("matching took %v", d)
	}
}

// matchEvery is Patterns.Match without the index: every pattern is
// tried, the last first.
func matchEvery(p *Patterns, name string, isDir bool) (bool, bool) {
	if p.fold {
		name = foldName(name)
	}
	segs := strings.Split(name, "/")
	for i := len(p.list) - 1; i >= 0; i-- {
		if p.list[i].match(segs, isDir) {
			return !p.list[i].neg, true
		}
	}
	return false, false
}

func FuzzPatterns(f *testing.F) {
	for _, s := range []string{"*.pem", "a/**/b", "!x", "**", "/a/", `\#x`, "[a-", "a/**/**/b/**", "*?[!a]",
		"*service*.json\n!my-service.json", "id_rsa*\n*_rsa", "**/.config/gcloud/", "a*b*c", "*", "**/x/*.y",
		"*a*a*a*a*a*a*a*a?b", "\xff\n[\n\\\n!\\!x\n\\#y", "a/**/b/**/c/**/*?[a-z]", "!**/keep\n**/*.tmp\n!/top.tmp"} {
		f.Add(s, "a/b/c.pem", false)
	}
	f.Fuzz(func(t *testing.T, patterns, name string, isDir bool) {
		if len(patterns) > 1<<12 || len(name) > 1<<12 {
			return
		}
		p, _ := ParsePatterns(patterns)
		m1, d1 := p.Match(name, isDir)
		m2, d2 := p.Match(name, isDir)
		if m1 != m2 || d1 != d2 {
			t.Fatal("Match is not deterministic")
		}
		// The index finds what trying every pattern, last first, finds.
		if mb, db := matchEvery(p, name, isDir); mb != m1 || db != d1 {
			t.Fatalf("%q against %q: the index says %v %v, every pattern %v %v", name, patterns, m1, d1, mb, db)
		}
		folded, _ := parsePatterns(true, []string{patterns})
		mf, df := folded.Match(name, isDir)
		if mb, db := matchEvery(folded, name, isDir); mb != mf || db != df {
			t.Fatalf("%q against %q, folded: the index says %v %v, every pattern %v %v", name, patterns, mf, df, mb, db)
		}
		if m1 && !d1 {
			t.Fatal("matched without a deciding pattern")
		}
		// A pattern list extended by "**" matches every non-empty name that
		// is not "."; one extended by "!**" matches none.
		if name != "" && name != "." && !strings.Contains(name, "//") && !strings.HasPrefix(name, "/") && !strings.HasSuffix(name, "/") {
			all, _ := ParsePatterns(patterns, "**")
			if m, _ := all.Match(name, isDir); !m {
				t.Fatalf("** does not match %q", name)
			}
			none, _ := ParsePatterns(patterns, "!**")
			if m, _ := none.Match(name, isDir); m {
				t.Fatalf("!** still matches %q", name)
			}
		}
	})
}
