package procscan

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// Supported reports whether scans can see processes: /proc is mounted.
func Supported() bool {
	_, err := os.Stat("/proc/self/environ")
	return err == nil
}

// Tuning of a scan. A round reads the processes a listing of /proc shows
// that the scan has not read yet; the scan ends with a round that finds
// nothing new.
const (
	maxRounds = 32
	// execWait bounds how long a scan waits for a process in the middle
	// of an execve, whose environment cannot be read until the new
	// program's stack is set up: a scan that skipped it would miss its
	// mark.
	execWait   = 50 * time.Millisecond
	retryPause = 100 * time.Microsecond
)

// Flags in /proc/PID/stat.
const (
	pfExiting = 0x00000004 // its memory may be gone already
	pfKthread = 0x00200000 // a kernel thread: no environment, ever
)

// Scan lists the live processes other than this one, each with the entries
// of its environment that start with prefix. It sees the processes of its own
// user, and all of them as root; zombies are left out (they are dead,
// waiting for their parent).
//
// A scan is closed under process creation: after reading what one listing
// of /proc showed, it lists again and reads the processes that appeared
// meanwhile, until a listing shows nothing new. So a process that forks and
// exits while the scan runs (a double fork, a daemon leaving its session)
// cannot hide its child between the listing and the reads, as it could in
// a single pass.
func Scan(prefix string) []Process {
	s := scanner{prefix: []byte("\x00" + prefix), seen: make(map[int]bool), execs: make(map[int]execSeen)}
	for rounds := 0; ; {
		fresh := s.fresh()
		if len(fresh) == 0 {
			break
		}
		if s.onlyRetries(fresh) {
			time.Sleep(retryPause) // each ends within execWait
		} else if rounds++; rounds > maxRounds {
			break // processes keep appearing (a fork bomb elsewhere?)
		}
		for _, pid := range fresh {
			s.read(pid)
		}
	}
	return s.found
}

// execSeen is a process whose environment read empty: since when, and
// where its environment started then.
type execSeen struct {
	since    time.Time
	envStart uint64
}

type scanner struct {
	prefix []byte
	seen   map[int]bool     // read, or gone, or not ours to read
	execs  map[int]execSeen // processes seen in an execve
	found  []Process
	buf    []byte
}

// fresh lists the processes not read yet, in PID order.
func (s *scanner) fresh() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	var pids []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 || pid == self || s.seen[pid] {
			continue
		}
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}

func (s *scanner) onlyRetries(pids []int) bool {
	for _, pid := range pids {
		if _, ok := s.execs[pid]; !ok {
			return false
		}
	}
	return true
}

// read reads one process, and records it when it is alive.
func (s *scanner) read(pid int) {
	dir := "/proc/" + strconv.Itoa(pid)
	st, ok := s.readFile(dir + "/stat")
	if !ok {
		s.seen[pid] = true // gone, or not ours
		return
	}
	stat, ok := parseStat(st[1:])
	if !ok || stat.state == 'Z' || stat.state == 'X' || stat.flags&pfKthread != 0 {
		s.seen[pid] = true
		return
	}
	env, ok := s.readFile(dir + "/environ")
	if !ok {
		s.seen[pid] = true
		return
	}
	// An environment that reads empty may be one that is being set up:
	// the process is in an execve (the stat line's env_end reads 0 until
	// the new program's stack is ready, and both ends read the same for a
	// moment while it is filled in), or went through one between the two
	// reads. Read it again in a moment, and again until execWait while it
	// shows signs of an execve: env_end still 0, an environment that does
	// not read empty by its stat line, or one that moved since the last
	// read (a new program's stack is placed anew). A process whose
	// environment is really empty reads the same twice and is taken as
	// it is.
	if len(env) == 1 && stat.flags&pfExiting == 0 {
		prev, retried := s.execs[pid]
		if !retried {
			s.execs[pid] = execSeen{since: time.Now(), envStart: stat.envStart}
			return
		}
		execing := stat.envEnd == 0 || stat.envEnd > stat.envStart || stat.envStart != prev.envStart
		if execing && time.Since(prev.since) < execWait {
			s.execs[pid] = execSeen{since: prev.since, envStart: stat.envStart}
			return
		}
	}
	s.seen[pid] = true
	s.found = append(s.found, Process{PID: pid, PPID: stat.ppid, Marks: marks(env, s.prefix)})
}

