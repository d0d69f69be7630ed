package procscan

import (
	"bytes"
	"os"
	"strconv"
)

// Supported reports whether Marked can see processes: /proc is mounted.
func Supported() bool {
	_, err := os.Stat("/proc/self/environ")
	return err == nil
}

// Marked lists the processes other than this one whose environment holds
// the entry (a whole "NAME=value"). It sees the processes of its own user,
// and all of them as root. Zombies have no environment left, so they do
// not count: they are dead, waiting for their parent.
func Marked(entry string) []Process {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	want := []byte("\x00" + entry + "\x00")
	self := os.Getpid()
	var found []Process
	buf := []byte{0}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + n + "/environ")
		if err != nil {
			continue // gone, or not ours to read
		}
		buf = append(buf[:1], env...) // a NUL before the first entry too
		if !bytes.Contains(buf, want) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + n + "/cmdline")
		found = append(found, Process{PID: pid, Cmdline: string(bytes.TrimSpace(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))})
	}
	return found
}
