package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
)

// backend is one supervised backend: its connection while up, and what it registered.
type backend struct {
	g     *Gateway
	spec  Backend
	names namer
	log   *slog.Logger

	firstAttempt chan struct{} // closed when the first connection attempt has ended
	firstOnce    sync.Once
	kick         chan struct{} // a call saw the transport fail: check at once

	mu          sync.Mutex
	conn        *client.Client // nil while down
	err         error
	connections int

	reg registry // touched by the supervising goroutine and its re-reads, one at a time

	listChanged atomic.Int64 // list_changed notifications taken from the backend
	rereads     atomic.Int64 // catalog re-reads ended while connected

	inflight atomic.Int64 // calls to an initialize-era backend running (parked.go)

	limits *limits // the backend's call limits, breaker and counters (limits.go)

	authz client.Authorizer // its credentials' (credentials.go); nil: Config.Client's

	subscribable atomic.Pointer[[]string] // the own URIs its listen stream subscribes to (subscribe.go)

	tasks atomic.Bool // it declares the tasks extension: its tasks pass through (tasks.go)
}

func newBackend(g *Gateway, spec Backend, names namer) *backend {
	b := &backend{
		g: g, spec: spec, names: names,
		log:          g.cfg.Logger.With("backend", spec.Name),
		firstAttempt: make(chan struct{}),
		kick:         make(chan struct{}, 1),
		reg:          newRegistry(),
	}
	b.limits = newLimits(b)
	return b
}

// current returns the live connection, nil while the backend is down.
func (b *backend) current() *client.Client {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.conn
}

func (b *backend) setUp(c *client.Client) {
	b.mu.Lock()
	b.conn, b.err = c, nil
	b.connections++
	b.mu.Unlock()
	b.limits.breaker.reconnected()
	b.log.Info("gateway: backend up", "protocol", c.ProtocolVersion(), "entries", b.reg.size())
}

func (b *backend) setDown(err error) {
	b.mu.Lock()
	b.conn, b.err = nil, err
	b.mu.Unlock()
}

func (b *backend) status() Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := Status{Name: b.spec.Name, Up: b.conn != nil, Err: b.err, Entries: int(b.reg.entries.Load()), Connections: b.connections}
	b.limits.report(&st)
	return st
}

