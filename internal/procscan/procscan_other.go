//go:build !linux

package procscan

// Supported reports whether scans can see processes: only on Linux.
func Supported() bool { return false }

// Scan finds nothing where there is no /proc.
func Scan(string) []Process { return nil }

// Marked finds nothing where there is no /proc.
func Marked(string) []Process { return nil }
