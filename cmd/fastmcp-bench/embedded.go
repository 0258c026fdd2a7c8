package main

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/internal/loadtest"
	"github.com/fastmcp-go/fastmcp/streamable"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// embedded is an in-process endpoint serving the demo fixtures on a free loopback port, for
// the default run and for scenarios run without --target. Like `serve`, it serves the demo's
// task tool with the Tasks extension on a SQLite store in a temporary file, removed at shutdown.
type embedded struct {
	core      *fastmcp.Server
	srv       *streamable.Server
	served    chan error
	stopTasks func()
	// admitted counts the echo calls that reached the core, when counting was asked for.
	admitted atomic.Int64
}

// countEcho is an authorization policy that allows everything and counts echo invocations:
// the drain scenario compares it with the replies its clients got.
type countEcho struct{ n *atomic.Int64 }

func (c countEcho) Authorize(_ context.Context, phase fastmcp.Phase, _ string, comp fastmcp.Component) error {
	if phase == fastmcp.PhaseInvocation && comp.Kind == "tool" && comp.Name == "echo" {
		c.n.Add(1)
	}
	return nil
}

// startEmbedded starts an endpoint with cfg (Addr is set to 127.0.0.1:0); count installs the
// echo counter.
func startEmbedded(cfg streamable.ListenerConfig, count bool) (*embedded, error) {
	e := &embedded{served: make(chan error, 1)}
	logger := slog.New(slog.DiscardHandler)
	fcfg := &fastmcp.Config{Logger: logger}
	if count {
		fcfg.Authorizer = countEcho{&e.admitted}
	}
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "fastmcp-bench", Version: version()}, fcfg)
	if err != nil {
		return nil, err
	}
	fixtures.Demo(core)
	stopTasks, err := startTasks(core, "demo", tasksOptions{store: "sqlite", lease: tasks.DefaultLeaseDuration}, logger, nil)
	if err != nil {
		return nil, err
	}
	cfg.Addr = "127.0.0.1:0"
	cfg.Logger = logger
	srv, err := streamable.New(core, cfg)
	if err != nil {
		stopTasks()
		return nil, err
	}
	if err := srv.Listen(); err != nil {
		stopTasks()
		return nil, err
	}
	e.core, e.srv, e.stopTasks = core, srv, sync.OnceFunc(stopTasks)
	go func() { e.served <- srv.Serve() }()
	return e, nil
}

func (e *embedded) target() loadtest.Target {
	return loadtest.Target{URL: e.srv.URL(), Name: "fastmcp"}
}

// shutdown drains the endpoint and waits for Serve to return.
func (e *embedded) shutdown(ctx context.Context) error {
	err := e.srv.Shutdown(ctx)
	<-e.served
	e.stopTasks()
	return err
}

// drainTarget adapts e to the drain scenario.
func (e *embedded) drainTarget() *loadtest.DrainTarget {
	return &loadtest.DrainTarget{Target: e.target(), Shutdown: e.shutdown, Admitted: e.admitted.Load}
}
