package procscan

import (
	"os/exec"
	"testing"
)

// BenchmarkScan measures one scan of every process on the machine, 150
// sleeps more than it runs, the cost of a sweep pass in the fallback:
//
//	go test -run '^$' -bench Scan ./internal/procscan
func BenchmarkScan(b *testing.B) {
	for range 150 {
		cmd := exec.Command("sleep", "30")
		cmd.Env = []string{"TOOLBELT_PROCESS_TREE_x=1"}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	b.ResetTimer()
	for b.Loop() {
		Scan("TOOLBELT_PROCESS_TREE_")
	}
}
