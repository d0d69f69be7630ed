//go:build !unix

package bench

import "time"

// CPUTime is not measured here (it returns 0); the tables show no CPU
// ratio.
func CPUTime() time.Duration { return 0 }
