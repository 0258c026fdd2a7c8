package streamable

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const lengthRequired = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Length Required: send a Content-Length and no Transfer-Encoding"}}`

// Any Transfer-Encoding on a request is refused with 411, and the connection closed: one
// fasthttp would drop (identity, with or without a Content-Length), chunked, and the ones
// it cannot parse.
func TestTransferEncodingRefused(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{})
	body := list("1")
	head := func(lines ...string) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + hostOf(s) + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n" +
			strings.Join(lines, "\r\n") + "\r\n\r\n"
	}
	cl := "Content-Length: " + strconv.Itoa(len(body))
	chunk := strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n"
	for _, tc := range []struct{ name, raw string }{
		{"identity with a length", head("Transfer-Encoding: identity", cl) + body},
		{"length then identity", head(cl, "transfer-encoding: IDENTITY") + body},
		{"identity alone", head("Transfer-Encoding: identity")},
		{"chunked", head("Transfer-Encoding: chunked") + chunk},
		{"chunked empty", head("Transfer-Encoding: chunked") + "0\r\n\r\n"},
		{"chunked with a length", head("Transfer-Encoding: chunked", cl) + chunk},
		{"gzip", head("Transfer-Encoding: gzip", cl) + body},
		{"twice", head("Transfer-Encoding: chunked", "Transfer-Encoding: chunked") + chunk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s)
			_, err := io.WriteString(c, tc.raw)
			require.NoError(t, err)
			br := bufio.NewReader(c)
			resp, got := readResponse(t, br)
			assert.Equal(t, http.StatusLengthRequired, resp.StatusCode)
			assert.Equal(t, lengthRequired, got)
			assert.True(t, resp.Close, "Connection: close")
			readToClose(t, br)
		})
	}
	resp, _ := exchange(t, s, post(s, list("2"), "Mcp-Method: tools/list"))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the next request is served")
}

// The 411 for a request without a Content-Length says Connection: close and closes: the body
// framing of what follows on the connection is unknown.
func TestLengthRequiredCloses(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{})
	c := dial(t, s)
	_, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+hostOf(s)+"\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, body := readResponse(t, br)
	assert.Equal(t, http.StatusLengthRequired, resp.StatusCode)
	assert.Equal(t, lengthRequired, body)
	assert.True(t, resp.Close, "Connection: close")
	assert.Empty(t, readToClose(t, br))
}

// During a drain every response says Connection: close and its connection closes, the
// transport's own errors included.
func TestDrainClosesAfterResponse(t *testing.T) {
	t.Run("in flight", func(t *testing.T) {
		s, b, served := startUnmanaged(t, ListenerConfig{})
		c := dial(t, s)
		_, _ = io.WriteString(c, post(s, call("1", "block", `{}`), callHeaders("block")...))
		<-b.started
		shut := make(chan error, 1)
		go func() { shut <- s.Shutdown(context.Background()) }()
		require.Eventually(t, s.draining.Load, 5*time.Second, time.Millisecond)
		close(b.release)
		br := bufio.NewReader(c)
		resp, body := readResponse(t, br)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, body, `"text":"released"`)
		assert.True(t, resp.Close, "Connection: close")
		assert.Empty(t, readToClose(t, br))
		require.NoError(t, <-shut)
		require.ErrorIs(t, <-served, ErrServerClosed)
	})
	// The drain's start, before fasthttp's own shutdown flag is up: what the listener answers
	// itself must close too. Draining is set directly, so the moment is not a race to win.
	t.Run("transport error", func(t *testing.T) {
		s := startServer(t, newCore(t), ListenerConfig{Config: Config{RequestTimeout: 50 * time.Millisecond}})
		c := dial(t, s)
		s.draining.Store(true)
		defer s.draining.Store(false)
		_, _ = io.WriteString(c, post(s, call("1", "sleep", `{"ms":5000}`), callHeaders("sleep")...))
		br := bufio.NewReader(c)
		resp, body := readResponse(t, br)
		assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Request execution timed out"}}`, body)
		assert.True(t, resp.Close, "Connection: close")
		assert.Empty(t, readToClose(t, br))
	})
}

// An absolute-form request-target names the host (RFC 9112 §3.2.2): its authority is checked
// against the allowed hosts instead of the Host header, and its path against the endpoint's.
func TestAbsoluteFormTarget(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{})
	std := []string{"Content-Type: application/json", "Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list"}
	with := func(host string) []string { return append([]string{"Host: " + host}, std...) }
	body := list("1")
	self := hostOf(s)
	for _, tc := range []struct {
		name, target, host string
		status             int
		body               string
	}{
		{"foreign authority", "http://evil.example/mcp", self, 403, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Forbidden: host not allowed"}}`},
		{"foreign authority with a port", "http://evil.example:" + strings.Split(self, ":")[1] + "/mcp", self, 403, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Forbidden: host not allowed"}}`},
		{"foreign authority with userinfo", "http://127.0.0.1@evil.example/mcp", self, 403, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Forbidden: host not allowed"}}`},
		{"loopback authority, foreign Host", "http://" + self + "/mcp", "evil.example", 200, ""},
		{"upper-case scheme", "HTTP://localhost/mcp", self, 200, ""},
		{"other path", "http://" + self + "/other", self, 404, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Not found"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := exchange(t, s, rawPost(tc.target, body, with(tc.host)...))
			assert.Equal(t, tc.status, resp.StatusCode)
			if tc.body != "" {
				assert.Equal(t, tc.body, got)
			} else {
				assert.Contains(t, got, `"tools":[`)
			}
		})
	}
}

// A request gate sees the path the endpoint routes on: that of an absolute-form target, and
// after fasthttp's normalization, so a gate guarding the endpoint's path cannot be stepped
// around by spelling it differently.
func TestGateSeesTheRoutedPath(t *testing.T) {
	paths := make(chan string, 8)
	gate := func(_ context.Context, r GateRequest) (GateDecision, error) {
		paths <- string(r.Path)
		if string(r.Path) == "/mcp" {
			return GateDecision{Response: &GateResponse{Status: http.StatusUnauthorized}}, nil
		}
		return GateDecision{}, nil
	}
	s := startServer(t, newCore(t), ListenerConfig{Config: Config{RequestGate: gate}})
	std := []string{"Host: " + hostOf(s), "Content-Type: application/json", "Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list"}
	for _, target := range []string{"/mcp", "/mcp?x=1", "http://" + hostOf(s) + "/mcp", "/%6Dcp", "/x/../mcp", "//mcp"} {
		resp, _ := exchange(t, s, rawPost(target, list("1"), std...))
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s", target)
		assert.Equal(t, "/mcp", <-paths, "%s", target)
	}
}
