package gateway

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestLegacyCallerLegacyBackend: an initialize-era caller over stateless HTTP (the gateway
// knows nothing of its capabilities) of an initialize-era backend's tool that asks for
// input gets the backend's elicitation/create as a real request, and its answer completes
// the call. No call stays parked: the listener's inline first run, which cannot wait for
// the caller and is served again on a worker, leaves none behind.
func TestLegacyCallerLegacyBackend(t *testing.T) {
	url, _ := serveHTTP(t, newInputServer(t, nil, fastmcp.Legacy20251125), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "solo", URL: url}}})
	asked := make(chan json.RawMessage, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, gw, client.Config{Era: client.EraLegacy, Elicitation: func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		asked <- params
		return json.RawMessage(`{"action":"accept","content":{"name":"Carol"}}`), nil
	}})
	require.NoError(t, err)
	defer c.Close()
	res, err := c.CallTool(ctx, "confirm", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"hello Carol (asked)"}]`, string(res.Content))
	assert.JSONEq(t, `{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`, string(<-asked))
	assert.Equal(t, 0, g.parking.waiting())
}
