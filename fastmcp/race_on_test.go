//go:build race

package fastmcp

// raceEnabled: the race detector slows tests that move megabytes tenfold; they do less.
const raceEnabled = true
