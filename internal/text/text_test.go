package text

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ttext\n", "plain\ttext\n"},
		{"\x1b[31mred\x07", `\x1b[31mred\x07`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085", `c1\x85`},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"cr\r\n", `cr\x0d` + "\n"},
		{"héllo 😀", "héllo 😀"},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	tests := []struct {
		in, want string
		keep     bool
	}{
		{`{"a":"plain","b":[1,2]}`, `{"a":"plain","b":[1,2]}`, false},
		{"{\"a\":\"x\u202ey\"}", `{"a":"x\u202ey"}`, false},
		{"{\"k\u200b\":\"\U000E0041\"}", `{"k\u200b":"\udb40\udc41"}`, false},
		{"[\"del\x7f c1\u0085\"]", `["del\u007f c1\u0085"]`, false},
		{"[\"x\u202ey\"]", "[\"x\u202ey\"]", true},
		{"[\"del\x7f\"]", `["del\u007f"]`, true},
		{"[\"héllo 😀 👩\u200d👧\"]", "[\"héllo 😀 👩\u200d👧\"]", false},
	}
	for _, tt := range tests {
		got := string(EscapeJSON([]byte(tt.in), tt.keep))
		if got != tt.want {
			t.Errorf("EscapeJSON(%q, %v) = %q, want %q", tt.in, tt.keep, got, tt.want)
		}
		var before, after any
		if json.Unmarshal([]byte(tt.in), &before) != nil || json.Unmarshal([]byte(got), &after) != nil || !reflect.DeepEqual(before, after) {
			t.Errorf("EscapeJSON(%q) = %q: not the same value", tt.in, got)
		}
	}
	clean := []byte(`{"a":"plain"}`)
	if allocs := testing.AllocsPerRun(10, func() { EscapeJSON(clean, false) }); allocs != 0 {
		t.Errorf("clean JSON: %v allocations, want 0", allocs)
	}
}

func TestVisible(t *testing.T) {
	got := Visible("rm -rf /\u202e\u200bsafe\nnext", true)
	for _, hidden := range []string{"\u202e", "\u200b", "\n"} {
		if strings.Contains(got, hidden) {
			t.Errorf("Visible left %q in %q", hidden, got)
		}
	}
	if !strings.Contains(got, `\u202e`) || !strings.Contains(got, `\u200b`) {
		t.Errorf("Visible(%q) should show the escapes", got)
	}
}

func TestCutAndBound(t *testing.T) {
	s := strings.Repeat("é", 100) // 200 bytes
	for n := 0; n < 210; n++ {
		c := Cut(s, n)
		if len(c) > n || !utf8.ValidString(c) {
			t.Fatalf("Cut(%d) = %d bytes, valid %v", n, len(c), utf8.ValidString(c))
		}
	}
	b := Bound(strings.Repeat("x", 10000), 100)
	if len(b) > 100 || !strings.Contains(b, "10000 bytes in all") {
		t.Fatalf("Bound = %q", b)
	}
	q := Quote(strings.Repeat("a", 100)+"\x00", 10)
	if !strings.HasPrefix(q, `"aaaaaaaaaa"… (91 more bytes)`) {
		t.Fatalf("Quote = %q", q)
	}
}

// FuzzBound checks the cut text is always valid UTF-8 and within the cap.
func FuzzBound(f *testing.F) {
	f.Add("héllo wörld", 5)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = 64 + (n&0xffff)%4096
		in := strings.ToValidUTF8(s, "?")
		b := Bound(in, n)
		if len(b) > n || !utf8.ValidString(b) {
			t.Fatalf("Bound(%q, %d) = %q", in, n, b)
		}
		h, cut := HeadTail(in, n+32)
		if len(h) > n+32 || !utf8.ValidString(h) || (cut == 0) != (h == in) {
			t.Fatalf("HeadTail(%q, %d) = %q, %d", in, n+32, h, cut)
		}
		if cut > 0 && len(in)-cut > len(h) {
			t.Fatalf("HeadTail(%q) kept %d bytes of the input but returned only %d", in, len(in)-cut, len(h))
		}
		m := func(cut int) string { return "[" + strconv.Itoa(cut) + "]" }
		out, headEnd, tailStart := HeadTailMarked(in, n, m)
		if len(out) > n || !utf8.ValidString(out) || headEnd > tailStart ||
			(tailStart > headEnd && out != in[:headEnd]+m(tailStart-headEnd)+in[tailStart:] && out != in[:headEnd]) {
			t.Fatalf("HeadTailMarked(%q, %d) = %q, %d, %d", in, n, out, headEnd, tailStart)
		}
		if tl := Tail(in, n); len(tl) > n || !strings.HasSuffix(in, tl) || !utf8.ValidString(tl) || len(in) > n && len(tl) < n-3 {
			t.Fatalf("Tail(%q, %d) = %q", in, n, tl)
		}
		if l := CutLine(in, n); len(l) > n || !strings.HasPrefix(in, l) || !utf8.ValidString(l) {
			t.Fatalf("CutLine(%q, %d) = %q", in, n, l)
		}
		c := Clean(s)
		if !utf8.ValidString(c) {
			t.Fatalf("Clean(%q) is not valid UTF-8", s)
		}
	})
}

func TestCutLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij\nklmnop", 12, "abcdefghij\n"},  // a newline in the last quarter
		{"a\nbcdefghijklmnop", 12, "a\nbcdefghijk"}, // too early: a plain cut
		{"abcdefghé", 9, "abcdefgh"},                // never inside a character
		{"0123456789\n", 10, "0123456789"},          // the newline itself does not fit
	}
	for _, tt := range tests {
		if got := CutLine(tt.in, tt.max); got != tt.want {
			t.Errorf("CutLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestHeadTail(t *testing.T) {
	s := strings.Repeat("a", 100) + strings.Repeat("é", 100) + strings.Repeat("z", 100)
	got, cut := HeadTail(s, 200)
	if len(got) > 200 || !utf8.ValidString(got) {
		t.Fatalf("HeadTail = %q (%d bytes)", got, len(got))
	}
	if !strings.HasPrefix(got, "aaaa") || !strings.HasSuffix(got, "zzzz") {
		t.Errorf("head and tail not kept: %q", got)
	}
	if !strings.Contains(got, "["+"… "+strconv.Itoa(cut)+" bytes cut here …]") {
		t.Errorf("marker missing the count %d: %q", cut, got)
	}
	if same, n := HeadTail("short", 200); same != "short" || n != 0 {
		t.Errorf("short input changed: %q %d", same, n)
	}
}

// EscapeJSON keeps any valid JSON the same value, and leaves nothing in
// it that CleanModel would escape.
func FuzzEscapeJSON(f *testing.F) {
	for _, s := range []string{`{"a":"x` + "\u202e" + `y"}`, `["` + "\U000E0041\x7f\u0085" + `"]`, `"plain"`, `{"k` + "\u200b" + `":[1,"` + "\u2066" + `"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var before any
		if json.Unmarshal(b, &before) != nil {
			return
		}
		got := EscapeJSON(b, false)
		var after any
		if err := json.Unmarshal(got, &after); err != nil || !reflect.DeepEqual(before, after) {
			t.Fatalf("EscapeJSON(%q) = %q: not the same value (%v)", b, got, err)
		}
		for _, r := range string(got) { // controls below U+0020 stand only between tokens
			if r == 0x7f || r >= 0x80 && r <= 0x9f || Invisible(r) {
				t.Fatalf("EscapeJSON(%q) = %q still holds %U", b, got, r)
			}
		}
	})
}

// Clean and CleanModel find the same first character to escape whether
// they read a byte or eight at a time.
func FuzzCleanAgreesByteByByte(f *testing.F) {
	for _, s := range []string{"", "plain text, long enough for words", "a\nb\tc", "tab\there and \x7f there", "\x1b[31mred", "wide: é, 😀, \u202e",
		"seven b", "eight by", "\x00\x00\x00\x00\x00\x00\x00\x00", "~~~~~~~~\x7f", "        \x1f", "\xff\xfe invalid"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, invisible := range []bool{false, true} {
			want := -1
			for i := 0; i < len(s); {
				c := s[i]
				if c < utf8.RuneSelf {
					if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
						want = i
						break
					}
					i++
					continue
				}
				r, size := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f || invisible && Invisible(r) {
					want = i
					break
				}
				i += size
			}
			if got := firstUnclean(s, invisible); got != want {
				t.Fatalf("firstUnclean(%q, %v) = %d, want %d", s, invisible, got, want)
			}
		}
	})
}

// AppendQuote writes what Quote returns.
func TestAppendQuote(t *testing.T) {
	for _, s := range []string{"", "golang", "tab\there", "\x1b[31m", "é😀", strings.Repeat("x", 64), strings.Repeat("x", 65), strings.Repeat("é", 40)} {
		for _, max := range []int{0, 1, 10, 64} {
			if got, want := string(AppendQuote([]byte("got "), s, max)), "got "+Quote(s, max); got != want {
				t.Errorf("AppendQuote(%q, %d) = %q, want %q", s, max, got, want)
			}
		}
	}
}
