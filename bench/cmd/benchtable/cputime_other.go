//go:build !unix

package main

import "time"

// cpuTime is not measured here; the table shows no CPU ratio.
func cpuTime() time.Duration { return 0 }
