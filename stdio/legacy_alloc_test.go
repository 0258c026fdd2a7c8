//go:build !race

package stdio

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// The transport's own share of an initialize-era request is what it is for a modern one:
// nothing. The stand-in answers ping from precomputed bytes, as the core answers
// server/discover, so end to end a request costs at most the executor's job context:
// classifying it, its snapshot of the connection's state and the handler's extra arguments
// allocate nothing.
func TestAllocsLegacyRequestBudget(t *testing.T) {
	const n = 20000
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	driveHandler(t, h, transport.For(s).Decoder(), memPipe, "legacy-ping", 64, 2, 500) // warm the pools
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.Equal(t, n, driveHandler(t, h, transport.For(s).Decoder(), memPipe, "legacy-ping", 64, 2, n))
	runtime.ReadMemStats(&after)
	perRequest := float64(after.Mallocs-before.Mallocs) / n
	t.Logf("%.2f allocations per initialize-era request", perRequest)
	require.Less(t, perRequest, 1.25, "one, plus the connection's set-up (initialize) spread over the requests")
}

// Many server-to-client round trips on one connection leave nothing behind: no request
// outstanding, and the heap where it was.
func TestLegacyRoundTripsHeapFlat(t *testing.T) {
	s, _ := newTestServer(t)
	h := newLegacyCore(s)
	c := startClient(t, h.run(context.Background()), Config{})
	c.send(initialize("1", "2025-11-25", `{"elicitation":{}}`))
	require.Nil(t, c.recv().Error)
	<-h.evRuns
	rounds := func(n int) {
		for range n {
			c.send(legacyCall("2", "ask"))
			id := lineID(c.rawLine())
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"decline"}}`)
			require.Nil(t, c.recv().Error)
			<-h.asked
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	rounds(500)
	base := heap()
	rounds(5000)
	grown := int64(heap()) - int64(base)
	t.Logf("heap grew %d bytes over 5000 round trips", grown)
	require.Less(t, grown, int64(256<<10), "about 50 bytes a round would pass 256 KiB")
	require.Zero(t, h.outstanding())
	_, err := c.close()
	require.NoError(t, err)
	<-h.evRuns
}
