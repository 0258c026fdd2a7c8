package observe

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// meta is the _meta member of a valid 2026-07-28 request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

type echoArgs struct {
	Text string `json:"text"`
}

// newCore returns a core with the tools "echo" and "fail" (an isError result), observed by obs.
func newCore(t testing.TB, obs fastmcp.Observer) *fastmcp.Server {
	t.Helper()
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, &fastmcp.Config{Observer: obs})
	require.NoError(t, err)
	fastmcp.AddTool(s, fastmcp.Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *fastmcp.Request, in echoArgs) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: in.Text}, nil
	})
	fastmcp.AddTool(s, fastmcp.Tool{Name: "fail", Description: "Fail as the model sees it"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: "it failed", IsError: true}, nil
	})
	return s
}

// startHTTP serves core on a native listener on a free loopback port until the test ends.
func startHTTP(t testing.TB, core *fastmcp.Server, cfg streamable.ListenerConfig) *streamable.Server {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	s, err := streamable.New(core, cfg)
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, s.Shutdown(ctx))
		require.ErrorIs(t, <-done, streamable.ErrServerClosed)
	})
	return s
}

// startListener starts a metrics listener over reg until the test ends.
func startListener(t testing.TB, reg *prometheus.Registry, ready func() bool) *Listener {
	t.Helper()
	l, err := Listen(ListenerConfig{Addr: "127.0.0.1:0", Gatherer: reg, Ready: ready})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	return l
}

// post builds a literal POST of body to s with the 2026-07-28 headers plus extra lines.
func post(s *streamable.Server, body string, extra ...string) string {
	host := strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), "/mcp")
	var b strings.Builder
	b.WriteString("POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n")
	for _, e := range extra {
		b.WriteString(e + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	return b.String()
}

// exchange sends raw on a new connection to addr and reads one response.
func exchange(t testing.TB, addr, raw string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(c, raw)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// hostOf is the host:port of a URL such as http://127.0.0.1:1234/mcp.
func hostOf(url string) string {
	return strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
}

// scrape GETs /metrics from l and returns the exposition's sample lines of the families
// named by prefix.
func scrape(t testing.TB, l *Listener, prefix string) []string {
	t.Helper()
	resp, body := exchange(t, hostOf(l.URL()), "GET /metrics HTTP/1.1\r\nHost: metrics\r\nConnection: close\r\n\r\n")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var lines []string
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, prefix) {
			lines = append(lines, strings.TrimSuffix(line, "\n"))
		}
	}
	return lines
}
