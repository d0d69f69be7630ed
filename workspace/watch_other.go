//go:build !linux

package workspace

import "errors"

// newWatcher has no notifications to offer here: every sandbox is
// prepared by a walk of the whole tree.
func newWatcher() (watcher, error) { return nil, errors.New("no change notifications on this system") }

func localFS(string) bool { return false }
