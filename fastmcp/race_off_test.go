//go:build !race

package fastmcp

const raceEnabled = false
