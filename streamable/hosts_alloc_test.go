//go:build !race

package streamable

import (
	"bufio"
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAllocsHostsBudget pins the allocations of a keep-alive tools/call through the hosts
// other than the native listener, over a real connection whose peer the handler probes
// (ConnContext, the mount's connection): the whole process's, the client's none. net/http
// allocates most of its own. The probe's timer is the job's, made once: a timer per request
// would add one.
func TestAllocsHostsBudget(t *testing.T) {
	req := echoRequest()
	for _, tc := range []struct {
		stack  string
		budget float64
		start  func(t *testing.T) string
	}{
		{stackNetHTTP, 52.5, func(t *testing.T) string {
			h, err := NewHandler(newCore(t), Config{})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, h.Close(context.Background())) })
			return serveHTTP(t, NewHTTPServer(h, ListenerConfig{Addr: "127.0.0.1:0"}))
		}},
		{stackFastHTTP, 6.5, func(t *testing.T) string {
			addr, _ := startMounted(t, newCore(t), Config{})
			return addr
		}},
	} {
		t.Run(tc.stack, func(t *testing.T) {
			addr := tc.start(t)
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			br := bufio.NewReaderSize(c, 4096)
			roundTrip := func() {
				_, err := c.Write(req)
				require.NoError(t, err)
				require.NoError(t, readOne(br))
			}
			for range 100 {
				roundTrip()
			}
			got := testing.AllocsPerRun(1000, roundTrip)
			t.Logf("%s: %.2f allocations per tools/call", tc.stack, got)
			assert.LessOrEqual(t, got, tc.budget)
		})
	}
}
