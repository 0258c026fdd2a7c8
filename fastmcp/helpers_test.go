package fastmcp

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Shared test helpers of package fastmcp. Area-specific helpers live in their area's test
// files, named after the area (for example listenSink in listen_test.go).

// meta is the _meta member of a valid 2026-07-28 request with no client capabilities.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// serverInfoMeta is the _meta member every result of newTestServer carries.
const serverInfoMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}`

func newTestServer(t testing.TB, cfg *Config) *Server {
	t.Helper()
	s, err := NewServer(Implementation{Name: "test", Version: "1.0.0"}, cfg)
	require.NoError(t, err)
	return s
}

// dispatch sends one literal message and returns the reply as a string ("" for none).
func dispatch(t testing.TB, s *Server, msg string) string {
	t.Helper()
	return string(s.Dispatch(context.Background(), []byte(msg), nil))
}

// recordingSink collects the notifications of a request.
type recordingSink struct {
	mu   sync.Mutex
	msgs []string
	err  error // returned by Notify when set
}

func (k *recordingSink) Notify(_ context.Context, msg []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err != nil {
		return k.err
	}
	k.msgs = append(k.msgs, string(msg))
	return nil
}

func (k *recordingSink) messages() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.msgs...)
}

// testHandle serves m as a 2026-07-28 request, as a transport does (transport.Endpoint.Serve).
func (s *Server) testHandle(ctx context.Context, m *decode.Message, sink Sink, dst []byte) Reply {
	return s.serveMessage(ctx, &modernState, m, sink, dst)
}

// testHandleLegacy serves m for an initialize-era client in state c.
func (s *Server) testHandleLegacy(ctx context.Context, m *decode.Message, c *ConnState, sink Sink, dst []byte) Reply {
	return s.serveMessage(ctx, c, m, sink, dst)
}
