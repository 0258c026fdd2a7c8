package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// dateLine is the Date header, the one line of a response that changes between runs.
var dateLine = regexp.MustCompile(`\r\nDate: [^\r]+`)

// rawExchange sends raw (which asks for Connection: close) on conn and returns the whole
// response as sent, its Date header removed.
func rawExchange(t *testing.T, conn net.Conn, raw string) string {
	t.Helper()
	_, err := io.WriteString(conn, raw)
	require.NoError(t, err)
	b, err := io.ReadAll(conn)
	require.NoError(t, ignoreReset(err))
	return dateLine.ReplaceAllString(string(b), "")
}

// refuseAll is a gate that answers every request it sees with 401.
func refuseAll(seen *atomic.Int64) RequestGate {
	return func(context.Context, GateRequest) (GateDecision, error) {
		seen.Add(1)
		return GateDecision{Response: &GateResponse{Status: http.StatusUnauthorized, ContentType: "text/plain", Body: []byte("no\n")}}, nil
	}
}

// With ServeHealth, /healthz and /readyz answer on the main listener before the gate (which
// refuses everything else) and without the Host check, whatever Host a probe names.
func TestHealthOnMainListener(t *testing.T) {
	var gated atomic.Int64
	s := startServer(t, newCore(t), ListenerConfig{ServeHealth: true, Config: Config{RequestGate: refuseAll(&gated), AllowedHosts: []string{"mcp.example.com"}}})
	for name, tc := range map[string]struct{ req, want string }{
		"healthz": {
			req:  "GET /healthz HTTP/1.1\r\nHost: 10.0.0.7:8080\r\nConnection: close\r\n\r\n",
			want: "HTTP/1.1 200 OK\r\nServer: fastmcp\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 3\r\nCache-Control: no-store\r\nConnection: close\r\n\r\nok\n",
		},
		"readyz": {
			req:  "GET /readyz HTTP/1.1\r\nHost: 10.0.0.7:8080\r\nOrigin: http://evil.example\r\nConnection: close\r\n\r\n",
			want: "HTTP/1.1 200 OK\r\nServer: fastmcp\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 6\r\nCache-Control: no-store\r\nConnection: close\r\n\r\nready\n",
		},
		"readyz head": {
			req:  "HEAD /readyz HTTP/1.1\r\nHost: 10.0.0.7\r\nConnection: close\r\n\r\n",
			want: "HTTP/1.1 200 OK\r\nServer: fastmcp\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 6\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
		},
		"post healthz": {
			req:  "POST /healthz HTTP/1.1\r\nHost: 10.0.0.7\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
			want: "HTTP/1.1 405 Method Not Allowed\r\nServer: fastmcp\r\nContent-Length: 0\r\nAllow: GET, HEAD\r\nConnection: close\r\n\r\n",
		},
		"mcp is gated": {
			req:  postTo("mcp.example.com", call("1", "echo", `{"text":"hi"}`), append(callHeaders("echo"), "Connection: close")...),
			want: "HTTP/1.1 401 Unauthorized\r\nServer: fastmcp\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nno\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, rawExchange(t, dial(t, s), tc.req))
		})
	}
	assert.Equal(t, int64(1), gated.Load(), "the gate saw only the MCP request")
}

