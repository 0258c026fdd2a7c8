package client

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStdioModernCall(t *testing.T) {
	tr := pipeServer(t, fixtureServer(t), stdioOptions{})
	require.NoError(t, tr.handshake(context.Background(), &Config{Era: EraModern}, DefaultProbeTimeout))
	modern, version := tr.negotiated()
	assert.True(t, modern)
	assert.Equal(t, "2026-07-28", version)

	resp, err := tr.roundTrip(context.Background(),
		[]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},`+modernMeta+`}}`),
		nil, noMessages)
	require.NoError(t, err)
	assert.Contains(t, string(resp), `"id":7`)
	assert.Contains(t, string(resp), `{"type":"text","text":"hi"}`)
}
