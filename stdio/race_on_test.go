//go:build race

package stdio

// raceEnabled: the race detector slows tests that move megabytes tenfold; they do less.
const raceEnabled = true
