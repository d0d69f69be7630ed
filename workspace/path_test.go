package workspace

import (
	"strings"
	"testing"
)

func TestLexical(t *testing.T) {
	cases := []struct {
		name    string
		windows bool
		clean   string
		abs     bool
		why     string // part of the refusal; empty: accepted
	}{
		{name: "a.go", clean: "a.go"},
		{name: "./a/../b.go", clean: "b.go"},
		{name: ".", clean: "."},
		{name: "a/", clean: "a"},
		{name: "a//b", clean: "a/b"},
		{name: "..", clean: ".."},
		{name: "../x", clean: "../x"},
		{name: "a/../../x", clean: "../x"},
		{name: "/etc/passwd", clean: "/etc/passwd", abs: true},
		{name: `a\b`, clean: `a\b`}, // a name with a backslash, elsewhere than Windows
		{name: "", why: "empty"},
		{name: "a\x00b", why: "NUL"},
		{name: "a\nb", why: "control character U+000A"},
		{name: "a\u0085b", why: "control character U+0085"},
		{name: "\xff", why: "UTF-8"},
		{name: strings.Repeat("a/", 3000), why: "bytes long"},
		{name: strings.Repeat("n", 256), why: "names are at most 255"},
		// Windows.
		{name: `a\b.go`, windows: true, clean: "a/b.go"},
		{name: `..\..\x`, windows: true, clean: "../../x"},
		{name: `C:\repo\x`, windows: true, clean: "C:/repo/x", abs: true},
		{name: `\\server\share\x`, windows: true, clean: "//server/share/x", abs: true},
		{name: `\x`, windows: true, clean: "/x", abs: true},
		{name: `C:x`, windows: true, why: "drive"},
		{name: ".env.", windows: true, why: "ends in a dot"},
		{name: ".env ", windows: true, why: "ends in a dot or a space"},
		{name: ".env::$DATA", windows: true, why: "Windows does not allow"},
		{name: "SECRET~1.PEM", windows: true, why: "short name"},
		{name: "sub/NUL.txt", windows: true, why: "device name"},
		{name: "com1", windows: true, why: "device name"},
		{name: "console.txt", windows: true, clean: "console.txt"},
		{name: ".env.", clean: ".env."}, // elsewhere, a name like another
	}
	for _, c := range cases {
		clean, abs, why := lexical(c.name, c.windows)
		if c.why != "" {
			if !strings.Contains(why, c.why) {
				t.Errorf("lexical(%q, windows=%v): refusal %q, want one mentioning %q", c.name, c.windows, why, c.why)
			}
			continue
		}
		if why != "" || clean != c.clean || abs != c.abs {
			t.Errorf("lexical(%q, windows=%v) = %q, %v, %q; want %q, %v", c.name, c.windows, clean, abs, why, c.clean, c.abs)
		}
	}
}

func TestWithin(t *testing.T) {
	cases := []struct {
		base, target, rel string
		ok                bool
	}{
		{"/srv/app", "/srv/app", ".", true},
		{"/srv/app", "/srv/app/x/y", "x/y", true},
		{"/srv/app", "/srv/app2", "", false},
		{"/srv/app", "/srv/app2/x", "", false},
		{"/srv/app", "/srv", "", false},
		{"/srv/app", "/etc/passwd", "", false},
		{"/srv/app", "/srv/app/../app2", "", false},
		{"/", "/etc", "etc", true},
	}
	for _, c := range cases {
		rel, ok := within(c.base, c.target)
		if ok != c.ok || rel != c.rel {
			t.Errorf("within(%q, %q) = %q, %v; want %q, %v", c.base, c.target, rel, ok, c.rel, c.ok)
		}
	}
}

func TestDenyNames(t *testing.T) {
	for in, want := range map[string]string{
		".env.":      ".env",
		"a./b ./c":   "a/b/c",
		"./..":       "./..",
		"...":        "...",
		"plain/name": "plain/name",
	} {
		if got := denyNames(in); got != want {
			t.Errorf("denyNames(%q) = %q, want %q", in, got, want)
		}
	}
}
