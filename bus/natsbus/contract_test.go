package natsbus_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/bus/bustest"
	"github.com/fastmcp-go/fastmcp/bus/natsbus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// openBus opens a bus on srv's subject of this test, closed when t ends.
func openBus(t *testing.T, srv *natsServer, subject string) *natsbus.Bus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := natsbus.Open(ctx, natsbus.Config{URL: srv.url(), Subject: subject, ReconnectWait: 10 * time.Millisecond, MaxReconnectWait: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

// TestContract runs the bus contract over a real NATS server, which the outage case stops
// and starts again on the same port.
func TestContract(t *testing.T) {
	srv := startNATS(t)
	bustest.Run(t, bustest.Backend{
		Open: func(t *testing.T) fastmcp.EventBus { return openBus(t, srv, "test."+sanitize(t.Name())) },
		Outage: func(*testing.T) func() {
			srv.stop()
			return srv.start
		},
		Replicas: true,
	})
}

// sanitize makes a test name a subject token.
func sanitize(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c == '/' || c == '.' || c == ' ' || c == '*' || c == '>' {
			b[i] = '_'
		}
	}
	return string(b)
}

// BenchmarkFanout: one event over a real NATS server, end to end (see bustest.BenchmarkFanout;
// bus's benchmark of the same name is the in-memory baseline).
func BenchmarkFanout(b *testing.B) {
	for _, streams := range []int{1, 100} {
		b.Run("bus=nats/streams="+strconv.Itoa(streams), func(b *testing.B) {
			srv := startNATSB(b)
			bustest.BenchmarkFanout(b, func(b *testing.B) fastmcp.EventBus {
				eb, err := natsbus.Open(context.Background(), natsbus.Config{URL: srv.ClientURL(), Subject: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = eb.Close() })
				return eb
			}, streams)
		})
	}
}
