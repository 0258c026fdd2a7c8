package streamable

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/pool"
)

// Defaults of [Config]. Each limit's client-visible error is in the package doc.
const (
	DefaultAddr               = "127.0.0.1:8080"
	DefaultPath               = "/mcp"
	DefaultMaxConnections     = 1024
	DefaultHeadTimeout        = 10 * time.Second
	DefaultReadTimeout        = 5 * time.Second
	DefaultBodyTimeout        = 10 * time.Second
	DefaultMaxHeaderBytes     = 32 << 10
	DefaultMaxBodyBytes       = 2_000_000
	DefaultRequestTimeout     = 30 * time.Second
	DefaultRequestGateTimeout = 10 * time.Second
	DefaultDrainTimeout       = 5 * time.Second
	DefaultMaxSubscriptions   = 256
	DefaultKeepAliveInterval  = 15 * time.Second
	DefaultIdleTimeout        = 60 * time.Second
	DefaultWriteTimeout       = 5 * time.Second
)

// NoTimeout, as RequestTimeout, lets requests run without a deadline. Do not use it on
// servers exposed to untrusted clients.
const NoTimeout time.Duration = -1

// ErrInvalidConfig is wrapped by the errors New and Handler return for an invalid Config.
var ErrInvalidConfig = errors.New("streamable: invalid config")

// Config configures the native listener ([New]) and the net/http adapter ([NewHandler]).
// Zero fields mean the defaults; negative values are invalid unless a field says otherwise.
type Config struct {
	// Addr is the TCP address to listen on; port 0 picks a free port ([Server.URL] tells
	// which). Binding outside loopback logs a warning: this is plaintext HTTP.
	Addr string
	// Path is the endpoint path; other paths get 404.
	Path string

	// MaxConnections caps open connections; a connection accepted at the cap is closed
	// without being read.
	MaxConnections int
	// HeadTimeout bounds the arrival of a request head, from the connection's start or, on a
	// keep-alive connection, from the request's first byte (400, connection closed).
	HeadTimeout time.Duration
	// ReadTimeout bounds each read of a request, from its first byte to its body's end (400,
	// connection closed); IdleTimeout, not it, bounds the wait between requests.
	ReadTimeout time.Duration
	// BodyTimeout bounds the arrival of the body, from the end of the head or from gate
	// admission (400, connection closed).
	BodyTimeout time.Duration
	// MaxHeaderBytes bounds the request head including its final CRLF CRLF (431).
	MaxHeaderBytes int
	// MaxBodyBytes bounds the body; a larger Content-Length is refused before reading (413).
	MaxBodyBytes int
	// IdleTimeout bounds the wait for the next request on a keep-alive connection.
	IdleTimeout time.Duration
	// WriteTimeout bounds writing one response, or one event of a stream.
	WriteTimeout time.Duration
	// MaxRequestsPerConn closes a connection after this many requests; 1 serves one request
	// per connection. Zero means no limit.
	MaxRequestsPerConn int

	// RequestTimeout bounds queueing plus execution of one request (504 "Request execution
	// timed out"); [NoTimeout] disables it.
	RequestTimeout time.Duration
	// RequestGate, if set, sees each request's method, path and headers before the body is
	// read: it may serve its own response, refuse, or attach a verified identity.
	RequestGate RequestGate
	// RequestGateTimeout bounds the gate (504).
	RequestGateTimeout time.Duration

	// AllowedOriginHosts lists the hosts an Origin header may name, when present (403
	// otherwise). An entry with a port pins the port. Default: the loopback names.
	AllowedOriginHosts []string
	// AllowedHosts, when set, lists the hosts the Host header may name (403 otherwise); the
	// port is ignored. When empty: on a loopback address the Host must be a loopback name
	// (DNS-rebinding protection), elsewhere Host is not checked.
	AllowedHosts []string
	// DisableHostCheck turns the loopback Host check off, for a local reverse proxy that
	// forwards the public name. AllowedHosts still applies when set.
	DisableHostCheck bool

	// MaxSubscriptions caps open subscriptions/listen streams (503 "Server subscription
	// capacity exhausted"); a slot returns when its stream ends.
	MaxSubscriptions int
	// KeepAliveInterval is the period of the `: keepalive` comments on streams.
	KeepAliveInterval time.Duration
	// DrainTimeout bounds Shutdown's graceful phase; after it remaining connections are
	// closed and their work cancelled.
	DrainTimeout time.Duration

	// Executor runs requests. If nil, the server owns one with MaxConcurrency and MaxQueue
	// (pool defaults when zero; MaxQueue [pool.NoQueue] means no queue) and closes it on
	// Shutdown; an injected executor keeps running.
	Executor       *pool.Executor
	MaxConcurrency int
	MaxQueue       int

	// DisableInline hands every request to an executor worker. By default (native listener
	// only) a request that cannot stream (no progressToken, no logLevel) and finds a worker
	// free runs on its connection's goroutine instead, still counted by the executor: it saves
	// the hand-off, and its deadline and a disconnect cancel its context as usual, but a
	// handler that ignores its context delays the 504 until it returns.
	DisableInline bool

	// Logger receives the listener's structured logs. If nil, slog.Default() is used.
	Logger *slog.Logger
}

func (c Config) resolve() (Config, error) {
	def := func(v *time.Duration, d time.Duration, name string) error {
		switch {
		case *v < 0:
			return fmt.Errorf("%w: %s %v is negative", ErrInvalidConfig, name, *v)
		case *v == 0:
			*v = d
		}
		return nil
	}
	defInt := func(v *int, d int, name string) error {
		switch {
		case *v < 0:
			return fmt.Errorf("%w: %s %d is negative", ErrInvalidConfig, name, *v)
		case *v == 0:
			*v = d
		}
		return nil
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if !strings.HasPrefix(c.Path, "/") {
		return c, fmt.Errorf("%w: Path %q must start with /", ErrInvalidConfig, c.Path)
	}
	if c.RequestTimeout != NoTimeout {
		if err := def(&c.RequestTimeout, DefaultRequestTimeout, "RequestTimeout"); err != nil {
			return c, err
		}
	}
	for _, e := range []error{
		def(&c.HeadTimeout, DefaultHeadTimeout, "HeadTimeout"),
		def(&c.ReadTimeout, DefaultReadTimeout, "ReadTimeout"),
		def(&c.BodyTimeout, DefaultBodyTimeout, "BodyTimeout"),
		def(&c.IdleTimeout, DefaultIdleTimeout, "IdleTimeout"),
		def(&c.WriteTimeout, DefaultWriteTimeout, "WriteTimeout"),
		def(&c.RequestGateTimeout, DefaultRequestGateTimeout, "RequestGateTimeout"),
		def(&c.DrainTimeout, DefaultDrainTimeout, "DrainTimeout"),
		def(&c.KeepAliveInterval, DefaultKeepAliveInterval, "KeepAliveInterval"),
		defInt(&c.MaxConnections, DefaultMaxConnections, "MaxConnections"),
		defInt(&c.MaxHeaderBytes, DefaultMaxHeaderBytes, "MaxHeaderBytes"),
		defInt(&c.MaxBodyBytes, DefaultMaxBodyBytes, "MaxBodyBytes"),
		defInt(&c.MaxSubscriptions, DefaultMaxSubscriptions, "MaxSubscriptions"),
		defInt(&c.MaxRequestsPerConn, 0, "MaxRequestsPerConn"),
	} {
		if e != nil {
			return c, e
		}
	}
	if c.AllowedOriginHosts == nil {
		c.AllowedOriginHosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// isLoopbackAddr reports whether a listen address binds only loopback.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
