package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// callError calls tool through the gateway and returns the JSON-RPC error the caller got.
func callError(t *testing.T, ctx context.Context, c *client.Client, tool string) client.Error {
	t.Helper()
	_, err := c.CallTool(ctx, tool, nil)
	var rpc *client.Error
	require.ErrorAs(t, err, &rpc, "%s", tool)
	return *rpc
}

// echoes checks that tool (an echo) answers through the gateway.
func echoes(t *testing.T, ctx context.Context, c *client.Client, tool, want string) {
	t.Helper()
	res, err := c.CallTool(ctx, tool, map[string]string{"text": "still"})
	require.NoError(t, err, tool)
	assert.Contains(t, string(res.Content), want, tool)
}

// TestBadBackendMalformedHTTP: an HTTP backend that answers a call with a body that is not
// JSON, a JSON object that is not a JSON-RPC response, or a response whose content is not
// a list gives its caller the malformed-answer error; the backend stays up (one
// connection), its other tools and the other backend keep answering.
func TestBadBackendMalformedHTTP(t *testing.T) {
	_, urlBad, _ := newBadBackend(t, "bad")
	urlGood, _ := serveHTTP(t, newBackendServer("good", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "bad", URL: urlBad}, {Name: "good", URL: urlGood}}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	want := client.Error{Code: -32603, Message: `Backend "bad" sent a malformed answer`, Data: []byte(`{"backend":"bad"}`)}
	for _, tool := range []string{badMalformed, badNotRPC, badWrongShape} {
		assert.Equal(t, want, callError(t, ctx, c, "bad__"+tool), tool)
		echoes(t, ctx, c, "good__echo", "good: still")
		echoes(t, ctx, c, "bad__echo", "bad: still")
	}
	st := g.Status()[0]
	assert.True(t, st.Up)
	assert.Equal(t, 1, st.Connections, "a malformed answer does not cost the connection")
}

// TestBadBackendMalformedStdio: a stdio backend whose answer line is cut short after its id
// gives its caller the malformed-answer error at once (not at RequestTimeout), and keeps
// serving on the same process.
func TestBadBackendMalformedStdio(t *testing.T) {
	bad := stdioBackend("bad")
	bad.Env = append(bad.Env, stdioBadBackendEnv+"=1")
	urlGood, _ := serveHTTP(t, newBackendServer("good", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{bad, {Name: "good", URL: urlGood}},
		Client: client.Config{RequestTimeout: time.Minute}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	assert.Equal(t, client.Error{Code: -32603, Message: `Backend "bad" sent a malformed answer`, Data: []byte(`{"backend":"bad"}`)},
		callError(t, ctx, c, "bad__"+badMalformed))
	echoes(t, ctx, c, "good__echo", "good: still")
	echoes(t, ctx, c, "bad__echo", "bad: still")
	st := g.Status()[0]
	assert.True(t, st.Up)
	assert.Equal(t, 1, st.Connections, "the same process serves")
}
