// Package procscan finds processes by a mark in their environment, which
// every descendant inherits unless it clears its environment: the one
// handle on processes that left their process group or session.
package procscan

// Process is a live process that carries a mark.
type Process struct {
	PID     int
	Cmdline string // its arguments, joined by spaces
}
