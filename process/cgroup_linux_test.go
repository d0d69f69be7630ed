package process

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFindCgroup(t *testing.T) {
	mnt := t.TempDir()                          // stands for the cgroup2 mount
	spaced := filepath.Join(t.TempDir(), "a b") // a mount point with a space
	require.NoError(t, os.MkdirAll(filepath.Join(mnt, "user.slice/app"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(spaced, "app"), 0o755))
	line := func(root, point, opts, fstype string) string {
		return "40 30 0:37 " + root + " " + point + " " + opts + " shared:1 - " + fstype + " cgroup2 rw\n"
	}
	esc := func(s string) string { return filepath.Dir(s) + `/a\040b` }
	tests := []struct {
		name, cgroup, mountinfo, want string
	}{
		{"the root cgroup", "0::/\n", line("/", mnt, "rw,relatime", "cgroup2"), mnt},
		{"a child cgroup, hybrid mode", "4:memory:/x\n1:name=systemd:/user.slice\n0::/user.slice/app\n",
			line("/", "/sys/fs/cgroup/cpu", "rw", "cgroup") + line("/", mnt, "rw", "cgroup2"), filepath.Join(mnt, "user.slice/app")},
		{"a mount of a subtree (a cgroup namespace)", "0::/user.slice/app\n", line("/user.slice", mnt+"/user.slice", "rw", "cgroup2"),
			filepath.Join(mnt, "user.slice/app")},
		{"an escaped mount point", "0::/app\n", line("/", esc(spaced), "rw", "cgroup2"), filepath.Join(spaced, "app")},
		{"cgroup v1 only", "4:memory:/x\n", line("/", mnt, "rw", "cgroup"), ""},
		{"read-only", "0::/\n", line("/", mnt, "ro,nosuid", "cgroup2"), ""},
		{"no such directory", "0::/gone\n", line("/", mnt, "rw", "cgroup2"), ""},
		{"our cgroup was removed", "0::/user.slice (deleted)\n", line("/", mnt, "rw", "cgroup2"), ""},
		{"outside the mounted subtree", "0::/other\n", line("/user.slice", mnt, "rw", "cgroup2"), ""},
		{"a sibling with the same prefix", "0::/user.slice2\n", line("/user.slice", mnt, "rw", "cgroup2"), ""},
		{"garbage", "0::\n", "garbage - \n - \n\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cg, mi := filepath.Join(dir, "cgroup"), filepath.Join(dir, "mountinfo")
			require.NoError(t, os.WriteFile(cg, []byte(tt.cgroup), 0o644))
			require.NoError(t, os.WriteFile(mi, []byte(tt.mountinfo), 0o644))
			assert.Equal(t, tt.want, findCgroup(cg, mi))
		})
	}
}

// A host that died leaves its empty cgroups behind; the next host in the
// same cgroup removes them, and leaves alone those of live hosts and those
// that still hold processes.
func TestRemoveLeftovers(t *testing.T) {
	base := cgroupParent()
	if base == "" {
		t.Skip("no writable cgroup v2 here")
	}
	dead := deadPID(t)
	mk := func(name string) string {
		dir := filepath.Join(base, name)
		require.NoError(t, os.Mkdir(dir, 0o755))
		t.Cleanup(func() { removeTree(dir) })
		return dir
	}
	leftover := mk(cgroupPrefix + strconv.Itoa(dead) + "-0123456789abcdef")
	nested := filepath.Join(leftover, cgroupPrefix+"1-00") // a nested host's, killed with it
	require.NoError(t, os.Mkdir(nested, 0o755))
	live := mk(cgroupPrefix + strconv.Itoa(os.Getppid()) + "-0123456789abcdef")
	other := mk("not-ours-" + strconv.Itoa(dead))

	removeLeftovers(base)
	assert.NoDirExists(t, leftover)
	assert.DirExists(t, live)
	assert.DirExists(t, other)
}

// deadPID returns the PID of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	require.NoError(t, err)
	_, err = p.Wait()
	require.NoError(t, err)
	return p.Pid
}
