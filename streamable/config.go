package streamable

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/defaults"
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
	DefaultMaxRequestsPerConn = 100_000

	DefaultSessionTTL              = 15 * time.Minute // fastmcp.MaxSessionTTL, the most a sealed id lives
	DefaultMaxReplayEvents         = 128
	DefaultResumeTimeout           = 60 * time.Second
	DefaultMaxSessionSubscriptions = 256
	DefaultMaxEndedSessions        = 100_000
)

// NoTimeout, as RequestTimeout, lets requests run without a deadline. Do not use it on
// servers exposed to untrusted clients.
const NoTimeout time.Duration = -1

// ErrInvalidConfig is wrapped by the errors New and Handler return for an invalid Config.
var ErrInvalidConfig = errors.New("streamable: invalid config")

// Config configures the endpoint that every host serves: [NewHandler] (net/http),
// [NewRequestHandler] (a fasthttp server of the application's), [NewEndpoint] (any other
// host), and the native listener, whose [ListenerConfig] adds what it owns besides: the
// connections. Every zero field means its default, never "unlimited"; negative values are
// invalid unless a field says otherwise.
type Config struct {
	// Path is the endpoint path; other paths get 404. Zero means [DefaultPath], /mcp. It must
	// start with "/".
	Path string

	// BodyTimeout bounds the arrival of the body, from the end of the head or from gate
	// admission (400, connection closed; 408 on the net/http adapter). Zero means
	// [DefaultBodyTimeout], 10 s.
	BodyTimeout time.Duration
	// MaxHeaderBytes bounds the request head including its final CRLF CRLF (431). Zero means
	// [DefaultMaxHeaderBytes], 32 KiB.
	MaxHeaderBytes int
	// MaxBodyBytes bounds the body; a larger Content-Length is refused before reading (413).
	// Zero means [DefaultMaxBodyBytes], 2,000,000 bytes.
	MaxBodyBytes int
	// WriteTimeout bounds writing one response, or one event of a stream. Zero means
	// [DefaultWriteTimeout], 5 s.
	WriteTimeout time.Duration

	// RequestTimeout bounds queueing plus execution of one request (504 "Request execution
	// timed out"). Zero means [DefaultRequestTimeout], 30 s; [NoTimeout] disables it.
	RequestTimeout time.Duration
	// RequestGate, if set, sees each request's method, path and headers before the body is
	// read: it may serve its own response, refuse, or attach a verified identity. A request
	// it answers is answered from the head, its body unread and its connection closed (see
	// "Admission" in the package doc). Nil means no gate: the endpoint is unauthenticated.
	RequestGate RequestGate
	// RequestGateQuick, if set, is tried before RequestGate on each request, inline, with no
	// goroutine, timer or copy of the head: a gate that can often decide at once (the oauth
	// package's ResourceServer.GateQuick answers a cached token from memory) thus costs a
	// call, and RequestGate, with its timeout, runs only for the requests it leaves
	// undecided (ok false). It needs RequestGate.
	RequestGateQuick QuickGate
	// RequestGateTimeout bounds the gate (504). Zero means [DefaultRequestGateTimeout], 10 s.
	RequestGateTimeout time.Duration
	// StepUp, if set, may answer an initialize-era request that the core refused with an
	// HTTP response of its own instead of the JSON-RPC error (returning nil keeps the
	// error): the gate cannot tell which tool such a request calls before its body, so an
	// insufficient-scope refusal comes from the core's authorization policy, and the oauth
	// package's ResourceServer.StepUp turns it into the 403 step-up challenge that
	// initialize-era clients act on. Only a reply sent as JSON is replaced (not one that
	// ends an event stream); a panic in StepUp keeps the error.
	StepUp func(err *fastmcp.Error) *GateResponse

	// AllowedOriginHosts lists the hosts an Origin header may name, when present (403
	// otherwise). An entry with a port pins the port. Nil means the loopback names
	// (localhost, 127.0.0.1, ::1); an empty non-nil slice refuses every Origin.
	AllowedOriginHosts []string
	// AllowedHosts, when set, lists the hosts the Host header may name (403 otherwise); the
	// port is ignored. When empty, the Host must be a loopback name (DNS-rebinding
	// protection) on the native listener bound to a loopback address, and on the other
	// hosts, which cannot tell the address they are served on, always: set AllowedHosts to
	// the names the endpoint is reached by, or DisableHostCheck, to serve others.
	AllowedHosts []string
	// DisableHostCheck turns the loopback Host check off, for a local reverse proxy that
	// forwards the public name or a host served beyond loopback. AllowedHosts still applies
	// when set. False by default.
	DisableHostCheck bool

	// MaxSubscriptions caps open subscriptions/listen streams (503 "Server subscription
	// capacity exhausted"); a slot returns when its stream ends. Zero means
	// [DefaultMaxSubscriptions], 256.
	MaxSubscriptions int
	// KeepAliveInterval is how long a stream may stay silent before a `: keepalive` comment.
	// Zero means [DefaultKeepAliveInterval], 15 s.
	KeepAliveInterval time.Duration
	// LegacySessions gives initialize-era HTTP clients a session (see "Initialize-era
	// sessions" in the package doc): initialize answers with an Mcp-Session-Id that is
	// itself the session's sealed state, GET with it opens the session's event stream
	// (list_changed, resources/updated of its subscriptions, log messages), DELETE ends it,
	// and any replica sharing the fastmcp.Server's StateKey and EventBus serves any of it.
	// False by default: the initialize era is sessionless (no Mcp-Session-Id, GET and
	// DELETE 405).
	LegacySessions bool
	// SessionTTL is how long a session id stays valid from initialize (404 "Session not
	// found" after it; the client initializes again). Zero means [DefaultSessionTTL], 15
	// min; at most [fastmcp.MaxSessionTTL].
	SessionTTL time.Duration
	// MaxReplayEvents is how many of a session stream's latest events are kept for a GET
	// with Last-Event-ID to replay; a resume from before them gets a warning
	// notifications/message saying so, then every list_changed and a resources/updated of
	// every subscription, for the client to re-read. Zero means [DefaultMaxReplayEvents],
	// 128.
	MaxReplayEvents int
	// ResumeTimeout is how long a session's stream state (its subscriptions, level and
	// replay window) outlives its GET stream, awaiting a resume on any replica. Zero means
	// [DefaultResumeTimeout], 60 s.
	ResumeTimeout time.Duration
	// MaxSessionSubscriptions bounds the URIs one session subscribes to; past it
	// resources/subscribe is answered -32602 "Invalid params: at most N resource
	// subscriptions per session". Zero means [DefaultMaxSessionSubscriptions], 256.
	MaxSessionSubscriptions int
	// MaxEndedSessions bounds the ended (DELETEd) sessions a replica remembers, until each
	// expires, to answer them 404; past it the oldest is forgotten, and its id works again
	// until its TTL. Zero means [DefaultMaxEndedSessions], 100,000 (about 10 MiB).
	MaxEndedSessions int

	// DrainTimeout bounds a drain's graceful phase (the native listener's Shutdown, the
	// mount's Close); after it remaining streams and connections are closed and their work
	// cancelled. Zero means [DefaultDrainTimeout], 5 s.
	DrainTimeout time.Duration

	// Executor runs requests. If nil, the endpoint owns one with MaxConcurrency and MaxQueue
	// (zero means pool's defaults, [pool.DefaultMaxConcurrency] and [pool.DefaultMaxQueue];
	// MaxQueue [pool.NoQueue] means no queue) and closes it when it stops; an injected
	// executor keeps running, and MaxConcurrency and MaxQueue are then ignored.
	Executor       *pool.Executor
	MaxConcurrency int
	MaxQueue       int

	// Logger receives the endpoint's structured logs. Nil means slog.Default().
	Logger *slog.Logger
}

