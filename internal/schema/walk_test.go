package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// The folded-key check and the hint's ordering look a key up among the
// declared names, once per key: a call of thousands of undeclared keys
// beside thousands of declared names costs about one allocation per key,
// not one per pair (before: 9 million for the case below).
func TestDeclaredNamesLookedUp(t *testing.T) {
	var props []string
	for i := range 3000 {
		props = append(props, fmt.Sprintf(`"p%d":{}`, i))
	}
	props = append(props, `"Path":{}`)
	s, err := Compile([]byte(`{"type":"object","properties":{`+strings.Join(props, ",")+`}}`), jsonparse.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		folded string // "" when none
	}{
		{"no folded key", ""},
		{"one folded key", "PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := map[string]any{}
			for i := range 3000 {
				v[fmt.Sprintf("k%d", i)] = 1
			}
			if tt.folded != "" {
				v[tt.folded] = 1
			}
			var f Folded
			var ok bool
			allocs := testing.AllocsPerRun(2, func() { f, ok = s.FoldedKey(v) })
			if ok != (tt.folded != "") || ok && (f.Key != tt.folded || f.Declared != "Path") {
				t.Errorf("FoldedKey = %+v, %v; want the key %q", f, ok, tt.folded)
			}
			if allocs > 20000 {
				t.Errorf("FoldedKey made %v allocations for 3,000 keys", allocs)
			}
		})
	}
	a, b := []string{"p2999"}, []string{"k1"}
	if s.CompareLocations(a, b) >= 0 || s.CompareLocations(b, a) <= 0 || s.CompareLocations([]string{"p10"}, []string{"p9"}) <= 0 {
		t.Error("declared names come first, in the schema's order")
	}
}
