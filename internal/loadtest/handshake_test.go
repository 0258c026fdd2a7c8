package loadtest

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// seen is one request a scripted server received: its protocol header and body.
type seen struct{ version, body string }

// legacyServer is a stateless initialize-era server on a loopback port: it answers
// initialize with version, notifications with initializedStatus, and every other POST with
// the echo reply of 2025-11-25. It records what it received.
type legacyServer struct {
	url string

	mu   sync.Mutex
	seen []seen
}

func startLegacyServer(t *testing.T, version string, initializedStatus int) *legacyServer {
	t.Helper()
	return startSessionServer(t, version, initializedStatus, "")
}

// startSessionServer is startLegacyServer keeping one session: initialize issues session as
// Mcp-Session-Id, and any other request without it is refused with 400 (unless session is "").
func startSessionServer(t *testing.T, version string, initializedStatus int, session string) *legacyServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &legacyServer{url: "http://" + ln.Addr().String() + "/mcp"}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		body := string(ctx.PostBody())
		s.mu.Lock()
		s.seen = append(s.seen, seen{string(ctx.Request.Header.Peek(HeaderProtocolVersion)), body})
		s.mu.Unlock()
		if session != "" && body != initializeBody && string(ctx.Request.Header.Peek(HeaderSession)) != session {
			ctx.SetStatusCode(fasthttp.StatusBadRequest)
			return
		}
		switch body {
		case initializeBody:
			if session != "" {
				ctx.Response.Header.Set(HeaderSession, session)
			}
			ctx.SetContentType("application/json")
			ctx.SetBodyString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"` + version + `","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
		case initializedBody:
			ctx.SetStatusCode(initializedStatus)
		default:
			r, _ := parseReply(ctx.PostBody())
			ctx.SetContentType("application/json")
			ctx.SetBodyString(`{"jsonrpc":"2.0","id":` + string(r.id) + `,"result":{"content":[{"type":"text","text":"hello"}]}}`)
		}
	}}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, srv.Shutdown())
		require.NoError(t, <-served)
	})
	return s
}

func (s *legacyServer) received() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.seen...)
}

// TestCheckLegacyHandshake: a legacy Check sends initialize without the version header,
// then notifications/initialized and the call with it, each a valid 2025-11-25 message.
func TestCheckLegacyHandshake(t *testing.T) {
	s := startLegacyServer(t, LegacyVersion, fasthttp.StatusAccepted)
	require.NoError(t, Check(context.Background(), Target{URL: s.url, Dialect: DialectLegacy}))
	got := s.received()
	require.Equal(t, []seen{
		{"", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fastmcp-bench","version":"devel"}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`},
	}, got)
	for i, def := range []string{"InitializeRequest", "InitializedNotification", "CallToolRequest"} {
		wireschema.RequireValidRev(t, LegacyVersion, def, []byte(got[i].body))
	}
}

// TestCheckLegacyRefusals: a server that negotiates another version, or does not accept
// the initialized notification with 202, does not serve the legacy form.
func TestCheckLegacyRefusals(t *testing.T) {
	other := startLegacyServer(t, "2025-06-18", fasthttp.StatusAccepted)
	err := Check(context.Background(), Target{URL: other.url, Name: "other", Dialect: DialectLegacy})
	require.EqualError(t, err, `loadtest: other does not serve 2025-11-25: initialize negotiated "2025-06-18", not 2025-11-25`)
	assert.Len(t, other.received(), 1, "nothing is called after a failed handshake")

	ok200 := startLegacyServer(t, LegacyVersion, fasthttp.StatusOK)
	err = Check(context.Background(), Target{URL: ok200.url, Name: "ok200", Dialect: DialectLegacy})
	require.EqualError(t, err, `loadtest: ok200 does not serve 2025-11-25: notifications/initialized: status 200, want 202`)
}

// TestModernCallBodyValid: the default request is a valid 2026-07-28 tools/call.
func TestModernCallBodyValid(t *testing.T) {
	ep, err := Target{URL: "http://127.0.0.1:1/mcp"}.parse()
	require.NoError(t, err)
	wireschema.RequireValidRev(t, ProtocolVersion, "CallToolRequest", ep.appendCall(nil, 7))
}

// TestThroughputAnswered: Answered counts the warmup's replies too, Requests only the
// window's.
func TestThroughputAnswered(t *testing.T) {
	s := startLegacyServer(t, LegacyVersion, fasthttp.StatusAccepted)
	res, err := Throughput(context.Background(), ThroughputConfig{Target: Target{URL: s.url, Dialect: DialectLegacy},
		Connections: 2, Duration: 200 * time.Millisecond, Warmup: 100 * time.Millisecond})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	assert.Positive(t, res.Requests)
	assert.Greater(t, res.Answered, res.Requests, "warmup replies are answered but not measured")
	assert.Equal(t, int(res.Answered), len(s.received()), "every request the server received was answered and checked")
}

// TestOpenSession: OpenSession returns the session a sessionful server issues (its handshake
// in that session), and a throughput run with Target.Session keeps every call in it; a
// stateless server issues none, and a run without the session is refused.
func TestOpenSession(t *testing.T) {
	s := startSessionServer(t, LegacyVersion, fasthttp.StatusAccepted, "s-1")
	sid, err := OpenSession(context.Background(), Target{URL: s.url})
	require.NoError(t, err)
	require.Equal(t, "s-1", sid)
	require.Len(t, s.received(), 2, "initialize and notifications/initialized, the second in the session")

	res, err := Throughput(context.Background(), ThroughputConfig{Target: Target{URL: s.url, Dialect: DialectLegacy, Session: sid},
		Connections: 2, Duration: 100 * time.Millisecond, Warmup: 50 * time.Millisecond})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	assert.Positive(t, res.Requests)

	res, err = Throughput(context.Background(), ThroughputConfig{Target: Target{URL: s.url, Dialect: DialectLegacy},
		Connections: 1, Duration: 50 * time.Millisecond, Warmup: 10 * time.Millisecond})
	require.NoError(t, err)
	assert.Positive(t, res.Errors[KindStatusPrefix+"400"], "outside the session every call is refused")

	stateless := startLegacyServer(t, LegacyVersion, fasthttp.StatusAccepted)
	sid, err = OpenSession(context.Background(), Target{URL: stateless.url})
	require.NoError(t, err)
	assert.Empty(t, sid)
}
