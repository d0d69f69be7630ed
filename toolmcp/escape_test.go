package toolmcp

import (
	"testing"

	roottext "github.com/toolbelt-go/tool/internal/text"
)

// What a remote server writes for the model is escaped exactly as the
// registry escapes any tool's output (the root's text.CleanModel): the
// differential keeps the two the same.
func FuzzCleanModel(f *testing.F) {
	for _, s := range []string{
		"plain text\nwith lines\tand tabs",
		"\x1b[31mred\x1b[0m \x7f \u0085",
		"\u202eevil\u202c \u200b \u2066x\u2069 \ufeff \u061c \u180e",
		"\U000E0041\U000E007F tags",
		"emoji 👩\u200d💻 and \u200c joiners, e\u0301 combining",
		"\xff\xfe invalid",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanModel(s), roottext.CleanModel(s, false); got != want {
			t.Fatalf("cleanModel(%q) = %q, the registry's is %q", s, got, want)
		}
	})
}
