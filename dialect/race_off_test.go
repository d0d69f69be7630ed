//go:build !race

package dialect_test

// raceEnabled is set when the tests run with -race.
const raceEnabled = false
