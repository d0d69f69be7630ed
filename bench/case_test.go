package bench

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/toolbelt-go/tool/tooltest"
)

// -update rewrites the golden file (tooltest.Golden honours it).
var _ = flag.Bool("update", false, "rewrite testdata/acceptance.md from what the frameworks do")

func openAll(t testing.TB) []*Setup {
	t.Helper()
	var setups []*Setup
	for _, c := range Cases() {
		s, err := c.Open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		setups = append(setups, s)
	}
	return setups
}

// TestSameResult checks that every path returns the same result text for
// the valid call, twice (a path that breaks after its first call would
// otherwise be benchmarked).
func TestSameResult(t *testing.T) {
	for _, s := range openAll(t) {
		t.Run(s.ID, func(t *testing.T) {
			for range 2 {
				text, rejected, err := s.Call(context.Background(), ValidArgs)
				if err != nil || rejected || text != wantText {
					t.Fatalf("Call(ValidArgs) = %q, rejected %v, error %v; want %q", text, rejected, err, wantText)
				}
			}
		})
	}
}

// TestInvalidCall checks which paths refuse the benchmark's invalid call:
// every one that validates, and no other.
func TestInvalidCall(t *testing.T) {
	validating := map[string]bool{
		"floor": false, "toolbelt": true, "toolbelt_approval": true,
		"mcpgo_server": true, "mcpgo_client": true, "gosdk_handler": true, "gosdk_client": true,
		"eino": false, "adk": true,
		"eino_tooleino": true, "eino_flow": false, "eino_flow_tooleino": true,
		"adk_tooladk": true, "adk_flow": true, "adk_flow_tooladk": true,
	}
	for _, s := range openAll(t) {
		t.Run(s.ID, func(t *testing.T) {
			want, ok := validating[s.ID]
			if !ok {
				t.Fatalf("case %s is not listed here", s.ID)
			}
			got, err := s.RejectsInvalid()
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("RejectsInvalid() = %v, want %v", got, want)
			}
		})
	}
}

// TestAcceptance compares what every path does with each probe with
// testdata/acceptance.md. A new framework version that validates more (or
// less) fails here; rerun with -update and check the README's notes.
func TestAcceptance(t *testing.T) {
	got := AcceptanceTable(context.Background(), openAll(t))
	tooltest.Golden(t, filepath.Join("testdata", "acceptance.md"), []byte(got))
}
