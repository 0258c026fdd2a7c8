//go:build !race

package streamable

const raceEnabled = false
