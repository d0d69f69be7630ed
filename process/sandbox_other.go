//go:build !linux

package process

import (
	"errors"
	"os/exec"
	"runtime"
	"syscall"
)

// DetectSandbox reports which [Sandbox] modes work on this machine: none,
// on this system.
func DetectSandbox() SandboxSupport {
	why := errors.New("not available on " + runtime.GOOS + " (Linux only)")
	return SandboxSupport{Mode: SandboxNone, Bubblewrap: why, Landlock: why}
}

// Bounds reports how Run bounds [Limits]: not at all, on this system.
func (s SandboxSupport) Bounds(SandboxMode) Bounds { return Bounds{} }

// jail is a sandbox built for one command; there are none here.
type jail struct{ mode SandboxMode }

func (s *Sandbox) build(string) (*jail, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return nil, DetectSandbox().Err()
}

func (j *jail) env(env []string) []string { return env }

func (j *jail) program(path string, args []string) (string, []string, error) { return path, args, nil }

func (j *jail) start(cmd *exec.Cmd, _ *processTree) error { return cmd.Start() }

func (j *jail) exitSignal(int) (syscall.Signal, bool) { return 0, false }

func (j *jail) release() {}
