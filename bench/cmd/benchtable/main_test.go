package main

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/bench"
)

func TestMedian(t *testing.T) {
	ns := func(x sample) float64 { return x.ns }
	for _, tc := range []struct {
		name string
		in   []float64
		want float64
	}{
		{"none", nil, 0},
		{"one", []float64{3}, 3},
		{"odd, unsorted", []float64{9, 1, 5}, 5},
		{"even: mean of the middle two", []float64{4, 1, 3, 10}, 3.5},
		{"an outlier does not move it", []float64{2, 2, 2, 2, 2, 900}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := make([]sample, len(tc.in))
			for i, v := range tc.in {
				s[i] = sample{ns: v}
			}
			if got := median(s, ns); got != tc.want {
				t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestRatioPerRound checks that the ratio is taken round by round: a
// round where the machine was twice as slow for everyone changes nothing.
func TestRatioPerRound(t *testing.T) {
	floor := []sample{{ns: 100, cpu: 90}, {ns: 200, cpu: 90}, {ns: 100, cpu: 90}}
	s := []sample{{ns: 500, cpu: 180}, {ns: 1000, cpu: 180}, {ns: 500, cpu: 180}}
	if got := ratio(s, floor, wall); got != "5.0×" {
		t.Errorf("wall-clock ratio = %s, want 5.0×", got)
	}
	if got := ratio(s, floor, cpu); got != "2.0×" {
		t.Errorf("CPU ratio = %s, want 2.0×", got)
	}
	if got := ratio(s, []sample{{ns: 100}, {ns: 100}, {ns: 100}}, cpu); got != "—" {
		t.Errorf("CPU ratio without CPU times = %s, want —", got)
	}
}

// TestRun runs one round of every benchmark for one iteration (what CI
// does) and checks the table has a row per case, the floor first.
func TestRun(t *testing.T) {
	old := flag.Lookup("test.benchtime").Value.String()
	if err := flag.Set("test.benchtime", "1x"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("test.benchtime", old) })

	var out strings.Builder
	if err := run(&out, io.Discard, 1, "1x", true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	var rows []string
	for _, l := range lines {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| framework") && !strings.HasPrefix(l, "| arguments") {
			rows = append(rows, l)
		}
	}
	cases := bench.Cases()
	if want := len(cases) + len(bench.Probes()); len(rows) != want {
		t.Fatalf("%d table rows, want %d:\n%s", len(rows), want, out.String())
	}
	if !strings.HasPrefix(rows[0], "| encoding/json (floor): ") || !strings.Contains(rows[0], "| 1.0× |") {
		t.Errorf("first row is not the floor at 1.0×: %s", rows[0])
	}
	for i, c := range cases {
		if !strings.Contains(rows[i], ": "+c.Path+" |") {
			t.Errorf("row %d is not %s: %s", i, c.ID, rows[i])
		}
	}
	if !strings.Contains(out.String(), "| Eino v") || !strings.Contains(out.String(), "| runs the function | | | |") {
		t.Errorf("no Eino row with a version, or no row that runs the invalid call:\n%s", out.String())
	}
}
