package tooltest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
)

var update = flag.Bool("update", false, "rewrite tooltest golden files with the current output")

// GoldenDefinitions compares the definitions (name, title, description,
// schemas, safety, tier) with the golden file at path, usually under
// testdata/. Run the test with -update to write the file anew; review the
// diff before committing it, as it is what the model will see.
func GoldenDefinitions(t testing.TB, defs []tool.Definition, path string) {
	t.Helper()
	got := renderDefinitions(t, defs)
	if *update {
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
		t.Fatalf("tooltest: no golden file (%v); run the test with -update to create it", err)
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("tooltest: definitions differ from %s (run with -update if the change is intended):\n%s", path, lineDiff(string(want), string(got)))
	}
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

// lineDiff shows the lines that differ, marked - (want) and + (got).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			if i < len(w) {
				b.WriteString("- " + wl + "\n")
			}
			if i < len(g) {
				b.WriteString("+ " + gl + "\n")
			}
		}
	}
	return b.String()
}
