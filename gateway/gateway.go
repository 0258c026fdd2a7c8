package gateway

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Gateway serves the catalogs of its backends from one fastmcp.Server. It is safe for
// concurrent use.
type Gateway struct {
	srv      *fastmcp.Server
	cfg      Config
	backends []*backend
	parking  *parking
	now      func() time.Time // the limits' clock; tests set their own before Start
	replicas *replicaBus      // nil unless the Server shares its bus (parked_bus.go)
	taskIDs  taskIDs          // tasks.go
	tasksOn  sync.Once        // the tasks extension is registered once (tasks.go)

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// New returns a Gateway that will register its backends' catalogs into srv. It connects to
// nothing until Start. An invalid cfg is an error wrapping ErrInvalidConfig.
func New(srv *fastmcp.Server, cfg Config) (*Gateway, error) {
	if srv == nil {
		return nil, fmt.Errorf("%w: nil server", ErrInvalidConfig)
	}
	cfg.Backends = append([]Backend(nil), cfg.Backends...)
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	g := &Gateway{srv: srv, cfg: cfg, parking: newParking(cfg.MaxParkedCalls, cfg.InputTimeout), now: time.Now}
	if err := g.SetTaskIDKeys(cfg.TaskIDKeys); err != nil { // tasks.go
		return nil, err
	}
	if srv.SharedBus() {
		g.replicas = newReplicaBus(g)
	}
	transparent := len(cfg.Backends) == 1
	for _, b := range cfg.Backends {
		nb := newBackend(g, b, newNamer(b.Name, transparent))
		if err := nb.useCredentials(); err != nil { // credentials.go
			return nil, err
		}
		g.backends = append(g.backends, nb)
	}
	return g, nil
}

// Start connects to every backend and supervises them until Close. It returns once each
// backend's first connection attempt has ended, in success or failure (each bounded by
// Config.ConnectTimeout), or when ctx ends; a backend that failed keeps being retried.
func (g *Gateway) Start(ctx context.Context) {
	run, cancel := context.WithCancel(context.Background())
	g.cancel = cancel
	if g.replicas != nil {
		g.replicas.start()
	}
	for _, b := range g.backends {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			b.supervise(run)
		}()
	}
	for _, b := range g.backends {
		select {
		case <-b.firstAttempt:
		case <-ctx.Done():
			return
		}
	}
}

// Close stops supervising, closes every backend connection (a stdio backend's process is
// stopped) and waits for it. Entries already registered stay in the Server. Close is
// idempotent.
func (g *Gateway) Close() error {
	g.once.Do(func() {
		if g.cancel != nil {
			g.cancel()
		}
		if g.replicas != nil {
			g.replicas.stop()
		}
		g.parking.cancelAll()
		g.wg.Wait()
	})
	return nil
}

// Status is a backend's state as Gateway.Status reports it.
type Status struct {
	Name string
	// Up reports whether the backend is connected and its catalog loaded.
	Up bool
	// Err is why it is down (nil while up or before the first attempt).
	Err error
	// Entries counts its registered catalog entries.
	Entries int
	// Connections counts the connections made to it (a stdio backend: the processes
	// started and serving); more than one means it was reconnected or restarted.
	Connections int
	// Breaker is its circuit breaker's state; BreakerOpened counts the times it opened.
	Breaker       BreakerState
	BreakerOpened int64
	// InFlight counts the calls to it in flight (limits.go); Calls counts its calls.
	InFlight int
	Calls    CallStats
}

// Status reports every backend's state, in the order of Config.Backends.
func (g *Gateway) Status() []Status {
	out := make([]Status, len(g.backends))
	for i, b := range g.backends {
		out[i] = b.status()
	}
	return out
}
