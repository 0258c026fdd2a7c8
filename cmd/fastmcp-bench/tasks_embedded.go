package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/streamable"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// Options of the tasks scenario's embedded endpoint. Its tasks all belong to one principal
// and are created faster than they finish, so the per-principal and store limits are raised
// out of the way (the run measures creation, not refusals); they expire after benchTaskTTL.
const (
	benchMaxTasks = 1 << 30
	benchTaskTTL  = 10 * time.Minute
)

// floorFunc is the physical floor of a store's Create (see sqlitestore.Store.Floor).
type floorFunc = func(ctx context.Context, id string, body []byte) error

// floorer is a store with a physical floor: sqlitestore and pgstore.
type floorer interface {
	Floor(ctx context.Context) (insert floorFunc, drop func(ctx context.Context) error, err error)
}

// tasksEndpoint is an in-process endpoint serving the demo fixtures with the Tasks extension
// over the store a --tasks-store value names, and that store's floor.
type tasksEndpoint struct {
	kind   string // sqlite, postgres, memory
	url    string
	floor  floorFunc // nil for a store without one (memory)
	stop   func()
	served chan error
}

// startTasksEndpoint starts it; stop shuts everything down and removes what it made.
func startTasksEndpoint(ctx context.Context, spec string, migrate bool) (*tasksEndpoint, error) {
	store, cleanup, err := openTaskStore(spec, migrate)
	if err != nil {
		return nil, err
	}
	kind, _, _ := strings.Cut(spec, ":")
	ep := &tasksEndpoint{kind: kind, served: make(chan error, 1)}
	var undo []func()
	ep.stop = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	undo = append(undo, func() { _ = store.Close(); cleanup() })
	if f, ok := store.(floorer); ok {
		insert, drop, err := f.Floor(ctx)
		if err != nil {
			ep.stop()
			return nil, fmt.Errorf("the floor's table: %w", err)
		}
		ep.floor = insert
		undo = append(undo, func() {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = drop(dctx)
			cancel()
		})
	}
	logger := slog.New(slog.DiscardHandler)
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "fastmcp-bench", Version: version()}, &fastmcp.Config{Logger: logger})
	if err != nil {
		ep.stop()
		return nil, err
	}
	fixtures.Demo(core)
	x, err := tasks.New(store, tasks.Options{Tools: fixtures.DemoTaskPolicies(), TTL: benchTaskTTL,
		MaxTasks: benchMaxTasks, MaxActivePerScope: benchMaxTasks, Logger: logger})
	if err != nil {
		ep.stop()
		return nil, err
	}
	x.Register(core)
	undo = append(undo, func() { _ = x.Close() })
	srv, err := streamable.New(core, streamable.ListenerConfig{Addr: "127.0.0.1:0", Config: streamable.Config{Logger: logger}})
	if err == nil {
		err = srv.Listen()
	}
	if err != nil {
		ep.stop()
		return nil, err
	}
	go func() { ep.served <- srv.Serve() }()
	undo = append(undo, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = srv.Shutdown(sctx)
		cancel()
		<-ep.served
	})
	ep.url = srv.URL()
	return ep, nil
}
