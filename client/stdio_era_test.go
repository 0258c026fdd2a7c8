package client

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

func TestStdioLegacyElicitation(t *testing.T) {
	tr := pipeServer(t, fixtureServer(t), stdioOptions{})
	cfg := &Config{Era: EraLegacy, ClientName: "t", ClientVersion: "1",
		Elicitation: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
	require.NoError(t, tr.handshake(context.Background(), cfg, DefaultProbeTimeout))
	modern, version := tr.negotiated()
	assert.False(t, modern)
	assert.Equal(t, "2025-11-25", version)

	var asked []string
	answer := func(msg []byte) ([]byte, error) {
		asked = append(asked, decode.Lookup(msg, "method").String())
		return decode.AppendResult(nil, decode.Lookup(msg, "id").Raw(), []byte(`{"action":"accept","content":{"name":"Ada"}}`)), nil
	}
	resp, err := tr.roundTrip(context.Background(),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet_user","arguments":{}}}`), nil, answer)
	require.NoError(t, err)
	assert.Equal(t, []string{"elicitation/create"}, asked)
	assert.Contains(t, string(resp), `"text":"Hello, Ada!"`)
}

func TestStdioAutoAgainstModernServer(t *testing.T) {
	tr := pipeServer(t, fixtureServer(t), stdioOptions{})
	require.NoError(t, tr.handshake(context.Background(), &Config{Era: EraAuto, ClientName: "t", ClientVersion: "1"}, DefaultProbeTimeout))
	modern, version := tr.negotiated()
	assert.True(t, modern)
	assert.Equal(t, "2026-07-28", version)
}

// legacyInitialize is the initialize line a client with no handlers writes.
const legacyInitialize = `{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

const probeLine = `{"jsonrpc":"2.0","id":"probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`

func TestStdioAutoFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		probe func(t *testing.T, rs *rawServer) // the server's reaction to the probe
	}{
		{"method not found", func(t *testing.T, rs *rawServer) {
			rs.write(t, `{"jsonrpc":"2.0","id":"probe-1","error":{"code":-32601,"message":"Method not found"}}`)
		}},
		{"silence until the probe timeout", func(t *testing.T, rs *rawServer) {
			// The client gives up on the probe and withdraws it.
			assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"probe-1"}}`, rs.read(t))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// In a bubble, the 2 s probe timeout passes as soon as everyone waits.
			synctest.Test(t, func(t *testing.T) {
				tr, rs := newRawServer(t, stdioOptions{})
				done := make(chan error, 1)
				go func() {
					done <- tr.handshake(context.Background(), &Config{Era: EraAuto, ClientName: "t", ClientVersion: "1"}, DefaultProbeTimeout)
				}()
				assert.Equal(t, probeLine, rs.read(t))
				tc.probe(t, rs)
				assert.Equal(t, legacyInitialize, rs.read(t))
				rs.write(t, `{"jsonrpc":"2.0","id":"init-1","result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
				assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, rs.read(t))
				require.NoError(t, <-done)
				modern, version := tr.negotiated()
				assert.False(t, modern)
				assert.Equal(t, "2025-06-18", version)
			})
		})
	}
}

func TestStdioLegacyVersionRejected(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	done := make(chan error, 1)
	go func() {
		done <- tr.handshake(context.Background(), &Config{Era: EraLegacy, ClientName: "t", ClientVersion: "1"}, 0)
	}()
	assert.Equal(t, legacyInitialize, rs.read(t))
	rs.write(t, `{"jsonrpc":"2.0","id":"init-1","result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	err := <-done
	require.ErrorIs(t, err, ErrVersionRejected)
	assert.EqualError(t, err, `client: server chose an unsupported protocol version: initialize answered "2024-11-05"`)
}