// readFile reads a /proc file into the scanner's buffer, after a NUL (so
// that every environment entry follows one); the result is valid until the
// next call. It makes the system calls itself: os.File's poller
// registration would double their number, and a scan makes hundreds.
func (s *scanner) readFile(name string) ([]byte, bool) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	if s.buf == nil {
		s.buf = make([]byte, 0, 16<<10)
	}
	s.buf = append(s.buf[:0], 0)
	for {
		if len(s.buf) == cap(s.buf) {
			s.buf = slices.Grow(s.buf, cap(s.buf))
		}
		n, err := syscall.Read(fd, s.buf[len(s.buf):cap(s.buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		room := cap(s.buf) - len(s.buf)
		s.buf = s.buf[:len(s.buf)+n]
		// A /proc file of a process gives all it has to one read with
		// room to spare: a short read is the end, and saves the read
		// that would return 0.
		if n == 0 || n < room {
			return s.buf, true
		}
	}
}

// stat is what a scan reads from /proc/PID/stat.
type stat struct {
	state            byte
	ppid             int
	flags            uint64
	envStart, envEnd uint64 // 0 without the permission to read them
}

// parseStat reads the text of /proc/PID/stat. The command name, in
// parentheses, may hold any byte, parentheses and spaces too, so the
// fields are counted from the last ')'.
func parseStat(b []byte) (stat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	// Fields 3 (state), 4 (ppid), 9 (flags), 50 and 51 (env_start and
	// env_end, since Linux 3.5) of proc(5), counted from 0 after the name
	// here. A scan parses hundreds of these: no allocation.
	var st stat
	n := 0
	for rest := b[i+1:]; ; n++ {
		rest = bytes.TrimLeft(rest, " \n")
		if len(rest) == 0 {
			break
		}
		end := bytes.IndexAny(rest, " \n")
		if end < 0 {
			end = len(rest)
		}
		f := rest[:end]
		rest = rest[end:]
		var err error
		switch n {
		case 0:
			if len(f) != 1 {
				return stat{}, false
			}
			st.state = f[0]
		case 1:
			st.ppid, err = atoi(f)
		case 6:
			st.flags, err = parseUint(f)
		case 47:
			st.envStart, err = parseUint(f)
		case 48:
			st.envEnd, err = parseUint(f)
		}
		if err != nil && n < 47 {
			return stat{}, false
		}
	}
	if n < 7 {
		return stat{}, false
	}
	return st, true
}

var errNotNumber = errors.New("not a number")

// parseUint parses a decimal number without allocating.
func parseUint(b []byte) (uint64, error) {
	if len(b) == 0 || len(b) > 20 {
		return 0, errNotNumber
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errNotNumber
		}
		d := uint64(c - '0')
		if v > (^uint64(0)-d)/10 {
			return 0, errNotNumber
		}
		v = v*10 + d
	}
	return v, nil
}

func atoi(b []byte) (int, error) {
	v, err := parseUint(b)
	if err != nil || v > uint64(^uint(0)>>1) {
		return 0, errNotNumber
	}
	return int(v), nil
}

// marks returns the entries of env (NUL-separated, after a leading NUL)
// that start with prefix (which starts with a NUL).
func marks(env, prefix []byte) []string {
	var out []string
	for {
		i := bytes.Index(env, prefix)
		if i < 0 {
			return out
		}
		env = env[i+1:]
		end := bytes.IndexByte(env, 0)
		if end < 0 {
			end = len(env)
		}
		out = append(out, string(env[:end]))
		env = env[end:]
	}
}

// Marked lists the processes other than this one whose environment holds
// the entry (a whole "NAME=value"), with their command lines.
func Marked(entry string) []Process {
	name, _, _ := bytes.Cut([]byte(entry), []byte("="))
	var out []Process
	for _, p := range Scan(string(name) + "=") {
		if slices.Contains(p.Marks, entry) {
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/cmdline")
			p.Cmdline = string(bytes.TrimSpace(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
			out = append(out, p)
		}
	}
	return out
}
