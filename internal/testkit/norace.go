//go:build !race

package testkit

// raceEnabled: the tests run with -race.
const raceEnabled = false
