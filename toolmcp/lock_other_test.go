//go:build !unix

package toolmcp

import "errors"

// lockFile is not needed where the pinned Node does not run.
func lockFile(string) (func(), error) {
	return nil, errors.New("no file locks on this system")
}
