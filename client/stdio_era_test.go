package client

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
)

func TestStdioEras(t *testing.T) {
	for _, tc := range []struct {
		era     Era
		modern  bool
		version string
	}{
		{EraModern, true, "2026-07-28"},
		{EraAuto, true, "2026-07-28"},
		{EraLegacy, false, "2025-11-25"},
	} {
		t.Run(tc.era.String(), func(t *testing.T) {
			c := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), Config{Era: tc.era})
			assert.Equal(t, tc.modern, c.Modern())
			assert.Equal(t, tc.version, c.ProtocolVersion())
			res, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
			require.NoError(t, err)
			assert.JSONEq(t, `[{"type":"text","text":"hi"}]`, string(res.Content))
		})
	}
}

func TestStdioLegacyElicitation(t *testing.T) {
	var asked []string
	cfg := Config{Era: EraLegacy, Elicitation: func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
		asked = append(asked, decode.Lookup(params, "message").String())
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
	}}
	c := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), cfg)
	res, err := c.CallTool(context.Background(), "greet_user", map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, []string{"What is your name?"}, asked)
	assert.JSONEq(t, `[{"type":"text","text":"Hello, Ada!"}]`, string(res.Content))
}

func TestStdioAutoFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		probe func(t *testing.T, rs *rawServer, id []byte) // the server's reaction to the probe
	}{
		{"method not found", func(t *testing.T, rs *rawServer, id []byte) {
			rs.write(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32601,"message":"Method not found"}}`)
		}},
		{"silence until the probe timeout", func(t *testing.T, rs *rawServer, id []byte) {
			// The client gives up on the probe and withdraws it.
			assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(id)+`,"reason":"probe timed out"}}`, rs.read(t))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// In a bubble, the 2 s probe timeout passes as soon as everyone waits.
			synctest.Test(t, func(t *testing.T) {
				tr, rs := newRawServer(t, stdioOptions{})
				done := make(chan *Client, 1)
				go func() {
					cfg, _ := Config{Era: EraAuto}.withDefaults()
					c, err := newClient(context.Background(), tr, cfg)
					assert.NoError(t, err)
					done <- c
				}()
				probe := []byte(rs.read(t))
				assert.Equal(t, "server/discover", decode.Lookup(probe, "method").String())
				tc.probe(t, rs, decode.Lookup(probe, "id").Raw())
				init := []byte(rs.read(t))
				assert.Equal(t, "initialize", decode.Lookup(init, "method").String())
				rs.write(t, `{"jsonrpc":"2.0","id":`+string(decode.Lookup(init, "id").Raw())+
					`,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
				assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, rs.read(t))
				c := <-done
				require.NotNil(t, c)
				assert.False(t, c.Modern())
				assert.Equal(t, "2025-06-18", c.ProtocolVersion())
			})
		})
	}
}

// TestStdioAutoAgainstLegacyOnlyServer: our server with the modern dialect switched off
// refuses the probe, and auto settles on initialize over the same connection.
func TestStdioAutoAgainstLegacyOnlyServer(t *testing.T) {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "legacy", Version: "1.0.0"},
		&fastmcp.Config{Dialects: []fastmcp.Dialect{fastmcp.Legacy20251125, fastmcp.Legacy20250618}})
	require.NoError(t, err)
	require.NoError(t, fixtures.Register(srv, "demo"))
	c := stdioClient(t, pipeServer(t, srv, stdioOptions{}), Config{Era: EraAuto})
	assert.False(t, c.Modern())
	assert.Equal(t, "2025-11-25", c.ProtocolVersion())
	res, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"hi"}]`, string(res.Content))
}
