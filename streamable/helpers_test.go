package streamable

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// meta is the _meta member of a valid 2026-07-28 request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

type echoArgs struct {
	Text string `json:"text"`
}

// newCore returns a core with an echo tool, a slow tool that honours cancellation and reports
// progress, and a tool with an x-mcp-header argument.
func newCore(t testing.TB) *fastmcp.Server {
	t.Helper()
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	require.NoError(t, err)
	fastmcp.AddTool(s, fastmcp.Tool{Name: "echo", Description: "Echo"}, func(_ context.Context, _ *fastmcp.Request, in echoArgs) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: in.Text}, nil
	})
	type sleepArgs struct {
		Ms int `json:"ms"`
	}
	fastmcp.AddTool(s, fastmcp.Tool{Name: "sleep", Description: "Sleep"}, func(ctx context.Context, r *fastmcp.Request, in sleepArgs) (fastmcp.ToolResult, error) {
		t := time.NewTimer(time.Duration(in.Ms) * time.Millisecond)
		defer t.Stop()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := 1.0; ; i++ {
			select {
			case <-ctx.Done():
				return fastmcp.ToolResult{}, ctx.Err()
			case <-t.C:
				return fastmcp.ToolResult{Text: "slept"}, nil
			case <-tick.C:
				_ = r.Progress(ctx, i, 0, "")
			}
		}
	})
	type regionArgs struct {
		Region string `json:"region" mcpheader:"Region"`
		Text   string `json:"text"`
	}
	fastmcp.AddTool(s, fastmcp.Tool{Name: "region_echo", Description: "Region echo"}, func(_ context.Context, _ *fastmcp.Request, in regionArgs) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: in.Region + ": " + in.Text}, nil
	})
	return s
}

// startServer starts a listener on a free loopback port and shuts it down at the end.
func startServer(t testing.TB, core *fastmcp.Server, cfg ListenerConfig) *Server {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	s, err := New(core, cfg)
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		require.ErrorIs(t, <-done, ErrServerClosed)
	})
	return s
}

func hostOf(s *Server) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s.URL(), "http://"), "https://"), "/mcp")
}

// post builds a literal POST of body with the standard 2026-07-28 headers plus extra lines.
func post(s *Server, body string, extra ...string) string { return postTo(hostOf(s), body, extra...) }

// postTo is post with the Host header's value given.
func postTo(host, body string, extra ...string) string {
	var b strings.Builder
	b.WriteString("POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n")
	for _, e := range extra {
		b.WriteString(e + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	return b.String()
}

// call is a tools/call body.
func call(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + meta + `,"name":"` + tool + `","arguments":` + args + `}}`
}

// callHeaders are the mirrored headers of a tools/call.
func callHeaders(tool string) []string {
	return []string{"Mcp-Method: tools/call", "Mcp-Name: " + tool}
}

// exchange sends raw bytes on a new connection and reads one response.
func exchange(t testing.TB, s *Server, raw string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", hostOf(s))
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(c, raw)
	require.NoError(t, err)
	return readResponse(t, bufio.NewReader(c))
}

func readResponse(t testing.TB, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// readToClose reads what follows a response until the server closes the connection; a
// reset counts as closed when the server closed it with bytes of the client's unread.
func readToClose(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	rest, err := io.ReadAll(br)
	if errors.Is(err, syscall.ECONNRESET) {
		err = nil
	}
	require.NoError(t, err, "the server closes the connection")
	return string(rest)
}