// ListenerConfig configures the native listener ([New]): the endpoint it serves and the
// connections it owns. Every zero field means its default, never "unlimited"; negative
// values are invalid unless a field says otherwise. [NewHTTPServer] applies the
// connection settings net/http can to an http.Server of the net/http adapter.
type ListenerConfig struct {
	Config

	// Addr is the TCP address to listen on. Zero means [DefaultAddr], 127.0.0.1:8080; port 0
	// picks a free port ([Server.URL] tells which). Binding outside loopback without TLS
	// logs a warning, even with a RequestGate: requests travel in plaintext.
	Addr string

	// TLS, if set, serves HTTPS (see "TLS" in the package doc): the listener clones it,
	// raises a zero MinVersion to TLS 1.2 (a lower one is invalid) and sets NextProtos to
	// http/1.1 (any other ALPN list is invalid). It must carry a certificate unless
	// TLSCertFile and TLSKeyFile give it one. Nil, with no files, means plaintext.
	TLS *tls.Config
	// TLSCertFile and TLSKeyFile, if set (both), name a PEM certificate chain and its key,
	// served over TLS (with TLS as the base configuration when it is also set) and reloaded
	// without a restart when the files change: a handshake looks at them again when the last
	// look is TLSReloadInterval old, and a new pair that does not load keeps the current
	// one and is logged. Zero TLSReloadInterval means [DefaultTLSReloadInterval], 10 s.
	TLSCertFile, TLSKeyFile string
	TLSReloadInterval       time.Duration

	// ServeHealth serves GET /healthz (200 while the process serves) and GET /readyz (200
	// while serving, 503 from the start of a drain) beside Path. They answer before the
	// RequestGate and without the Origin and Host checks: a load balancer's probe carries no
	// credentials and names the address it dialled, and the bodies ("ok", "ready", "not
	// ready") tell nothing. False by default; [HealthHandler] serves the same on another
	// listener.
	ServeHealth bool
	// DrainDelay is how long [Server.Shutdown] keeps accepting connections and serving
	// requests after [Server.Ready] (and so /readyz) has turned false, before it closes the
	// listener and drains: the time a load balancer polling /readyz needs to stop sending
	// here (at least its check interval times the failures it needs to mark a server down,
	// plus one interval). The delay ends early when Shutdown's context ends; a listener never
	// served has none. Zero, the default, means no delay: the listener closes at once.
	DrainDelay time.Duration

	// MaxConnections caps open connections; a connection accepted at the cap is closed
	// without being read. Zero means [DefaultMaxConnections], 1,024.
	MaxConnections int
	// HeadTimeout bounds the arrival of a request head, from the connection's start or, on a
	// keep-alive connection, from the request's first byte (400, connection closed). Zero
	// means [DefaultHeadTimeout], 10 s.
	HeadTimeout time.Duration
	// ReadTimeout bounds each read of a request, from its first byte to its body's end (400,
	// connection closed); IdleTimeout, not it, bounds the wait between requests. Zero means
	// [DefaultReadTimeout], 5 s.
	ReadTimeout time.Duration
	// IdleTimeout bounds the wait for the next request on a keep-alive connection. Zero
	// means [DefaultIdleTimeout], 60 s.
	IdleTimeout time.Duration
	// MaxRequestsPerConn closes a connection after this many requests (its last response
	// carries Connection: close); 1 serves one request per connection. Zero means
	// [DefaultMaxRequestsPerConn], 100,000: a keep-alive client is moved to a fresh
	// connection now and then, which lets a load balancer in front rebalance.
	MaxRequestsPerConn int

	// DisableInline hands every request to an executor worker. By default (false) a request
	// that cannot stream (no progressToken, no logLevel) and finds a worker free runs on its
	// connection's goroutine instead, still counted by the executor: it saves the hand-off,
	// and its deadline and a disconnect cancel its context as usual, but a handler that
	// ignores its context delays the 504 until it returns. An initialize-era request runs
	// inline too: its log messages are held for the answer, and one that needs to ask the
	// client runs again on a worker (see "Initialize-era dialects" in the package doc).
	DisableInline bool
}

