package gateway

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestProgressAndCancellation: the backend's progress reaches the caller, and the caller's
// cancellation ends the backend's call.
func TestProgressAndCancellation(t *testing.T) {
	p := newProbe()
	url, _ := serveHTTP(t, newBackendServer("a", p), "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url}}})
	c := connect(t, gw, client.EraModern)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progressed := make(chan client.Progress, 1)
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "slow", nil, client.WithProgress(func(pr client.Progress) {
			select {
			case progressed <- pr:
			default:
			}
		}))
		done <- err
	}()
	select {
	case pr := <-progressed:
		assert.Equal(t, client.Progress{Progress: 1, Message: "started"}, pr)
	case <-time.After(20 * time.Second):
		t.Fatal("no progress reached the caller")
	}
	cancel()
	select {
	case <-p.cancelled:
	case <-time.After(20 * time.Second):
		t.Fatal("the backend's call was not cancelled")
	}
	require.ErrorIs(t, <-done, context.Canceled)
}

// TestListChangedFollowed: a tool the backend adds while serving appears in the gateway's
// catalog, announced by the gateway's own list_changed; one it removes disappears.
func TestListChangedFollowed(t *testing.T) {
	backend := newBackendServer("a", nil)
	url, _ := serveHTTP(t, backend, "", nil)
	urlB, _ := serveHTTP(t, newBackendServer("b", nil), "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url}, {Name: "b", URL: urlB}}})
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sub, err := c.Listen(ctx, client.ListenFilter{ToolsListChanged: true})
	require.NoError(t, err)
	defer sub.Close()

	hasTool := func(name string) bool {
		tools, err := c.ListTools(ctx)
		require.NoError(t, err)
		return slices.ContainsFunc(tools, func(tl client.Tool) bool { return tl.Name == name })
	}
	awaitCatalog := func(want bool) {
		for hasTool("a__late") != want {
			select {
			case _, ok := <-sub.C:
				require.True(t, ok, "the gateway's listen stream ended")
			case <-ctx.Done():
				t.Fatal("the gateway's catalog did not follow the backend's")
			}
		}
	}
	require.False(t, hasTool("a__late"))
	fastmcp.AddTool(backend, fastmcp.Tool{Name: "late"}, func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: "late"}, nil
	})
	awaitCatalog(true)
	res, err := c.CallTool(ctx, "a__late", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"late"}]`, string(res.Content))
	backend.RemoveTools("late")
	awaitCatalog(false)
}

// TestErasTranslated: a 2026-07-28 caller uses a backend that speaks only 2025-11-25, and an
// initialize-era caller one that speaks only 2026-07-28.
func TestErasTranslated(t *testing.T) {
	for _, tc := range []struct {
		name    string
		backend fastmcp.Dialect
		caller  client.Era
	}{
		{"modern caller, legacy backend", fastmcp.ParseDialect("2025-11-25"), client.EraModern},
		{"legacy caller, modern backend", fastmcp.ParseDialect("2026-07-28"), client.EraLegacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NotZero(t, tc.backend)
			url, _ := serveHTTP(t, newBackendServer("a", nil, tc.backend), "", nil)
			urlB, _ := serveHTTP(t, newBackendServer("b", nil, tc.backend), "", nil)
			g, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url}, {Name: "b", URL: urlB}}})
			require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
			c := connect(t, gw, tc.caller)
			ctx := context.Background()
			tools, err := c.ListTools(ctx)
			require.NoError(t, err)
			assert.Contains(t, names(tools), "a__echo")
			res, err := c.CallTool(ctx, "a__echo", map[string]string{"text": "across"})
			require.NoError(t, err)
			assert.JSONEq(t, `[{"type":"text","text":"a: across","annotations":{"priority":0.5}}]`, string(res.Content))
			_, err = c.CallTool(ctx, "b__fail", nil)
			var rpc *client.Error
			require.ErrorAs(t, err, &rpc)
			assert.Equal(t, client.Error{Code: -32042, Message: "Custom failure", Data: []byte(`{"why":"test"}`)}, *rpc)
		})
	}
}

func names(tools []client.Tool) []string {
	out := make([]string, len(tools))
	for i, tl := range tools {
		out[i] = tl.Name
	}
	return out
}

// TestNoTokenPassthrough: the caller's Authorization header never reaches a backend.
func TestNoTokenPassthrough(t *testing.T) {
	p := newProbe()
	url, _ := serveHTTP(t, newBackendServer("a", nil), "", p)
	// The recorder works: a request sent to the backend itself is seen with its header.
	post(t, url, "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+wireMeta+`}}`, "Authorization", "Bearer direct")
	p.mu.Lock()
	require.Equal(t, []string{"Bearer direct"}, p.auth)
	p.auth = nil
	p.mu.Unlock()

	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url}}})
	status, body := post(t, gw, "tools/call", "echo",
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"t"},`+wireMeta+`}}`,
		"Authorization", "Bearer caller-secret")
	require.Equal(t, 200, status)
	require.Contains(t, body, `"text":"a: t"`)
	p.mu.Lock()
	defer p.mu.Unlock()
	assert.Empty(t, p.auth, "the backend received Authorization headers")
}

