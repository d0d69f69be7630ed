//go:build linux

package codetools_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/internal/sandboxtest"
	"github.com/toolbelt-go/tool/process"
)

// BenchmarkRunShell measures a run_shell call, approval check and sandbox
// included (the walk of the workspace for its protected files, the
// sandbox's making), beside a bare process.Run of the same command line in
// the same run, taking turns; it reports both and the ratio:
//
//	go test -run '^$' -bench RunShell -count 5 ./codetools
func BenchmarkRunShell(b *testing.B) {
	for _, mode := range []process.SandboxMode{process.SandboxNone, process.SandboxBubblewrap, process.SandboxLandlock} {
		b.Run(mode.String(), func(b *testing.B) {
			if mode != process.SandboxNone {
				sandboxtest.Need(b, mode)
			}
			for _, command := range []string{"cat README.md | wc -l", "mkdir -p build && ls build"} {
				p := newProject(b, &codetools.Options{Env: os.Environ(), Sandbox: &codetools.SandboxOptions{Mode: mode}})
				p.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AllowAllPolicy()}))
				bareCmd := process.Command{Path: "sh", Args: []string{"-c", command}, Dir: p.dir, Env: os.Environ()}
				bare := func() time.Duration {
					start := time.Now()
					if _, err := process.Run(context.Background(), bareCmd); err != nil {
						b.Fatal(err)
					}
					return time.Since(start)
				}
				shell := func() time.Duration {
					start := time.Now()
					if res := p.call(b, "run_shell", map[string]any{"command": command}); res.Status != tool.StatusOK {
						b.Fatal(res.Text())
					}
					return time.Since(start)
				}
				name := "read"
				if codetools.ClassifyCommand(command) != tool.SafetyReadOnly {
					name = "write"
				}
				b.Run(name, func(b *testing.B) {
					var tb, ts time.Duration
					i := 0
					for b.Loop() {
						if i++; i%2 == 0 {
							tb += bare()
							ts += shell()
						} else {
							ts += shell()
							tb += bare()
						}
					}
					b.ReportMetric(float64(tb.Microseconds())/1000/float64(b.N), "bare-ms")
					b.ReportMetric(float64(ts.Microseconds())/1000/float64(b.N), "run_shell-ms")
					b.ReportMetric(float64(ts)/float64(tb), "ratio")
				})
			}
		})
	}
}
