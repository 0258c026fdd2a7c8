package natsbus_test

import (
	"context"
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