// positive resolves a field by the module's rule: zero is the default d, negative invalid.
func positive[T int | time.Duration](v *T, d T, name string) error {
	return defaults.Resolve(v, d, name, ErrInvalidConfig)
}

func (c Config) resolve() (Config, error) {
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if !strings.HasPrefix(c.Path, "/") {
		return c, fmt.Errorf("%w: Path %q must start with /", ErrInvalidConfig, c.Path)
	}
	if c.RequestTimeout != NoTimeout {
		if err := positive(&c.RequestTimeout, DefaultRequestTimeout, "RequestTimeout"); err != nil {
			return c, err
		}
	}
	if err := cmp.Or(
		positive(&c.BodyTimeout, DefaultBodyTimeout, "BodyTimeout"),
		positive(&c.WriteTimeout, DefaultWriteTimeout, "WriteTimeout"),
		positive(&c.RequestGateTimeout, DefaultRequestGateTimeout, "RequestGateTimeout"),
		positive(&c.DrainTimeout, DefaultDrainTimeout, "DrainTimeout"),
		positive(&c.KeepAliveInterval, DefaultKeepAliveInterval, "KeepAliveInterval"),
		positive(&c.MaxHeaderBytes, DefaultMaxHeaderBytes, "MaxHeaderBytes"),
		positive(&c.MaxBodyBytes, DefaultMaxBodyBytes, "MaxBodyBytes"),
		positive(&c.MaxSubscriptions, DefaultMaxSubscriptions, "MaxSubscriptions"),
	); err != nil {
		return c, err
	}
	if err := cmp.Or(
		positive(&c.SessionTTL, DefaultSessionTTL, "SessionTTL"),
		positive(&c.MaxReplayEvents, DefaultMaxReplayEvents, "MaxReplayEvents"),
		positive(&c.ResumeTimeout, DefaultResumeTimeout, "ResumeTimeout"),
		positive(&c.MaxSessionSubscriptions, DefaultMaxSessionSubscriptions, "MaxSessionSubscriptions"),
		positive(&c.MaxEndedSessions, DefaultMaxEndedSessions, "MaxEndedSessions"),
	); err != nil {
		return c, err
	}
	if c.RequestGateQuick != nil && c.RequestGate == nil {
		return c, fmt.Errorf("%w: RequestGateQuick needs RequestGate", ErrInvalidConfig)
	}
	if c.SessionTTL > fastmcp.MaxSessionTTL {
		return c, fmt.Errorf("%w: SessionTTL %v is above %v", ErrInvalidConfig, c.SessionTTL, fastmcp.MaxSessionTTL)
	}
	if c.AllowedOriginHosts == nil {
		c.AllowedOriginHosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

func (c ListenerConfig) resolve() (ListenerConfig, error) {
	var err error
	if c.Config, err = c.Config.resolve(); err != nil {
		return c, err
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.ServeHealth && isHealthPath([]byte(c.Path)) {
		return c, fmt.Errorf("%w: Path %q is a health path and ServeHealth is on", ErrInvalidConfig, c.Path)
	}
	if c.DrainDelay < 0 {
		return c, fmt.Errorf("%w: DrainDelay %v is negative", ErrInvalidConfig, c.DrainDelay)
	}
	return c, cmp.Or(
		positive(&c.HeadTimeout, DefaultHeadTimeout, "HeadTimeout"),
		positive(&c.ReadTimeout, DefaultReadTimeout, "ReadTimeout"),
		positive(&c.IdleTimeout, DefaultIdleTimeout, "IdleTimeout"),
		positive(&c.MaxConnections, DefaultMaxConnections, "MaxConnections"),
		positive(&c.MaxRequestsPerConn, DefaultMaxRequestsPerConn, "MaxRequestsPerConn"),
	)
}
