package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/streamable"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
	)
}

// The README quotes this program verbatim, in the block that starts with its doc comment.
func TestReadmeQuotesMain(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	doc, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	open := "```go\n// Command call"
	i := strings.Index(string(doc), open)
	require.GreaterOrEqual(t, i, 0, "README.md has no ```go block starting with // Command call")
	rest := string(doc)[i+len("```go\n"):]
	end := strings.Index(rest, "```")
	require.GreaterOrEqual(t, end, 0)
	assert.Equal(t, string(src), rest[:end], "README.md must quote examples/call/main.go verbatim")
}

// versions records the MCP-Protocol-Version header of every request the server admits.
type versions struct {
	mu   sync.Mutex
	seen []string
}

func (v *versions) gate(_ context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
	s := "none"
	if vs := r.Header.Values(streamable.HeaderProtocolVersion); len(vs) > 0 {
		s = string(vs[0])
	}
	v.mu.Lock()
	v.seen = append(v.seen, s)
	v.mu.Unlock()
	return streamable.GateDecision{}, nil
}

func (v *versions) last() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.seen) == 0 {
		return ""
	}
	return v.seen[len(v.seen)-1]
}

// serveDemo serves the demo fixtures on a free loopback port until the test ends.
func serveDemo(t *testing.T) (string, *versions) {
	t.Helper()
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	require.NoError(t, err)
	require.NoError(t, fixtures.Register(core, "demo"))
	v := &versions{}
	srv, err := streamable.New(core, streamable.ListenerConfig{Addr: "127.0.0.1:0", Config: streamable.Config{RequestGate: v.gate}})
	require.NoError(t, err)
	require.NoError(t, srv.Listen())
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	t.Cleanup(func() {
		require.NoError(t, srv.Shutdown(context.Background()))
		require.ErrorIs(t, <-served, streamable.ErrServerClosed)
	})
	return srv.URL(), v
}

// call prints the echo tool's text in each era; the tool call travels with that era's
// protocol version (EraAuto, which main uses, finds the modern one).
func TestCallEcho(t *testing.T) {
	for _, tc := range []struct {
		era     client.Era
		version string
	}{
		{client.EraAuto, "2026-07-28"},
		{client.EraModern, "2026-07-28"},
		{client.EraLegacy, "2025-11-25"},
	} {
		t.Run(tc.era.String(), func(t *testing.T) {
			url, v := serveDemo(t)
			var out strings.Builder
			require.NoError(t, call(context.Background(), &out, client.Config{Era: tc.era}, url, "echo", `{"text":"hi"}`))
			assert.Equal(t, "hi\n", out.String())
			assert.Equal(t, tc.version, v.last(), "the tools/call request's MCP-Protocol-Version")
		})
	}
}

// Arguments that are not JSON fail before connecting; a protocol error and a tool's own
// failure (isError, whose text is still printed) are errors.
func TestCallErrors(t *testing.T) {
	url, _ := serveDemo(t)
	cfg := client.Config{Era: client.EraAuto}
	var out strings.Builder
	err := call(context.Background(), &out, cfg, url, "echo", `{"text":`)
	assert.EqualError(t, err, `arguments are not JSON: {"text":`)
	err = call(context.Background(), &out, cfg, url, "no_such_tool", `{}`)
	assert.EqualError(t, err, "mcp error -32602: Unknown tool: no_such_tool")
	assert.Empty(t, out.String())
	err = call(context.Background(), &out, cfg, url, "echo", `{"text":5}`)
	assert.EqualError(t, err, "tool echo failed")
	assert.Equal(t, "Invalid arguments: /text: expected string, got number\n", out.String())
}
