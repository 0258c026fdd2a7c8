package streamable

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

func newStdServer(t *testing.T, core *fastmcp.Server, cfg Config, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	h, err := NewHandler(core, cfg)
	require.NoError(t, err)
	var handler http.Handler = h
	if wrap != nil {
		handler = wrap(h)
	}
	ts := httptest.NewServer(handler)
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, h.Close(context.Background()))
	})
	return ts
}

func stdPost(t *testing.T, ts *httptest.Server, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestNetHTTPAdapter(t *testing.T) {
	ts := newStdServer(t, newCore(t), Config{}, nil)
	resp, body := stdPost(t, ts, call("1", "echo", `{"text":"hi"}`), map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "echo"})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],`+serverInfo+`}}`, body)

	resp, body = stdPost(t, ts, list("2"), map[string]string{"Mcp-Method": "TOOLS/LIST"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"Mcp-Method header is missing or does not match the method"}}`, body)

	resp, _ = stdPost(t, ts, list("3"), map[string]string{"Mcp-Method": "tools/list", "Content-Type": "text/plain"})
	assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)

	resp, body = stdPost(t, ts, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, nil)
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	assert.Empty(t, body)

	body2 := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"},"name":"sleep","arguments":{"ms":25}}}`
	resp, raw := stdPost(t, ts, body2, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "sleep"})
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var got []string
	for e := range events(strings.NewReader(raw)) {
		got = append(got, e)
	}
	require.GreaterOrEqual(t, len(got), 2)
	assert.Contains(t, got[0], `"notifications/progress"`)
	assert.Contains(t, got[len(got)-1], `"text":"slept"`)

	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/mcp", nil)
	r, err := ts.Client().Do(req)
	require.NoError(t, err)
	r.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, r.StatusCode)
	assert.Equal(t, "POST", r.Header.Get("Allow"))
}

// The identity the application's middleware verified reaches the core's policy; a header the
// client chose does not.
func TestNetHTTPIdentityFromMiddleware(t *testing.T) {
	var seen []string
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, &fastmcp.Config{
		Authorizer: fastmcp.AuthorizerFunc(func(ctx context.Context, _ fastmcp.Phase, _ string, _ fastmcp.Component) error {
			id := fastmcp.IdentityFrom(ctx)
			if id == nil {
				seen = append(seen, "")
				return fastmcp.ErrRefused
			}
			seen = append(seen, id.Principal)
			return nil
		}),
	})
	require.NoError(t, err)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "echo", Description: "Echo"}, func(_ context.Context, _ *fastmcp.Request, in echoArgs) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: in.Text}, nil
	})
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "Bearer good" {
				r = r.WithContext(fastmcp.WithIdentity(r.Context(), &fastmcp.Identity{Principal: "alice"}))
			}
			next.ServeHTTP(w, r)
		})
	}
	ts := newStdServer(t, core, Config{}, auth)
	_, body := stdPost(t, ts, call("1", "echo", `{"text":"x"}`), map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "echo", "Authorization": "Bearer good"})
	assert.Contains(t, body, `"text":"x"`)
	_, body = stdPost(t, ts, call("2", "echo", `{"text":"x"}`), map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "echo", "X-Principal": "alice"})
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32003,"message":"Access denied"}}`, body)
	assert.Equal(t, []string{"alice", ""}, seen)
}
