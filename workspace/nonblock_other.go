//go:build !unix

package workspace

// oNonblock is zero where opening a file cannot block on a missing writer:
// Windows keeps named pipes out of the file system.
const oNonblock = 0

// oDirNoFollow has no counterpart here.
const oDirNoFollow = 0
