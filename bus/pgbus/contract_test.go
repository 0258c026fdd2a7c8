package pgbus_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/bus/bustest"
	"github.com/fastmcp-go/fastmcp/bus/pgbus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// openBus opens a bus on a pool of its own on d, closed when t ends.
func openBus(t *testing.T, d *database, cfg pgbus.Config) *pgbus.Bus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg.Pool = d.pool(t)
	cfg.ReconnectWait, cfg.MaxReconnectWait = 10*time.Millisecond, 100*time.Millisecond
	b, err := pgbus.Open(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

// TestContract runs the bus contract over a real PostgreSQL server, one database per case;
// the outage refuses connections to it and terminates its backends.
func TestContract(t *testing.T) {
	serverDSN(t)
	var d *database
	bustest.Run(t, bustest.Backend{
		Open: func(t *testing.T) fastmcp.EventBus {
			if d == nil || d.t != t {
				d = newDatabase(t)
			}
			return openBus(t, d, pgbus.Config{})
		},
		Outage:   func(*testing.T) func() { return d.outage() },
		Replicas: true,
	})
}

// BenchmarkFanout: one event over PostgreSQL LISTEN/NOTIFY, end to end (see
// bustest.BenchmarkFanout; bus's benchmark of the same name is the in-memory baseline).
func BenchmarkFanout(b *testing.B) {
	for _, streams := range []int{1, 100} {
		b.Run("bus=postgres/streams="+strconv.Itoa(streams), func(b *testing.B) {
			d := newDatabase(b)
			bustest.BenchmarkFanout(b, func(b *testing.B) fastmcp.EventBus {
				eb, err := pgbus.Open(context.Background(), pgbus.Config{Pool: d.pool(b)})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = eb.Close() })
				return eb
			}, streams)
		})
	}
}
