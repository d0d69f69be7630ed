//go:build !unix

package main

import "os/exec"

// ownGroup does nothing here: only the server itself is stopped (the SDK
// closes its input, then kills it).
func ownGroup(*exec.Cmd) {}

func killGroup(int) {}
