package gateway

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/pool"
)

// TestBackendPoolServesConcurrentCallers: as many callers at once as the servers' executors
// run (32), twice the client's own default pool of 16 connections, all reach an HTTP backend
// at once (DefaultBackendPoolSize).
// The backend's tool answers only once every call is in flight, so a smaller pool leaves
// the calls past it waiting for a connection that never frees.
func TestBackendPoolServesConcurrentCallers(t *testing.T) {
	const callers = pool.DefaultMaxConcurrency
	require.Greater(t, callers, client.DefaultPoolSize)
	var inFlight atomic.Int32
	all := make(chan struct{})
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "backend-wide", Version: "1"}, nil)
	require.NoError(t, err)
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "gather", Description: "answers once every caller is in"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			if inFlight.Add(1) == callers {
				close(all)
			}
			select {
			case <-all:
				return fastmcp.ToolResult{Text: "all in"}, nil
			case <-ctx.Done():
				return fastmcp.ToolResult{}, ctx.Err()
			}
		})
	url, _ := serveHTTP(t, srv, "", nil)
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "wide", URL: url}}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, gw, client.Config{Era: client.EraModern, PoolSize: callers})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	callCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() {
			res, err := c.CallTool(callCtx, "gather", nil)
			if err == nil && !strings.Contains(string(res.Content), `"all in"`) {
				err = errors.New("unexpected result " + string(res.Content))
			}
			errs[i] = err
		})
	}
	wg.Wait()
	assert.NoError(t, errors.Join(errs...))
	assert.EqualValues(t, callers, inFlight.Load())
}
