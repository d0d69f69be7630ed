//go:build race

package dialect_test

// raceEnabled is set when the tests run with -race, which makes the round
// trip several times slower: it then explores fewer schemas.
const raceEnabled = true
