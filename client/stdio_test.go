package client

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdioRoundTripWire asserts the transport's bytes: the request line as given, the
// response as the server wrote it.
func TestStdioRoundTripWire(t *testing.T) {
	tr := pipeServer(t, fixtureServer(t), stdioOptions{})
	resp, err := tr.roundTrip(context.Background(),
		[]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},`+modernMeta+`}}`),
		nil, noMessages)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],`+
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fixtures","version":"1.0.0"}}}}`, string(resp))
}
