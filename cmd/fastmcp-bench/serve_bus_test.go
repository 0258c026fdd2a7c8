package main

import (
	"context"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestOpenBus: --bus picks the in-memory hub when empty, refuses what is neither a NATS nor
// a PostgreSQL URL as a usage error, and over a real NATS server opens a bus whose events
// come back and whose counters --metrics exports.
func TestOpenBus(t *testing.T) {
	b, err := openBus(context.Background(), "")
	require.NoError(t, err)
	assert.Nil(t, b)
	_, err = openBus(context.Background(), "redis://127.0.0.1:6379")
	var ue usageError
	require.ErrorAs(t, err, &ue)
	assert.EqualError(t, err, `--bus: "redis://127.0.0.1:6379" is neither nats://HOST:PORT nor postgres://…`)

	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: natsserver.RANDOM_PORT, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go ns.Start()
	require.True(t, ns.ReadyForConnections(30*time.Second))
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()

	b, err = openBus(context.Background(), ns.ClientURL())
	require.NoError(t, err)
	defer func() { require.NoError(t, b.Close()) }()
	got := make(chan fastmcp.Event, 1)
	defer b.Subscribe(func(e fastmcp.Event) { got <- e })()
	b.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	assert.Equal(t, fastmcp.ToolsListChanged, (<-got).Kind)

	reg := prometheus.NewRegistry()
	reg.MustRegister(busCollector{b})
	n, err := testutil.GatherAndCount(reg, "fastmcp_bus_published_total", "fastmcp_bus_received_total", "fastmcp_bus_dropped_total")
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Equal(t, uint64(1), b.Stats().Received)
}
