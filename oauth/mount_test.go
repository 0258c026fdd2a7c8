package oauth

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// startMounted serves core with a RequestHandler mounted in a plain fasthttp.Server, set up
// as streamable's package doc asks of a host.
func startMounted(t testing.TB, core *fastmcp.Server, cfg streamable.Config) string {
	t.Helper()
	h, err := streamable.NewRequestHandler(core, cfg)
	require.NoError(t, err)
	fs := &fasthttp.Server{
		Handler: h.Handler(), HeaderReceived: h.HeaderReceived, ErrorHandler: h.ErrorHandler,
		ReadBufferSize: streamable.DefaultMaxHeaderBytes + 4096, NoDefaultContentType: true, CloseOnShutdown: true,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- fs.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, h.Close(context.Background()))
		require.NoError(t, fs.Shutdown())
		_ = ln.Close()
		if err := <-done; !errors.Is(err, net.ErrClosed) {
			require.NoError(t, err)
		}
	})
	return ln.Addr().String()
}

func sortStrings(s []string) { slices.Sort(s) }
