package text

import "fmt"

// Size says n bytes exactly: in whole units when it is one ("8 MiB"),
// otherwise rounded with its bytes beside ("8.0 MiB (8388609 bytes)"), so
// that a size just over a limit never reads as the limit.
func Size(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		switch {
		case n < u.size:
			continue
		case n%u.size == 0:
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		default:
			return fmt.Sprintf("%.1f %s (%d bytes)", float64(n)/float64(u.size), u.name, n)
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
