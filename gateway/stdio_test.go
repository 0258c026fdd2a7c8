package gateway

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// TestStdioKilledMidCall: a stdio backend (a real process) killed during a call fails that
// call with the unavailable error, the HTTP backend beside it keeps serving, and the gateway
// restarts the process, whose tools then answer again.
func TestStdioKilledMidCall(t *testing.T) {
	urlH, _ := serveHTTP(t, newBackendServer("h", nil), "", nil)
	g, gw := startGateway(t, Config{Backends: []Backend{stdioBackend("s"), {Name: "h", URL: urlH}}})
	require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pid := func() int {
		res, err := client.Call[struct{}, string](ctx, c, "s__pid", struct{}{})
		require.NoError(t, err)
		n, err := strconv.Atoi(res)
		require.NoError(t, err)
		return n
	}
	first := pid()

	started := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "s__slow", nil, client.WithProgress(func(client.Progress) {
			select {
			case started <- struct{}{}:
			default:
			}
		}))
		done <- err
	}()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the stdio backend's call did not start")
	}
	require.NoError(t, syscall.Kill(first, syscall.SIGKILL))
	var rpc *client.Error
	require.ErrorAs(t, <-done, &rpc)
	assert.Equal(t, client.Error{Code: -32603, Message: `Backend "s" is unavailable`, Data: []byte(`{"backend":"s"}`)}, *rpc)

	res, err := c.CallTool(ctx, "h__echo", map[string]string{"text": "still"})
	require.NoError(t, err)
	assert.Contains(t, string(res.Content), "h: still")

	waitFor(t, "the stdio backend to be restarted", func() bool { st := g.Status()[0]; return st.Up && st.Connections >= 2 })
	assert.NotEqual(t, first, pid(), "a new process serves")
}