// Without ServeHealth the health paths are paths the endpoint does not serve (404).
func TestHealthOffByDefault(t *testing.T) {
	s := startServer(t, newCore(t), ListenerConfig{})
	got := rawExchange(t, dial(t, s), "GET /readyz HTTP/1.1\r\nHost: "+hostOf(s)+"\r\nConnection: close\r\n\r\n")
	assert.Equal(t, "HTTP/1.1 404 Not Found\r\nServer: fastmcp\r\nContent-Type: application/json\r\nContent-Length: 73\r\nConnection: close\r\n\r\n"+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Not found"}}`, got)
}

// Over TLS the health endpoints answer through the TLS connection.
func TestHealthOverTLS(t *testing.T) {
	ca := newTestCA(t)
	s := startServer(t, newCore(t), ListenerConfig{TLS: ca.serverTLS(t, 2), ServeHealth: true})
	resp, body := exchangeTLS(t, s, ca.clientTLS(), "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ready\n", body)
}

// /readyz turns 503 at the first moment of a drain, while a request in flight still runs to
// its response, so a proxy polling it stops sending before connections close; /healthz
// stays 200. Here on a separate listener (a metrics listener's), through HealthHandler.
func TestReadyzDuringDrain(t *testing.T) {
	active := make(chan struct{}, 8)
	testHookActive = func() { active <- struct{}{} }
	defer func() { testHookActive = nil }()
	s, b, served := startUnmanaged(t, ListenerConfig{ServeHealth: true})
	probe := httptest.NewServer(HealthHandler(s.Ready))
	defer probe.Close()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(probe.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
		assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
		return resp.StatusCode, string(body)
	}

	resp, body := exchange(t, s, "GET /readyz HTTP/1.1\r\nHost: "+hostOf(s)+"\r\n\r\n")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "serving: ready on the main listener")
	assert.Equal(t, "ready\n", body)
	<-active
	code, text := get(ReadyzPath)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ready\n", text)

	inflight := dial(t, s)
	_, _ = io.WriteString(inflight, post(s, call("1", "block", `{}`), callHeaders("block")...))
	<-b.started
	<-active
	partial := dial(t, s)
	_, _ = io.WriteString(partial, "POST /mcp HTTP/1.1\r\n")
	<-active
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	r, _ := readResponse(t, bufio.NewReader(partial)) // the drain has begun
	require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)

	assert.False(t, s.Ready())
	code, text = get(ReadyzPath)
	assert.Equal(t, http.StatusServiceUnavailable, code, "not ready from the start of the drain")
	assert.Equal(t, "not ready\n", text)
	code, text = get(HealthzPath)
	assert.Equal(t, http.StatusOK, code, "still alive")
	assert.Equal(t, "ok\n", text)
	select {
	case <-shut:
		t.Fatal("the drain ended before the request in flight")
	default:
	}

	close(b.release)
	resp, body = readResponse(t, bufio.NewReader(inflight))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"text":"released"`)
	require.NoError(t, <-shut)
	require.ErrorIs(t, <-served, ErrServerClosed)
	assert.False(t, s.Ready())
}

// A server is not ready before it serves.
func TestReadyBeforeServe(t *testing.T) {
	s, err := New(newCore(t), ListenerConfig{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	assert.False(t, s.Ready())
	require.NoError(t, s.Shutdown(context.Background()))
}

// HealthHandler and HealthRequestHandler answer alike: 200/503 by readiness, 405 for other
// methods, 404 for other paths.
func TestHealthHandlers(t *testing.T) {
	var ready atomic.Bool
	type answer struct {
		status      int
		body, allow string
	}
	viaHTTP := func(method, path string) answer {
		rec := httptest.NewRecorder()
		HealthHandler(ready.Load).ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return answer{rec.Code, rec.Body.String(), rec.Header().Get("Allow")}
	}
	viaFast := func(method, path string) answer {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(method)
		ctx.Request.SetRequestURI(path)
		HealthRequestHandler(ready.Load)(&ctx)
		body := string(ctx.Response.Body())
		if method == http.MethodHead {
			body = "" // fasthttp leaves it out when it writes the response
		}
		return answer{ctx.Response.StatusCode(), body, string(ctx.Response.Header.Peek("Allow"))}
	}
	for name, serve := range map[string]func(method, path string) answer{"net/http": viaHTTP, "fasthttp": viaFast} {
		t.Run(name, func(t *testing.T) {
			ready.Store(false)
			assert.Equal(t, answer{503, "not ready\n", ""}, serve("GET", "/readyz"))
			assert.Equal(t, answer{200, "ok\n", ""}, serve("GET", "/healthz"))
			ready.Store(true)
			assert.Equal(t, answer{200, "ready\n", ""}, serve("GET", "/readyz"))
			assert.Equal(t, answer{200, "", ""}, serve("HEAD", "/readyz"))
			assert.Equal(t, answer{405, "", "GET, HEAD"}, serve("POST", "/readyz"))
			assert.Equal(t, 404, serve("GET", "/metrics").status)
		})
	}
}
