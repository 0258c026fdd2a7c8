package oauth

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// meta is the request metadata every 2026-07-28 request carries.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// serverInfo ends every result of the test core.
const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}`

// clock is a settable time for the verifiers and the gate.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now().Truncate(time.Second)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testClient is an HTTP client that keeps no idle connection, so no goroutine of it
// outlives a test.
func testClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}

// newIssuer starts a test authorization server, stopped at the end of the test.
func newIssuer(t testing.TB) *oauthtest.Issuer {
	t.Helper()
	iss, err := oauthtest.NewIssuer()
	require.NoError(t, err)
	t.Cleanup(iss.Close)
	return iss
}

// newJWT is a verifier of iss's tokens for resource, on clock c.
func newJWT(t testing.TB, iss *oauthtest.Issuer, resource string, c *clock, tweak func(*JWTConfig)) *JWTVerifier {
	t.Helper()
	cfg := JWTConfig{Issuer: iss.URL, Audiences: []string{resource}, JWKS: JWKSConfig{URL: iss.JWKSURL(), HTTPClient: testClient()}}
	if tweak != nil {
		tweak(&cfg)
	}
	v, err := NewJWTVerifier(cfg)
	require.NoError(t, err)
	v.now = c.Now
	return v
}

// mint signs a token, failing the test on error.
func mint(t testing.TB, iss *oauthtest.Issuer, tok oauthtest.Token) string {
	t.Helper()
	s, err := iss.Mint(tok)
	require.NoError(t, err)
	return s
}

// goodToken is a valid token for resource with scope, signed by kid, at c's time.
func goodToken(t testing.TB, iss *oauthtest.Issuer, c *clock, resource, kid, scope string) string {
	return mint(t, iss, oauthtest.Token{Kid: kid, Subject: "alice", Audience: resource, Scope: scope,
		Expiry: c.Now().Add(time.Hour), IssuedAt: c.Now(), Extra: map[string]any{"client_id": "inspector"}})
}

var quiet = slog.New(slog.DiscardHandler)

// testCore has the tools whoami (no scope needed by the policy), write (needs files:write)
// and admin (needs admin).
func testCore(t testing.TB, policy *ScopePolicy) *fastmcp.Server {
	t.Helper()
	cfg := &fastmcp.Config{Logger: quiet}
	if policy != nil {
		cfg.Authorizer = policy
	}
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, cfg)
	require.NoError(t, err)
	whoami := func(ctx context.Context, _ *fastmcp.Request, _ struct{}) (fastmcp.ToolResult, error) {
		id := fastmcp.IdentityFrom(ctx)
		info := TokenInfoFrom(ctx)
		if id == nil || info == nil {
			return fastmcp.ToolResult{Text: "anonymous"}, nil
		}
		return fastmcp.ToolResult{Text: id.Principal + " via " + info.ClientID + " [" + strings.Join(info.Scopes, " ") + "]"}, nil
	}
	fastmcp.AddTool(core, fastmcp.Tool{Name: "whoami", Description: "Who am I"}, whoami)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "write", Description: "Write"}, whoami)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "admin", Description: "Admin"}, whoami)
	return core
}

// The stacks a gate is tried on.
const (
	stackNative   = "native"
	stackNetHTTP  = "nethttp"
	stackFastHTTP = "fasthttp-mount"
)

var allStacks = []string{stackNative, stackNetHTTP, stackFastHTTP}

// startStack serves core with cfg on one of the stacks and returns its host:port.
func startStack(t testing.TB, stack string, core *fastmcp.Server, cfg streamable.ListenerConfig) string {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	cfg.Logger = quiet
	switch stack {
	case stackNative:
		s, err := streamable.New(core, cfg)
		require.NoError(t, err)
		require.NoError(t, s.Listen())
		done := make(chan error, 1)
		go func() { done <- s.Serve() }()
		t.Cleanup(func() {
			require.NoError(t, s.Shutdown(context.Background()))
			require.ErrorIs(t, <-done, streamable.ErrServerClosed)
		})
		return strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), "/mcp")
	case stackNetHTTP:
		h, err := streamable.NewHandler(core, cfg.Config)
		require.NoError(t, err)
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.Close()
			require.NoError(t, h.Close(context.Background()))
		})
		return ts.Listener.Addr().String()
	}
	return startMounted(t, core, cfg.Config)
}

// exchange sends raw bytes to addr on a new connection and returns the response as
// received, its Date header removed.
func exchange(t testing.TB, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(c, raw)
	require.NoError(t, err)
	br := bufio.NewReader(c)
	var head strings.Builder
	length := 0
	for {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		if strings.HasPrefix(strings.ToLower(line), "date:") {
			continue
		}
		if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length:"); ok {
			length, err = strconv.Atoi(strings.TrimSpace(v))
			require.NoError(t, err)
		}
		head.WriteString(line)
		if line == "\r\n" {
			break
		}
	}
	if strings.HasPrefix(raw, "HEAD ") {
		length = 0
	}
	body := make([]byte, length)
	_, err = io.ReadFull(br, body)
	require.NoError(t, err)
	return head.String() + string(body)
}

// normalize makes the responses of the stacks comparable: net/http's header names are
// canonical (Www-Authenticate), fasthttp's too but ordered otherwise; this sorts the header
// lines and lowercases their names.
func normalize(resp string) string {
	head, body, _ := strings.Cut(resp, "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	status, fields := lines[0], lines[1:]
	kept := fields[:0]
	for _, f := range fields {
		name, value, _ := strings.Cut(f, ":")
		if name = strings.ToLower(name); name != "server" { // fastmcp, fasthttp or none
			kept = append(kept, name+":"+value)
		}
	}
	fields = kept
	sortStrings(fields)
	return status + "\r\n" + strings.Join(fields, "\r\n") + "\r\n\r\n" + body
}

// closing is a normalized response with Connection: close, as the gate's answer to a
// request that declared a body comes on every stack: the body is not read, and the
// connection closes after the answer.
func closing(normalized string) string {
	head, body, _ := strings.Cut(normalized, "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	fields := append(lines[1:], "connection: close")
	sortStrings(fields)
	return lines[0] + "\r\n" + strings.Join(fields, "\r\n") + "\r\n\r\n" + body
}

// post is a raw 2026-07-28 tools/call of tool, with the extra header lines.
func post(host, tool string, extra ...string) string {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"` + tool + `","arguments":{}}}`
	var b strings.Builder
	b.WriteString("POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n" +
		"Mcp-Method: tools/call\r\nMcp-Name: " + tool + "\r\n")
	for _, e := range extra {
		b.WriteString(e + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

func cut(s, sep string) (string, string, bool) { return strings.Cut(s, sep) }
