//go:build linux

package codetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/internal/sandboxtest"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/workspace"
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

// BenchmarkRunShellTree measures what a run_shell call of ls costs in a
// workspace of 100, 10,000 and 100,000 files (a hundred to a directory,
// a few protected ones among them), beside a bare process.Run of ls in
// the same tree, taking turns; it reports the medians, the sandbox's
// overhead (run_shell less bare), and the first call's time, which walks
// the whole tree:
//
//	go test -run '^$' -bench RunShellTree -benchtime 40x ./codetools
func BenchmarkRunShellTree(b *testing.B) {
	for _, files := range []int{100, 10_000, 100_000} {
		tmp := b.TempDir()
		dir := filepath.Join(tmp, "app")
		for i := range files {
			d := filepath.Join(dir, fmt.Sprintf("d%03d", i/100/10), fmt.Sprintf("e%02d", i/100%10))
			if i%100 == 0 {
				if err := os.MkdirAll(d, 0o755); err != nil {
					b.Fatal(err)
				}
			}
			name := fmt.Sprintf("f%02d.js", i%100)
			if i%20_000 == 1 {
				name = ".env" // a few protected files, wherever they are
			}
			if err := os.WriteFile(filepath.Join(d, name), []byte("x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for _, mode := range []process.SandboxMode{process.SandboxBubblewrap, process.SandboxLandlock} {
			b.Run(fmt.Sprintf("%s/%d", mode, files), func(b *testing.B) {
				sandboxtest.Need(b, mode)
				ws, err := workspace.Open(dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ws.Close()
				reg := tool.NewRegistry[struct{}](nil)
				ts := codetools.New(ws, &codetools.Options{Env: os.Environ(), Sandbox: &codetools.SandboxOptions{Mode: mode}})
				if err := reg.Add(ts.Tools()...); err != nil {
					b.Fatal(err)
				}
				reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AllowAllPolicy()}))
				args := json.RawMessage(`{"command":"ls"}`)
				shell := func() time.Duration {
					start := time.Now()
					if res := reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c", Name: "run_shell", Args: args}); res.Status != tool.StatusOK {
						b.Fatal(res.Text())
					}
					return time.Since(start)
				}
				bareCmd := process.Command{Path: "ls", Dir: dir, Env: os.Environ()}
				bare := func() time.Duration {
					start := time.Now()
					if _, err := process.Run(context.Background(), bareCmd); err != nil {
						b.Fatal(err)
					}
					return time.Since(start)
				}
				first := shell()
				var tb, ts2 []time.Duration
				i := 0
				for b.Loop() {
					if i++; i%2 == 0 {
						tb = append(tb, bare())
						ts2 = append(ts2, shell())
					} else {
						ts2 = append(ts2, shell())
						tb = append(tb, bare())
					}
				}
				mb, ms := median(tb), median(ts2)
				b.ReportMetric(ms2(first), "first-ms")
				b.ReportMetric(ms2(mb), "bare-ms")
				b.ReportMetric(ms2(ms), "run_shell-ms")
				b.ReportMetric(ms2(ms-mb), "overhead-ms")
			})
		}
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms2(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
