package loadtest

import (
	"context"
	"crypto/tls"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

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

// testEndpoint is an in-process endpoint serving the demo fixtures.
type testEndpoint struct {
	core     *fastmcp.Server
	srv      *streamable.Server
	served   chan error
	admitted atomic.Int64 // echo calls the core received
	stopped  bool
	trust    *tls.Config // the client side when the endpoint serves TLS
}

// countEcho counts the echo calls that reach the core.
type countEcho struct{ n *atomic.Int64 }

func (c countEcho) Authorize(_ context.Context, phase fastmcp.Phase, _ string, comp fastmcp.Component) error {
	if phase == fastmcp.PhaseInvocation && comp.Kind == "tool" && comp.Name == "echo" {
		c.n.Add(1)
	}
	return nil
}

// startEndpoint starts an endpoint on a free loopback port; it is shut down at the end of
// the test unless the test does it.
func startEndpoint(t testing.TB, cfg streamable.ListenerConfig) *testEndpoint {
	t.Helper()
	e := &testEndpoint{served: make(chan error, 1), trust: trustOf(cfg.TLS)}
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "loadtest", Version: "1.0.0"}, &fastmcp.Config{Authorizer: countEcho{&e.admitted}})
	require.NoError(t, err)
	fixtures.Demo(core)
	cfg.Addr = "127.0.0.1:0"
	srv, err := streamable.New(core, cfg)
	require.NoError(t, err)
	require.NoError(t, srv.Listen())
	e.core, e.srv = core, srv
	go func() { e.served <- srv.Serve() }()
	t.Cleanup(func() { e.shutdown(t) })
	// One answered call proves Serve runs (a Shutdown racing ahead of Serve would leave
	// Serve's ticker behind).
	ep, err := e.target().parse()
	require.NoError(t, err)
	require.NoError(t, callOnce(context.Background(), ep, "echo", `{"text":"ready"}`, 5*time.Second))
	e.admitted.Store(0)
	return e
}

func (e *testEndpoint) shutdown(t testing.TB) {
	if e.stopped {
		return
	}
	e.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = e.srv.Shutdown(ctx)
	require.ErrorIs(t, <-e.served, streamable.ErrServerClosed)
}

func (e *testEndpoint) target() Target {
	return Target{URL: e.srv.URL(), Name: "fastmcp", TLS: e.trust}
}
