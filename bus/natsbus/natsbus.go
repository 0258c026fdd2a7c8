package natsbus

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/fastmcp-go/fastmcp/bus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Defaults of Config.
const (
	DefaultSubject          = "fastmcp.events"
	DefaultReconnectWait    = 100 * time.Millisecond
	DefaultMaxReconnectWait = 5 * time.Second
	DefaultConnectTimeout   = 5 * time.Second
)

// Config configures a Bus. Zero values mean the defaults.
type Config struct {
	// URL of the NATS server (or a comma-separated list of a cluster's), as nats.Connect
	// takes it: nats://HOST:PORT. Required.
	URL string
	// Subject all the replicas publish to and subscribe on: DefaultSubject
	// ("fastmcp.events"). Deployments sharing a NATS server keep apart by their subjects.
	Subject string
	// Buffer bounds the outbound buffer, in events: bus.DefaultBuffer (4,096).
	Buffer int
	// ReconnectWait is the first wait before reconnecting after the connection breaks
	// (DefaultReconnectWait, 100 ms); each failed attempt doubles it, up to
	// MaxReconnectWait (DefaultMaxReconnectWait, 5 s). Attempts never stop.
	ReconnectWait, MaxReconnectWait time.Duration
	// ConnectTimeout bounds the first connection, in Open: DefaultConnectTimeout (5 s).
	ConnectTimeout time.Duration
	// Name is the connection's name as the NATS server shows it.
	Name string
}

// ErrConfig is the error of Open for an invalid Config.
var ErrConfig = errors.New("natsbus: invalid config")

// Bus is a fastmcp.EventBus over one NATS subject. Safe for concurrent use.
type Bus struct {
	*bus.Relay
	nc     *nats.Conn
	sub    *nats.Subscription
	cancel context.CancelFunc
}

var _ fastmcp.EventBus = (*Bus)(nil)

// Open connects to the NATS server and subscribes to the subject; events flow once it
// returns. It fails when the first connection cannot be made within ConnectTimeout; after
// that, the connection is remade for as long as the Bus is open. Close it when done.
func Open(ctx context.Context, cfg Config) (*Bus, error) {
	if cfg.URL == "" {
		return nil, fmt.Errorf("%w: URL is required", ErrConfig)
	}
	if cfg.Buffer < 0 || cfg.ReconnectWait < 0 || cfg.MaxReconnectWait < 0 || cfg.ConnectTimeout < 0 {
		return nil, fmt.Errorf("%w: negative Buffer or wait", ErrConfig)
	}
	cfg.Subject = cmp.Or(cfg.Subject, DefaultSubject)
	cfg.ReconnectWait = cmp.Or(cfg.ReconnectWait, DefaultReconnectWait)
	cfg.MaxReconnectWait = cmp.Or(cfg.MaxReconnectWait, DefaultMaxReconnectWait)
	cfg.ConnectTimeout = cmp.Or(cfg.ConnectTimeout, DefaultConnectTimeout)
	if d, ok := ctx.Deadline(); ok && time.Until(d) < cfg.ConnectTimeout {
		cfg.ConnectTimeout = max(time.Until(d), time.Millisecond)
	}

	b := &Bus{Relay: bus.NewRelay(cfg.Buffer)}
	nc, err := nats.Connect(cfg.URL,
		nats.Name(cfg.Name),
		nats.Timeout(cfg.ConnectTimeout),
		nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(backoff(cfg.ReconnectWait, cfg.MaxReconnectWait)),
		// No buffering while reconnecting: what is published then is dropped and counted
		// by the Relay (the buffer in front of it is bounded already).
		nats.ReconnectBufSize(-1),
		nats.DisconnectErrHandler(func(*nats.Conn, error) { b.Disconnected() }),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			// The subscription was re-sent on reconnecting; a round trip makes sure the
			// server has it before the subscribers are told events flow again.
			if nc.Flush() == nil {
				b.Reconnected()
			}
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrSlowConsumer) {
				b.ReceiveLost() // the client library dropped messages for us
			}
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("natsbus: connect %s: %w", cfg.URL, err)
	}
	b.nc = nc
	// One subscription, whose callback runs on one goroutine: events arrive in the order the
	// server relays them.
	b.sub, err = nc.Subscribe(cfg.Subject, func(m *nats.Msg) { b.Receive(m.Data) })
	if err == nil {
		err = nc.FlushTimeout(cfg.ConnectTimeout)
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("natsbus: subscribe %s: %w", cfg.Subject, err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	subject := cfg.Subject
	go b.Run(runCtx, func(_ context.Context, payload []byte) error { return nc.Publish(subject, payload) })
	return b, nil
}

// Close stops the sender (what is still queued is dropped), flushes what was handed to the
// connection, and closes it.
func (b *Bus) Close() error {
	b.cancel()
	b.Wait()
	_ = b.nc.FlushTimeout(time.Second)
	b.nc.Close()
	return nil
}

// backoff doubles the wait from first on each attempt, up to limit.
func backoff(first, limit time.Duration) nats.ReconnectDelayHandler {
	return func(attempts int) time.Duration {
		d := first
		for i := 1; i < attempts && d < limit; i++ {
			d *= 2
		}
		return min(d, limit)
	}
}