// failed tells the supervisor that a call saw the transport fail.
func (b *backend) failed() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// supervise keeps the backend connected until ctx ends: connect, load the catalog, watch,
// and after a failure wait (doubling from MinRestartDelay to MaxRestartDelay) and start
// over. A stdio backend is a new process each time.
func (b *backend) supervise(ctx context.Context) {
	cfg := &b.g.cfg
	delay := cfg.MinRestartDelay
	for {
		started := time.Now()
		err := b.session(ctx)
		b.firstOnce.Do(func() { close(b.firstAttempt) })
		if ctx.Err() != nil {
			return
		}
		if time.Since(started) >= cfg.MaxRestartDelay {
			delay = cfg.MinRestartDelay
		}
		b.log.Warn("gateway: backend down", "err", err, "retry_in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, cfg.MaxRestartDelay)
	}
}

// session runs one connection: it returns why the connection ended.
func (b *backend) session(ctx context.Context) error {
	cfg := &b.g.cfg
	cctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	c, err := client.Connect(cctx, b.spec.URL, b.clientConfig())
	if err != nil {
		b.setDown(err)
		return err
	}
	defer c.Close()
	caps, _, err := b.refresh(cctx, c)
	if err != nil {
		b.setDown(err)
		return err
	}
	// The catalog is read again once the listen stream is acknowledged: a change made
	// between the first read and the backend's registering the stream is on neither
	// otherwise. The backend is up only then, with nothing of ours in flight.
	sub, noStream := b.listen(ctx, c, caps)
	if sub != nil {
		defer sub.Close()
		if _, _, err := b.refresh(cctx, c); err != nil {
			b.setDown(err)
			return err
		}
	}
	cancel()
	b.setUp(c)
	b.firstOnce.Do(func() { close(b.firstAttempt) })
	err = b.watch(ctx, c, caps, sub, noStream)
	b.setDown(err)
	return err
}

// listen opens the backend's listen stream for caps' list_changed kinds: nil when it has
// none (noStream: do not ask again) or refused it for now (logged).
func (b *backend) listen(ctx context.Context, c *client.Client, caps capabilities) (sub *client.Subscription, noStream bool) {
	s, err := c.Listen(ctx, b.subscriptions(caps.filter(), caps)) // subscribe.go
	switch {
	case err == nil:
		return s, false
	case errors.Is(err, client.ErrNoEventStream):
		b.log.Info("gateway: backend offers no event stream; its catalog is re-read every HealthInterval")
		return nil, true
	default:
		b.log.Warn("gateway: cannot listen to the backend; its catalog is re-read every HealthInterval until it can", "err", err)
		return nil, false
	}
}

// clientConfig is the template of Config.Client with this backend's target.
func (b *backend) clientConfig() client.Config {
	cc := b.g.cfg.Client
	if cc.ClientName == "" {
		cc.ClientName, cc.ClientVersion = "fastmcp-gateway", "0"
	}
	if cc.Logger == nil {
		cc.Logger = b.log
	}
	cc.Command, cc.Args, cc.Env = b.spec.Command, b.spec.Args, b.spec.Env
	setDefault(&cc.PoolSize, DefaultBackendPoolSize)
	cc.RequestTimeout = b.limits.requestTimeout(cc.RequestTimeout)
	if b.authz != nil {
		cc.Authorizer = b.authz
	}
	// An initialize-era backend's requests for input are relayed to the caller (parked.go);
	// a 2026-07-28 one's input_required results are relayed without them (input.go).
	cc.Elicitation, cc.Sampling, cc.Roots = b.inputHandler("elicitation/create"), b.inputHandler("sampling/createMessage"), b.inputHandler("roots/list")
	cc.Stderr = nil
	if b.spec.Command != "" {
		cc.Stderr = &stderrLog{log: b.log}
	}
	return cc
}

// watch follows the backend's list_changed notifications (re-reading its catalog, the
// re-reads coalesced: reread.go) and checks it every HealthInterval, or at once when a call
// saw the transport fail. It returns when the connection is lost or ctx ends.
func (b *backend) watch(ctx context.Context, c *client.Client, caps capabilities, sub *client.Subscription, noStream bool) error {
	var notes <-chan client.Notification
	if sub != nil {
		notes = sub.C
	}
	rr := newRereads(ctx, b, b.g.cfg.ConnectTimeout, func(ctx context.Context) (changes, error) {
		_, ch, err := b.refresh(ctx, c)
		return ch, err
	})
	defer rr.stop()
	tick := time.NewTicker(b.g.cfg.HealthInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case n, ok := <-notes:
			if !ok {
				end, err := sub.End()
				if err == nil {
					return fmt.Errorf("gateway: the backend's listen stream ended (%v)", end)
				}
				return fmt.Errorf("gateway: the backend's listen stream ended (%v): %w", end, err)
			}
			if strings.HasSuffix(n.Method, "/list_changed") {
				b.listChanged.Add(1)
				rr.ask(n.Method)
			} else {
				b.resourceUpdated(n)
			}
		case d := <-rr.done:
			if err := rr.finished(d); err != nil {
				return err
			}
			// The resources changed: listen again, subscribed to the new list.
			if d.ch.resources && sub != nil && caps.Resources != nil && caps.Resources.Subscribe {
				sub.Close()
				sub, notes = nil, nil
				if sub, noStream = b.listen(ctx, c, caps); sub != nil {
					defer sub.Close()
					notes = sub.C
				}
				rr.ask("") // what changed while no stream was open
			}
		case <-b.kick:
			if err := b.probe(ctx, c); err != nil {
				return err
			}
		case <-tick.C:
			if err := b.probe(ctx, c); err != nil {
				return err
			}
			// Not listening: the stream is asked for again (it may have been refused for a
			// moment), then what the backend changed since is read.
			if sub == nil {
				if !noStream {
					if sub, noStream = b.listen(ctx, c, caps); sub != nil {
						defer sub.Close()
						notes = sub.C
					}
				}
				rr.ask("")
			}
		}
	}
}

// probe pings the backend: any answer, even an error (a 2026-07-28 server has no ping),
// shows it alive; a failed transport or a 5xx without a JSON-RPC error does not.
func (b *backend) probe(ctx context.Context, c *client.Client) error {
	pctx, cancel := context.WithTimeout(ctx, b.g.cfg.ConnectTimeout)
	defer cancel()
	err := c.Ping(pctx)
	if err == nil || !transportFailure(err) {
		return nil
	}
	return fmt.Errorf("gateway: health check: %w", err)
}

// transportFailure reports whether err says nothing came back from the backend: not a
// JSON-RPC error, not an HTTP answer below 500.
func transportFailure(err error) bool {
	var rpc *client.Error
	if errors.As(err, &rpc) {
		return false
	}
	var he *client.HTTPError
	return !errors.As(err, &he) || he.Status >= 500
}
