package client

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

func TestModernCallTool(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	ctx := context.Background()

	r, err := c.CallTool(ctx, "echo", map[string]string{"text": "héllo"})
	require.NoError(t, err)
	assert.False(t, r.IsError)
	assert.JSONEq(t, `[{"type":"text","text":"héllo"}]`, string(r.Content))
	assert.True(t, c.Modern())
	assert.Equal(t, "2026-07-28", c.ProtocolVersion())
}
