//go:build linux && !amd64 && !arm64

package process

// No seccomp filter on this architecture: without network, Landlock's TCP
// rules alone remain (ABI 4 and later), and a program that may not write
// can still change the metadata of files it reaches.
const (
	auditArch = 0
	x32Bit    = 0
)

var metadataCalls []uint32
