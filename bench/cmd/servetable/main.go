// Command servetable serves the search tool over MCP's streamable HTTP
// through toolmcp and directly on the MCP Go SDK, drives both with the same
// client load in interleaved rounds, and prints a markdown table: calls per
// second, p50/p99 latency and CPU time per call (client and server) at each
// number of concurrent sessions, each with its ratio to the bare SDK in the
// same round (the median of the rounds), then the heap and goroutines an
// idle session holds. On a busy shared machine the CPU ratio is the
// steadier.
//
// Usage, from the bench directory:
//
//	GOWORK=off go run ./cmd/servetable [-count 5] [-d 2s] [-sessions 1,16,200] [-idle 500]
//
// Client and servers share the process (and its cores): the ratios compare
// the two servers under the same client, not the absolute rates of a
// deployment.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolbelt-go/tool/bench"
)

func main() {
	count := flag.Int("count", 5, "rounds; each runs every case at every session count")
	d := flag.Duration("d", 2*time.Second, "load time per case, session count and round")
	sessions := flag.String("sessions", "1,16,200", "concurrent sessions, comma-separated")
	idle := flag.Int("idle", 500, "idle sessions opened to measure what one holds")
	protocol := flag.String("protocol", "2025-11-25", "protocol version of the clients (2026-07-28: stateless)")
	flag.Parse()
	var ns []int
	for _, s := range strings.Split(*sessions, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "servetable: bad -sessions:", s)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	if err := run(os.Stdout, os.Stderr, *count, *d, ns, *idle, *protocol); err != nil {
		fmt.Fprintln(os.Stderr, "servetable:", err)
		os.Exit(1)
	}
}

type cell struct{ perSec, p50, p99, cpu []float64 }

func run(out, progress io.Writer, count int, d time.Duration, ns []int, idle int, protocol string) error {
	ctx := context.Background()
	stateless := protocol >= "2026-07-28"
	cases := bench.ServeCases()
	served := make([]*bench.Served, len(cases))
	for i, c := range cases {
		s, err := c.Open(stateless)
		if err != nil {
			return err
		}
		defer s.Close()
		served[i] = s
	}
	cells := map[[2]int]*cell{} // (case, session count index)
	for round := range count {
		for j, n := range ns {
			// Alternate which server goes first from round to round.
			order := []int{0, 1}
			if round%2 == 1 {
				order = []int{1, 0}
			}
			for _, i := range order {
				clients, err := served[i].Connect(ctx, n, protocol)
				if err != nil {
					return fmt.Errorf("%s: %w", cases[i].ID, err)
				}
				for k := range n { // warm up
					if err := clients.Call(ctx, k); err != nil {
						return fmt.Errorf("%s: %w", cases[i].ID, err)
					}
				}
				r, err := clients.Load(ctx, d)
				clients.Close()
				if err != nil {
					return fmt.Errorf("%s: %w", cases[i].ID, err)
				}
				c := cells[[2]int{i, j}]
				if c == nil {
					c = &cell{}
					cells[[2]int{i, j}] = c
				}
				c.perSec = append(c.perSec, r.PerSecond())
				c.p50 = append(c.p50, float64(r.P50.Microseconds()))
				c.p99 = append(c.p99, float64(r.P99.Microseconds()))
				c.cpu = append(c.cpu, float64(r.CPUPerCall().Nanoseconds())/1e3)
				fmt.Fprintf(progress, "round %d, %d sessions, %s: %.0f calls/s, p50 %v, p99 %v, CPU %v a call\n", round+1, n, cases[i].ID, r.PerSecond(), r.P50, r.P99, r.CPUPerCall())
			}
		}
	}
	fmt.Fprintf(out, "Protocol %s, %d rounds of %v per case and session count; medians, and the median of the rounds' ratios to the bare SDK.\n\n", protocol, count, d)
	fmt.Fprintln(out, "| sessions | server | calls/s | p50 µs | p99 µs | CPU µs a call | calls/s vs SDK | p50 vs SDK | p99 vs SDK | CPU vs SDK |")
	fmt.Fprintln(out, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for j, n := range ns {
		base := cells[[2]int{0, j}]
		for i, c := range cases {
			x := cells[[2]int{i, j}]
			fmt.Fprintf(out, "| %d | %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", n, c.Name,
				median(x.perSec), median(x.p50), median(x.p99), median(x.cpu),
				medianRatio(x.perSec, base.perSec), medianRatio(x.p50, base.p50), medianRatio(x.p99, base.p99), medianRatio(x.cpu, base.cpu))
		}
	}
	if idle > 0 && !stateless {
		fmt.Fprintf(out, "\nIdle sessions (%d opened by hand: initialize, initialized, one call), what each holds on the server:\n\n", idle)
		fmt.Fprintln(out, "| server | heap per session | goroutines per session |")
		fmt.Fprintln(out, "|---|---:|---:|")
		for i, c := range cases {
			var bs, gs []float64
			for range 3 {
				b, g, err := served[i].IdleSessionCost(idle)
				if err != nil {
					return fmt.Errorf("%s: %w", c.ID, err)
				}
				bs, gs = append(bs, b), append(gs, g)
			}
			fmt.Fprintf(out, "| %s | %.1f KiB | %.1f |\n", c.Name, median(bs)/1024, median(gs))
		}
	}
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianRatio(v, base []float64) float64 {
	r := make([]float64, len(v))
	for i := range v {
		r[i] = v[i] / base[i]
	}
	return median(r)
}
