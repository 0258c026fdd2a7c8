package observe

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
	"github.com/fastmcp-go/fastmcp/internal/loopback"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// Defaults of [ListenerConfig].
const (
	DefaultMetricsAddr = "127.0.0.1:9090"
	// DefaultReadHeaderTimeout bounds the arrival of a scrape's request head.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultMaxHeaderBytes bounds a scrape's request head.
	DefaultMaxHeaderBytes = 16 << 10
)

// MetricsPath is where the listener serves the Prometheus exposition.
const MetricsPath = "/metrics"

// ListenerConfig configures [Listen].
type ListenerConfig struct {
	// Addr is the TCP address to listen on. If empty, [DefaultMetricsAddr]; port 0 picks a
	// free port ([Listener.URL] tells which). Binding outside loopback logs a warning: the
	// metrics name the server's tools.
	Addr string
	// Gatherer is what /metrics exposes; required (a *prometheus.Registry).
	Gatherer prometheus.Gatherer
	// Ready reports readiness for /readyz: pass the native listener's
	// [streamable.Server.Ready], false from the first moment of its drain. If nil, the
	// listener is ready for as long as it is open. /healthz and /readyz are answered by
	// [streamable.HealthHandler], the same answers as the main listener's.
	Ready func() bool
	// Readyz, if set, answers /readyz in place of [streamable.HealthHandler] over Ready: for
	// a readiness with more to say (a gateway's backends, one a line).
	Readyz http.Handler
	// ReadHeaderTimeout bounds the arrival of a request head: past it the connection is
	// closed unanswered. If zero, [DefaultReadHeaderTimeout]. Negative values are invalid.
	ReadHeaderTimeout time.Duration
	// MaxHeaderBytes bounds a request head: a larger one is answered 431 Request Header
	// Fields Too Large. If zero, [DefaultMaxHeaderBytes]. Negative values are invalid.
	MaxHeaderBytes int
	// Logger receives the listener's errors and the beyond-loopback warning. If nil,
	// slog.Default().
	Logger *slog.Logger
}

func (c ListenerConfig) resolve() (ListenerConfig, error) {
	if c.Gatherer == nil {
		return c, fmt.Errorf("%w: ListenerConfig.Gatherer is nil", ErrInvalidConfig)
	}
	if err := cmp.Or(
		defaults.Resolve(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout, "ReadHeaderTimeout", ErrInvalidConfig),
		defaults.Resolve(&c.MaxHeaderBytes, DefaultMaxHeaderBytes, "MaxHeaderBytes", ErrInvalidConfig),
	); err != nil {
		return c, err
	}
	if c.Addr == "" {
		c.Addr = DefaultMetricsAddr
	}
	if c.Ready == nil {
		c.Ready = func() bool { return true }
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// Listener is the metrics listener: /metrics, /healthz and /readyz on an address of its own,
// apart from the MCP endpoint, so that scrapes never queue behind MCP traffic nor pass its
// request gate.
type Listener struct {
	ln   net.Listener
	hs   *http.Server
	done chan struct{}
}

// Listen binds cfg.Addr and serves on it until Close.
func Listen(cfg ListenerConfig) (*Listener, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("observe: metrics listener: %w", err)
	}
	if host, _, _ := net.SplitHostPort(cfg.Addr); !loopback.Host(host) {
		cfg.Logger.Warn("observe: the metrics listener binds beyond loopback; its metrics name the server's tools", "addr", ln.Addr().String())
	}
	mux := http.NewServeMux()
	mux.Handle(MetricsPath, promhttp.HandlerFor(cfg.Gatherer, promhttp.HandlerOpts{ErrorLog: slogPrinter{cfg.Logger}}))
	health := streamable.HealthHandler(cfg.Ready)
	mux.Handle(streamable.HealthzPath, health)
	if cfg.Readyz != nil {
		mux.Handle(streamable.ReadyzPath, cfg.Readyz)
	} else {
		mux.Handle(streamable.ReadyzPath, health)
	}
	l := &Listener{ln: ln, done: make(chan struct{}), hs: &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
	}}
	go func() {
		defer close(l.done)
		if err := l.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Logger.Error("observe: the metrics listener stopped", "err", err)
		}
	}()
	return l, nil
}

// URL returns the listener's base URL, such as http://127.0.0.1:9090.
func (l *Listener) URL() string { return "http://" + l.ln.Addr().String() }

// Close closes the listener and its connections and returns once it stopped serving.
func (l *Listener) Close() error {
	err := l.hs.Close()
	<-l.done
	return err
}

// slogPrinter is promhttp's error log on slog.
type slogPrinter struct{ l *slog.Logger }

func (p slogPrinter) Println(v ...any) {
	p.l.Error("observe: metrics exposition", "err", fmt.Sprint(v...))
}
