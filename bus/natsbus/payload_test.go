package natsbus_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/bus/natsbus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestOverServerMaxPayloadDroppedAndAnnounced runs a server with NATS's default max_payload
// (1 MiB): an event of the largest Data is over it, so it is dropped, counted and announced,
// and the next event flows.
func TestOverServerMaxPayloadDroppedAndAnnounced(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(30*time.Second))
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })

	b, err := natsbus.Open(context.Background(), natsbus.Config{URL: srv.ClientURL()})
	require.NoError(t, err)
	defer func() { require.NoError(t, b.Close()) }()
	got := make(chan fastmcp.Event, 10)
	defer b.Subscribe(func(e fastmcp.Event) { got <- e })()

	b.Publish(fastmcp.Event{Kind: fastmcp.Answer, Topic: "big", Data: make([]byte, fastmcp.MaxEventData)})
	assert.Equal(t, fastmcp.EventsLost, (<-got).Kind)
	b.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	for e := range got {
		if e.Kind != fastmcp.EventsLost {
			assert.Equal(t, fastmcp.ToolsListChanged, e.Kind)
			break
		}
	}
	assert.Equal(t, uint64(1), b.Stats().Dropped)
}
