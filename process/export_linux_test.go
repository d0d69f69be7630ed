package process

import "testing"

// ForceFallback makes Run use the fallback (process group, marks and /proc
// sweeps) instead of cgroups until the test ends.
func ForceFallback(t testing.TB) {
	prev := cgroupOff.Swap(true)
	t.Cleanup(func() { cgroupOff.Store(prev) })
}

// CgroupsWork reports whether Run puts commands in cgroups of their own
// here.
func CgroupsWork() bool { return cgroupParent() != "" }

// CgroupParent returns the directory in which commands' cgroups are made.
func CgroupParent() string { return cgroupParent() }

// DetectSandboxWith is DetectSandbox with the bubblewrap program given (""
// for none), uncached.
func DetectSandboxWith(bwrap string) SandboxSupport { return detectSandbox(bwrap) }

// NoCgroupLimits makes Run bound commands without cgroups (resource limits
// alone) until the test ends.
func NoCgroupLimits(t testing.TB) {
	prev := v1Off.Swap(true)
	t.Cleanup(func() { v1Off.Store(prev) })
}
