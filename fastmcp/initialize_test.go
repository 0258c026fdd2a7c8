package fastmcp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// TestInitializeStatus: the error a modern-only server gives initialize is -32601, which
// Streamable HTTP sends with 404 (transport.Rules.HTTPStatus), as the specification's
// server-validation rules and the conformance check server-stateless ask for a method that
// does not exist; its data names the versions served.
func TestInitializeStatus(t *testing.T) {
	s := newTestServer(t, &Config{Dialects: []Dialect{Modern}})
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"},` + meta + `}}`,
	} {
		var m decode.Message
		require.NoError(t, s.decoder.Decode(&m, []byte(msg)))
		r := s.testHandle(context.Background(), &m, nil, nil)
		require.NotNil(t, r.Err)
		assert.Equal(t, CodeMethodNotFound, r.Err.Code)
		assert.False(t, r.Err.Admission() || r.Err.Unavailable(), "the code alone decides the status")
		assert.Contains(t, string(r.Err.Data), `"supported":["2026-07-28"]`)
	}
}
