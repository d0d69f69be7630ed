package bench

import "testing"

// BenchmarkValid runs the valid call through every case in one run, the
// floor first. go run ./cmd/benchtable turns the same benchmarks into the
// table of ratios.
func BenchmarkValid(b *testing.B) {
	for _, s := range openAll(b) {
		b.Run(s.ID, s.BenchmarkValid())
	}
}

// BenchmarkInvalid runs the invalid call through every case; it is skipped
// for the floor and Eino, which run the function with those arguments.
func BenchmarkInvalid(b *testing.B) {
	for _, s := range openAll(b) {
		b.Run(s.ID, s.BenchmarkInvalid())
	}
}
