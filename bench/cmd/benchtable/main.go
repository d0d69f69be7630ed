// Command benchtable runs the bench module's benchmarks in interleaved
// rounds and prints a markdown table of each framework's cost per call and
// its ratio to the floor measured in the same round, then the table of what
// each framework accepts.
//
// Usage, from the bench directory:
//
//	GOWORK=off go run ./cmd/benchtable [-count 6] [-benchtime 1s]
//
// Every round runs every benchmark once, so a machine that slows down
// mid-run slows all rows alike; the ratio shown is the median of the
// rounds' ratios, ns/op the median of the rounds. Each ratio is given twice:
// by wall-clock time (what go test -bench reports) and by the process's CPU
// time per call, which a busy shared machine disturbs much less (a call
// waiting for a core costs wall-clock time, not CPU time).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolbelt-go/tool/bench"
)

func main() {
	testing.Init()
	count := flag.Int("count", 6, "rounds; each runs every benchmark once")
	benchtime := flag.String("benchtime", "1s", "time (or Nx iterations) per benchmark and round")
	accept := flag.Bool("accept", true, "print the acceptance table after the timings")
	flag.Parse()
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable: -benchtime:", err)
		os.Exit(2)
	}
	if *count < 1 {
		fmt.Fprintln(os.Stderr, "benchtable: -count must be at least 1")
		os.Exit(2)
	}
	if err := run(os.Stdout, os.Stderr, *count, *benchtime, *accept); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// sample is one benchmark's result in one round: wall-clock and CPU time
// per call, allocations per call.
type sample struct {
	ns, cpu float64
	allocs  int64
}

// row collects one case's samples over the rounds.
type row struct {
	setup          *bench.Setup
	rejects        bool
	valid, invalid []sample
}

func run(stdout, progress io.Writer, count int, benchtime string, accept bool) error {
	var rows []*row
	for _, c := range bench.Cases() {
		s, err := c.Open()
		if err != nil {
			return err
		}
		defer s.Close()
		rejects, err := s.RejectsInvalid()
		if err != nil {
			return fmt.Errorf("%s: %w", s.ID, err)
		}
		rows = append(rows, &row{setup: s, rejects: rejects})
	}
	start, loadBefore := time.Now(), loadAverage()
	for round := 1; round <= count; round++ {
		fmt.Fprintf(progress, "round %d/%d\n", round, count)
		for _, r := range rows {
			v, err := measure(r.setup.BenchmarkValid())
			if err != nil {
				return fmt.Errorf("%s, valid call: %w", r.setup.ID, err)
			}
			r.valid = append(r.valid, v)
			if r.rejects {
				v, err := measure(r.setup.BenchmarkInvalid())
				if err != nil {
					return fmt.Errorf("%s, invalid call: %w", r.setup.ID, err)
				}
				r.invalid = append(r.invalid, v)
			}
		}
	}
	fmt.Fprintf(progress, "%d rounds in %v\n", count, time.Since(start).Round(time.Second))
	fmt.Fprint(stdout, header(count, benchtime, loadBefore, loadAverage()))
	fmt.Fprint(stdout, timingTable(rows))
	if accept {
		setups := make([]*bench.Setup, len(rows))
		for i, r := range rows {
			setups[i] = r.setup
		}
		fmt.Fprint(stdout, "\nWhat each path does with the search tool's arguments (bold: the function ran with arguments the schema refuses, or did not run with arguments it accepts):\n\n")
		fmt.Fprint(stdout, bench.AcceptanceTable(context.Background(), setups))
	}
	return nil
}

// measure runs one benchmark. Beside its ns/op (wall clock), it takes the
// process's CPU time over every call the benchmark made, ramp-up included:
// on a shared machine a call can wait for a core, which counts in ns/op but
// not in CPU time.
func measure(f func(*testing.B)) (sample, error) {
	calls := 0
	cpu0 := bench.CPUTime()
	r := testing.Benchmark(func(b *testing.B) {
		f(b)
		calls += b.N
	})
	cpu := bench.CPUTime() - cpu0
	if r.N == 0 || calls == 0 {
		return sample{}, fmt.Errorf("the benchmark failed (run go test -bench . for its message)")
	}
	return sample{
		ns:     float64(r.T.Nanoseconds()) / float64(r.N),
		cpu:    float64(cpu.Nanoseconds()) / float64(calls),
		allocs: r.AllocsPerOp(),
	}, nil
}

func header(count int, benchtime, loadBefore, loadAfter string) string {
	load := ""
	if loadBefore != "" && loadAfter != "" {
		// On a shared machine the load says how much to trust the run.
		load = fmt.Sprintf(", load average %s before and %s after", loadBefore, loadAfter)
	}
	return fmt.Sprintf("Measured %s with %s on %s/%s, %d CPUs (%s%s); median of %d interleaved rounds of %s per benchmark.\n\n",
		time.Now().Format("2006-01-02"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), load, count, benchtime)
}

// loadAverage returns the one-minute load average where the system tells
// it, else "".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// timingTable renders the rows; the first row is the floor.
func timingTable(rows []*row) string {
	floor := rows[0]
	var b strings.Builder
	b.WriteString("| framework: path | validates | ns/op | allocs/op | × floor | × floor, CPU | invalid call: ns/op | allocs/op | × floor | × floor, CPU |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s: %s | %s | %s | %s | %s | %s |", frameworkName(r.setup.Case), r.setup.Path, r.setup.Validates,
			nsOp(r.valid), allocs(r.valid), ratio(r.valid, floor.valid, wall), ratio(r.valid, floor.valid, cpu))
		if r.rejects {
			fmt.Fprintf(&b, " %s | %s | %s | %s |\n", nsOp(r.invalid), allocs(r.invalid),
				ratio(r.invalid, floor.valid, wall), ratio(r.invalid, floor.valid, cpu))
		} else {
			b.WriteString(" runs the function | | | |\n")
		}
	}
	return b.String()
}

func wall(x sample) float64 { return x.ns }
func cpu(x sample) float64  { return x.cpu }

func nsOp(s []sample) string {
	return fmt.Sprintf("%.0f", median(s, wall))
}

func allocs(s []sample) string {
	return fmt.Sprintf("%.0f", median(s, func(x sample) float64 { return float64(x.allocs) }))
}

// ratio is the median over the rounds of s's time per call over the
// floor's in the same round, by the measure f; "—" where f was not measured.
func ratio(s, floor []sample, f func(sample) float64) string {
	rs := make([]sample, 0, len(s))
	for i := range s {
		if f(floor[i]) == 0 {
			return "—"
		}
		rs = append(rs, sample{ns: f(s[i]) / f(floor[i])})
	}
	return fmt.Sprintf("%.1f×", median(rs, wall))
}

// median of f over s; the mean of the middle two for an even count.
func median(s []sample, f func(sample) float64) float64 {
	if len(s) == 0 {
		return 0
	}
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// frameworkName adds the module version this binary was built with.
func frameworkName(c bench.Case) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return c.Framework
	}
	for _, d := range info.Deps {
		if d.Path != c.Module {
			continue
		}
		if d.Replace != nil {
			return c.Framework + " (this checkout)"
		}
		return c.Framework + " " + d.Version
	}
	return c.Framework
}

// cpuModel reads the processor's name where the system tells it.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "cpu unknown"
	}
	for line := range strings.Lines(string(b)) {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimLeft(name, " \t:"))
		}
	}
	return "cpu unknown"
}
