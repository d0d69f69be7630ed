// Package procscan finds processes by a mark in their environment, which
// every descendant inherits unless it clears its environment or writes its
// process title over it: the handle on processes that left their process
// group or session, where no cgroup holds them.
package procscan

// Process is a live process seen by a scan.
type Process struct {
	PID, PPID int
	// Marks are the entries of its environment ("NAME=value") that
	// start with the prefix the scan was given.
	Marks []string
	// Cmdline is its arguments, joined by spaces; only [Marked] fills it.
	Cmdline string
}
