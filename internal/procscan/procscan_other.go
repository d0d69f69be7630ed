//go:build !linux

package procscan

// Supported reports whether Marked can see processes: only on Linux.
func Supported() bool { return false }

// Marked finds nothing where there is no /proc.
func Marked(string) []Process { return nil }
