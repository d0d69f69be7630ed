package tooltest

import (
	"context"
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolbelt-go/tool"
)

// maxModelText bounds what Fuzz accepts as one result's model text.
const maxModelText = 1 << 20

// Fuzz is a fuzz target for a tool in one line:
//
//	func FuzzSearch(f *testing.F) { tooltest.Fuzz(f, newSearchTool(), `{"query":"x"}`) }
//
// It seeds the corpus with the given valid arguments, arguments generated
// from the schema, their [Mutations] and the adversarial classes of the
// conformance suite, then checks on every input that the call returns one
// result that is not Panicked, whose model text is valid UTF-8, bounded
// and free of raw control characters, and that an Invalid result carries
// problems for the model. Each call is bounded by 5 seconds.
func Fuzz(f *testing.F, tl tool.AnyTool, validArgs ...string) {
	f.Helper()
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(tl); err != nil {
		f.Fatalf("tooltest: the tool cannot be registered: %v", err)
	}
	def := tl.Definition()
	seeds := append([]string{"", "{}"}, validArgs...)
	for seed := range uint64(5) {
		if a, err := GenerateArgs(def.InputSchema, seed); err == nil {
			seeds = append(seeds, a)
		}
	}
	for _, base := range seeds {
		if muts, err := Mutations(def.InputSchema, base); err == nil {
			for _, m := range muts {
				f.Add([]byte(m.Args))
			}
		}
		f.Add([]byte(base))
	}
	for _, a := range adversarial {
		f.Add([]byte(a.args))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res := reg.Call(ctx, struct{}{}, tool.Request{ID: "fuzz", Name: def.Name, Args: args})
		if res == nil {
			t.Fatal("nil result")
		}
		if res.Status == tool.StatusPanicked {
			t.Fatalf("the tool crashed on %q:\n%s", args, ModelView(res))
		}
		txt := res.Text()
		if !utf8.ValidString(txt) || len(txt) > maxModelText {
			t.Fatalf("model text is invalid UTF-8 or %d bytes long", len(txt))
		}
		for _, r := range txt {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
				t.Fatalf("model text holds raw control character %U", r)
			}
		}
		if res.Status == tool.StatusInvalid {
			var ae *tool.ArgsError
			if !errors.As(res.Err, &ae) || len(ae.Problems) == 0 {
				t.Fatalf("Invalid without problems for %q:\n%s", args, ModelView(res))
			}
		}
	})
}
