package streamable

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// A client that goes away over TLS cancels its running request, as over plaintext: the
// connection's watch reads under the TLS layer (the close_notify alert and then the end of
// the stream).
func TestTLSDisconnectCancels(t *testing.T) {
	ca := newTestCA(t)
	core := newCore(t)
	b := newBlocker(t, core)
	s := startServer(t, core, ListenerConfig{TLS: ca.serverTLS(t, 2), Config: Config{RequestTimeout: NoTimeout}})
	c := dialTLS(t, s, ca.clientTLS())
	_, err := io.WriteString(c, postTo(addrOf(s), call("1", "block", `{}`), callHeaders("block")...))
	require.NoError(t, err)
	<-b.started
	require.NoError(t, c.Close())
	assert.ErrorIs(t, <-b.ended, context.Canceled)
}

// A drain over TLS: a head still arriving gets 503 "Server is shutting down" through the
// TLS connection, while a request read in full runs to its 200.
func TestTLSDrain(t *testing.T) {
	active := make(chan struct{}, 8)
	testHookActive = func() { active <- struct{}{} }
	defer func() { testHookActive = nil }()
	ca := newTestCA(t)
	s, b, served := startUnmanaged(t, ListenerConfig{TLS: ca.serverTLS(t, 2)})
	inflight := dialTLS(t, s, ca.clientTLS())
	_, _ = io.WriteString(inflight, postTo(addrOf(s), call("1", "block", `{}`), callHeaders("block")...))
	<-b.started
	<-active
	partial := dialTLS(t, s, ca.clientTLS())
	_, _ = io.WriteString(partial, "POST /mcp HTTP/1.1\r\n")
	<-active // the server is reading its head

	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	resp, body := readResponse(t, bufio.NewReader(partial))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Server is shutting down"}}`, body)
	requireLegacyValid(t, wireschema.Latest, "", body) // the error response, its null id aside

	close(b.release)
	resp, body = readResponse(t, bufio.NewReader(inflight))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"text":"released"`)
	require.NoError(t, <-shut)
	require.ErrorIs(t, <-served, ErrServerClosed)
}
