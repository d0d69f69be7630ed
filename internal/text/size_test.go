package text

import "testing"

// Sizes are said exactly: a size just over a limit never reads as the
// limit itself.
func TestSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1, "1 byte"},
		{1023, "1023 bytes"},
		{1 << 10, "1 KiB"},
		{4097, "4.0 KiB (4097 bytes)"},
		{8 << 20, "8 MiB"},
		{8<<20 + 1, "8.0 MiB (8388609 bytes)"},
		{9_000_000, "8.6 MiB (9000000 bytes)"},
		{3 << 30, "3 GiB"},
		{3<<30 + 512<<20, "3.5 GiB (3758096384 bytes)"},
	} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
