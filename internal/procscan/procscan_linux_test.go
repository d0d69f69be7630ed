package procscan

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMarked(t *testing.T) {
	if !Supported() {
		t.Skip("no /proc")
	}
	// The value names this test process, so that another run of the same
	// test at the same time (two go test commands) is not seen.
	mark := "PROCSCAN_TEST_MARK_1f2e=" + strconv.Itoa(os.Getpid())
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()

	got := Marked(mark)
	if len(got) != 1 || got[0].PID != cmd.Process.Pid || got[0].Cmdline != "sleep 30" || got[0].PPID != os.Getpid() {
		t.Fatalf("Marked = %+v, want the sleep %d", got, cmd.Process.Pid)
	}
	if got := Marked(mark + "0"); len(got) != 0 {
		t.Fatalf("another value matched: %+v", got)
	}
	if got := Marked("PROCSCAN_TEST_MARK_1f2"); len(got) != 0 {
		t.Fatalf("a prefix matched: %+v", got)
	}
}

func TestScanReportsEveryMarkWithThePrefix(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = []string{"A=1", "PROCSCAN_X_1=1", "B=2", "PROCSCAN_X_2=1", "C=PROCSCAN_X_3=1"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	procs := Scan("PROCSCAN_X_")
	i := slices.IndexFunc(procs, func(p Process) bool { return p.PID == cmd.Process.Pid })
	if i < 0 {
		t.Fatal("the sleep was not seen")
	}
	p := procs[i]
	if !slices.Equal(p.Marks, []string{"PROCSCAN_X_1=1", "PROCSCAN_X_2=1"}) {
		t.Fatalf("Marks = %q", p.Marks)
	}
}

// A process in the middle of an execve has no environment to read for a
// moment; a scan waits for it rather than missing its mark. This one execs
// all the time: a single read of its environment comes back empty several
// percent of the time.
func TestScanSeesAProcessThatKeepsExecing(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// The mark names this test process: another run of the same test at the
	// same time (two go test commands) must not be seen.
	mark := "PROCSCAN_EXEC_MARK=" + strconv.Itoa(os.Getpid())
	script := `n=$1; if [ "$n" -gt 0 ]; then exec sh -c "$0" "$0" $((n - 1)); fi; exec sleep 30`
	cmd := exec.Command("sh", "-c", script, script, "100000")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	runs := 200
	if testing.Short() {
		runs = 50
	}
	for i := range runs {
		if got := Marked(mark); len(got) != 1 || got[0].PID != cmd.Process.Pid {
			t.Fatalf("scan %d: Marked = %+v, want %d", i, got, cmd.Process.Pid)
		}
	}
}

func TestParseStat(t *testing.T) {
	tail := " 1 0 0 -1 4194560" + strings.Repeat(" 0", 40) + " 140729134606842 140729134608363 0"
	tests := []struct {
		name string
		line string
		want stat
		ok   bool
	}{
		{"plain", "42 (sleep) S 7" + tail, stat{state: 'S', ppid: 7, flags: 4194560, envStart: 140729134606842, envEnd: 140729134608363}, true},
		{"a name with parentheses and spaces", "42 (a) Z 1 (b) R 9" + tail, stat{state: 'R', ppid: 9, flags: 4194560, envStart: 140729134606842, envEnd: 140729134608363}, true},
		{"an old kernel without the environment fields", "42 (x) S 3 1 1 0 -1 64", stat{state: 'S', ppid: 3, flags: 64}, true},
		{"no name", "42 sleep S 7" + tail, stat{}, false},
		{"cut short", "42 (sleep) S 7 1", stat{}, false},
		{"not numbers", "42 (sleep) S x" + tail, stat{}, false},
		{"a long state", "42 (sleep) SS 7" + tail, stat{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat([]byte(tt.line))
			if ok != tt.ok || got != tt.want {
				t.Fatalf("parseStat = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// Any process can name itself anything (prctl, a process title), so its
// name cannot shift the fields a scan reads.
func FuzzParseStat(f *testing.F) {
	f.Add("sleep", 7)
	f.Add("a) Z 1 (b", 1)
	f.Add(") R 99 1 1 0 -1 0 ", 2)
	f.Add("\x00\n(", 123456)
	f.Fuzz(func(t *testing.T, name string, ppid int) {
		if ppid < 0 {
			ppid = -ppid
		}
		line := "42 (" + name + ") S " + strconv.Itoa(ppid) + " 1 1 0 -1 4194304 0 0"
		got, ok := parseStat([]byte(line))
		if !ok || got.ppid != ppid || got.state != 'S' || got.flags != 4194304 {
			t.Fatalf("parseStat(%q) = %+v, %v", line, got, ok)
		}
		parseStat([]byte(name)) // never panics
	})
}

// A process whose environment is really empty is found, with no marks: the
// scan does not take it for one in an execve for ever.
func TestScanProcessWithEmptyEnvironment(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	cmd := exec.Command("sleep", "30")
	cmd.Env = []string{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	time.Sleep(50 * time.Millisecond) // past its execve
	procs := Scan("PROCSCAN_NONE_")
	i := slices.IndexFunc(procs, func(p Process) bool { return p.PID == cmd.Process.Pid })
	if i < 0 {
		t.Fatal("the process with an empty environment was not seen")
	}
	if len(procs[i].Marks) != 0 {
		t.Fatalf("Marks = %q", procs[i].Marks)
	}
}
