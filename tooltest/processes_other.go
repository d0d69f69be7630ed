//go:build !linux

package tooltest

func canTrackProcesses() bool { return false }

func markedProcesses(string) []markedProcess { return nil }
