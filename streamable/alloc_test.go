//go:build !race

package streamable

import (
	"bufio"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAllocsListener pins the allocations of a keep-alive tools/call through the whole native
// listener (admission, decode, executor, dispatch, write): the core's two (its Request and the
// string arguments' buffer), none in the transport.
func TestAllocsListener(t *testing.T) {
	ln := serveInmemory(t)
	req := echoRequest()
	c, err := ln.Dial()
	require.NoError(t, err)
	defer c.Close()
	br := bufio.NewReaderSize(c, 4096)
	roundTrip := func() {
		_, err := c.Write(req)
		require.NoError(t, err)
		require.NoError(t, readOne(br))
	}
	for range 100 { // warm the pools and caches
		roundTrip()
	}
	assert.LessOrEqual(t, testing.AllocsPerRun(2000, roundTrip), 2.0)
}
