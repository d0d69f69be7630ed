package tool

import "time"

// SetRecordLease sets how long the claims of r's calls last before their
// tools start (record.go), so that a test sees one lapse without waiting
// ten seconds.
func SetRecordLease[C any](r *Registry[C], d time.Duration) { r.runtime().recordLease = d }
