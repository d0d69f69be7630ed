package process

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
)

// treeMarkerEnv starts the name of the environment variable that marks
// every process a command starts, so the processes can be found even when
// they leave the process group (and tooltest.TrackProcesses can check that
// none survived). Each command's variable has its own name (the prefix and
// a random ID), so a command run by a process that is itself marked carries
// both marks and is found by either sweep.
const treeMarkerEnv = "TOOLBELT_PROCESS_TREE_"

// processTree is the set of processes one command started: on Linux its
// cgroup when it has one, else its process group and the processes that
// carry its mark; on Windows the tree taskkill walks.
type processTree struct {
	marker string      // the name of its environment variable
	proc   *os.Process // the program, once started
	cg     *cgroup     // its own cgroup, or nil
	// held are the processes the /proc sweeps found (on Linux without a
	// cgroup), by PID, each held by a pidfd.
	held map[int]*os.Process
}

func newProcessTree() (*processTree, error) {
	var id [12]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("process: no randomness for the process mark: %w", err)
	}
	return &processTree{marker: treeMarkerEnv + hex.EncodeToString(id[:])}, nil
}
