package tooltest

import (
	"bytes"
	"os"
	"strconv"
)

func canTrackProcesses() bool {
	_, err := os.Stat("/proc/self/environ")
	return err == nil
}

// markedProcesses lists the live processes whose environment holds mark.
// Zombies have no environment left, so they do not count: they are dead,
// waiting for their parent.
func markedProcesses(mark string) []markedProcess {
	entries, _ := os.ReadDir("/proc")
	want := []byte("\x00" + mark + "\x00")
	var found []markedProcess
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), want) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		found = append(found, markedProcess{pid: pid, cmdline: string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))})
	}
	return found
}
