package tooltest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/internal/linediff"
)

// updateFlag is -tooltest.update rather than -update: a package's flags are
// defined before those of the test package that imports it, so a test
// package defining its own -update (the usual name for golden files) would
// otherwise stop at start with "flag redefined: update". Such an -update is
// honoured too; see [Updating].
var updateFlag = flag.Bool("tooltest.update", false, "rewrite tooltest golden files with the current output")

// Updating reports whether golden files are to be rewritten: the test runs
// with -tooltest.update, or with -update where the test binary defines a
// boolean flag of that name. Golden helpers of your own can follow the same
// switch.
func Updating() bool {
	on, _ := boolFlag("update")
	return *updateFlag || on
}

// updateHint names the flag a failing golden test should be run with.
func updateHint() string {
	if _, defined := boolFlag("update"); defined {
		return "-update"
	}
	return "-tooltest.update"
}

// boolFlag reads a boolean flag someone else may have defined.
func boolFlag(name string) (on, defined bool) {
	f := flag.Lookup(name)
	if f == nil {
		return false, false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false, false
	}
	on, defined = g.Get().(bool)
	return on, defined
}

// Golden compares got with the golden file at path, usually under
// testdata/, and fails the test with a line diff when they differ. Run the
// test with -tooltest.update (or with your test package's own -update
// flag, if it defines one) to write the file anew, then review the diff
// before committing it. It is the one golden-file helper of this
// repository's tests.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("tooltest: no golden file (%v); run the test with %s to create it", err, updateHint())
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("tooltest: %s differs (run with %s if the change is intended):\n%s", path, updateHint(), linediff.Unified(string(want), string(got)))
	}
}

// GoldenDefinitions compares the definitions (name, title, description,
// schemas, safety, tier) with the golden file at path, as [Golden] does:
// what the model will see is reviewed as a diff.
func GoldenDefinitions(t testing.TB, defs []tool.Definition, path string) {
	t.Helper()
	Golden(t, path, renderDefinitions(t, defs))
}

type goldenDef struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Safety       string          `json:"safety"`
	Tier         string          `json:"tier"`
	Hidden       bool            `json:"hidden,omitempty"`
}

func renderDefinitions(t testing.TB, defs []tool.Definition) []byte {
	out := make([]goldenDef, 0, len(defs))
	for _, d := range defs {
		out = append(out, goldenDef{d.Name, d.Title, d.Description, d.InputSchema, d.OutputSchema, d.Safety.String(), d.Tier.String(), d.Hidden})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatalf("tooltest: %v", err)
	}
	return append(b, '\n')
}
