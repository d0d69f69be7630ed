//go:build !unix

package main

// gone is not checked here: the SDK waits for the server it stops, and
// tooltest.TrackProcesses checks descendants on Linux only.
func gone(int) bool { return true }
