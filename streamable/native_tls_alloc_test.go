//go:build !race

package streamable

import (
	"bufio"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAllocsListenerTLSBudget pins the allocations of a keep-alive tools/call through the
// native listener over TLS, both sides of the connection counted (the client is in the
// process): TestAllocsListener's two of the core, and one per record read on each side,
// crypto/tls's own (readFromUntil's atLeastReader escapes into bytes.Buffer.ReadFrom). The
// listener's TLS adds none of its own.
func TestAllocsListenerTLSBudget(t *testing.T) {
	ca := newTestCA(t)
	_, dial := serveInmemoryTLS(t, ca)
	c, err := dial()
	require.NoError(t, err)
	defer c.Close()
	req := echoRequest()
	br := bufio.NewReaderSize(c, 4096)
	roundTrip := func() {
		_, err := c.Write(req)
		require.NoError(t, err)
		require.NoError(t, readOne(br))
	}
	for range 100 {
		roundTrip()
	}
	allocs := testing.AllocsPerRun(2000, roundTrip)
	t.Logf("%.2f allocations per request", allocs)
	assert.LessOrEqual(t, allocs, 4.0)
}