// TestBackendDownAndBack: a backend that stops serving fails its calls with the unavailable
// error while the other keeps serving; started again at its address, it comes back without
// a gateway restart.
func TestBackendDownAndBack(t *testing.T) {
	coreA := newBackendServer("a", nil)
	urlA, stopA := serveHTTP(t, coreA, "", nil)
	urlB, _ := serveHTTP(t, newBackendServer("b", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: urlA}, {Name: "b", URL: urlB}}})
	call := func(name string) string {
		_, body := post(t, gw, "tools/call", name,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+name+`","arguments":{"text":"up"},`+wireMeta+`}}`)
		return body
	}
	require.Contains(t, call("a__echo"), `"text":"a: up"`)
	stopA()
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Backend \"a\" is unavailable","data":{"backend":"a"}}}`, call("a__echo"))
	assert.Contains(t, call("b__echo"), `"text":"b: up"`)
	_, body := post(t, gw, "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+wireMeta+`}}`)
	assert.Contains(t, body, `"name":"a__echo"`, "a down backend's tools stay listed")

	serveHTTP(t, coreA, urlA[len("http://"):len(urlA)-len("/mcp")], nil)
	waitFor(t, "backend a to come back", func() bool { return strings.Contains(call("a__echo"), `"text":"a: up"`) })
	assert.True(t, g.Status()[0].Up)
}

// TestCatalogBound: a backend listing more than MaxCatalogEntries is refused (and down)
// with ErrCatalogTooLarge, and none of its entries is served; at the bound it is served.
func TestCatalogBound(t *testing.T) {
	url, _ := serveHTTP(t, newBackendServer("a", nil), "", nil)
	const entries = 7 // 4 tools, 1 prompt, 1 resource, 1 template
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url}}, MaxCatalogEntries: entries - 1})
	st := g.Status()[0]
	assert.False(t, st.Up)
	require.ErrorIs(t, st.Err, ErrCatalogTooLarge)
	assert.EqualError(t, st.Err, "gateway: backend catalog exceeds MaxCatalogEntries (6)")
	_, body := post(t, gw, "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+wireMeta+`}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, body, "no tool is served")

	g2, _ := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url}}, MaxCatalogEntries: entries})
	assert.True(t, g2.Status()[0].Up)
	assert.Equal(t, entries, g2.Status()[0].Entries)
}

// TestMaxBackends: more backends than MaxBackends are refused by New, by default too.
func TestMaxBackends(t *testing.T) {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "g", Version: "1"}, nil)
	require.NoError(t, err)
	three := []Backend{{Name: "a", URL: "http://127.0.0.1:1/mcp"}, {Name: "b", URL: "http://127.0.0.1:1/mcp"}, {Name: "c", URL: "http://127.0.0.1:1/mcp"}}
	_, err = New(srv, Config{Backends: three, MaxBackends: 2})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.EqualError(t, err, "gateway: invalid configuration: 3 backends, more than MaxBackends (2)")

	many := make([]Backend, DefaultMaxBackends+1)
	for i := range many {
		many[i] = Backend{Name: "b" + string(rune('a'+i/26)) + string(rune('a'+i%26)), URL: "http://127.0.0.1:1/mcp"}
	}
	_, err = New(srv, Config{Backends: many})
	assert.EqualError(t, err, "gateway: invalid configuration: 65 backends, more than MaxBackends (64)")
	_, err = New(srv, Config{Backends: many[:DefaultMaxBackends]})
	assert.NoError(t, err)
}

// A backend's list_changed that changes nothing the gateway serves is still announced: the
// callers hear what the backend said (the official suite's trigger tools announce that way).
func TestListChangedForwardedUnchanged(t *testing.T) {
	backend := newBackendServer("a", nil)
	url, _ := serveHTTP(t, backend, "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "a", URL: url}}})
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sub, err := c.Listen(ctx, client.ListenFilter{ToolsListChanged: true})
	require.NoError(t, err)
	defer sub.Close()
	backend.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	select {
	case n, ok := <-sub.C:
		require.True(t, ok, "the gateway's listen stream ended")
		assert.Equal(t, "notifications/tools/list_changed", n.Method)
	case <-ctx.Done():
		t.Fatal("the backend's announcement was not forwarded")
	}
}
