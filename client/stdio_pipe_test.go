package client

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/stdio"
)

// modernMeta is the _meta of a 2026-07-28 request with no optional capabilities.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// fixtureServer returns a server with the conformance and demo catalogs.
func fixtureServer(t *testing.T) *fastmcp.Server {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "fixtures", Version: "1.0.0"}, nil)
	require.NoError(t, err)
	require.NoError(t, fixtures.Register(srv, "conformance,demo"))
	return srv
}

// pipeServer serves srv with stdio.Serve over in-memory pipes and returns a stdio transport
// to it. Cleanup closes the transport and waits for Serve to return.
func pipeServer(t *testing.T, srv *fastmcp.Server, o stdioOptions) *stdioTransport {
	t.Helper()
	cr, cw := io.Pipe() // client -> server
	sr, sw := io.Pipe() // server -> client
	served := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), srv, stdio.Config{Input: cr, Output: sw})
		_ = sw.Close()
		_ = cr.Close()
		served <- err
	}()
	tr, err := newStdioTransport(sr, cw, o)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, tr.close())
		require.NoError(t, <-served)
	})
	return tr
}

// rawServer is the server end of a stdio transport that a test drives by hand: it reads
// the client's lines and writes the lines it chooses.
type rawServer struct {
	lines *lineReader
	out   *io.PipeWriter
}

func newRawServer(t *testing.T, o stdioOptions) (*stdioTransport, *rawServer) {
	t.Helper()
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	tr, err := newStdioTransport(sr, cw, o)
	require.NoError(t, err)
	rs := &rawServer{lines: newLineReader(cr, DefaultMaxLineBytes), out: sw}
	t.Cleanup(func() {
		_ = sw.Close() // the server "exits"
		go func() { _, _ = io.Copy(io.Discard, cr) }()
		require.NoError(t, tr.close())
		_ = cr.Close()
	})
	return tr, rs
}

// read returns the next line the client wrote.
func (rs *rawServer) read(t *testing.T) string {
	t.Helper()
	line, err := rs.lines.next()
	require.NoError(t, err)
	return string(line)
}

// write writes one line to the client.
func (rs *rawServer) write(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(rs.out, line+"\n")
	require.NoError(t, err)
}

func noMessages(msg []byte) ([]byte, error) { return nil, nil }

// stdioClient returns a Client over tr with cfg (defaults filled in), closed at the end.
func stdioClient(t *testing.T, tr *stdioTransport, cfg Config) *Client {
	t.Helper()
	cfg, err := cfg.withDefaults()
	require.NoError(t, err)
	c, err := newClient(context.Background(), tr, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}
