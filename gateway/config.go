package gateway

import (
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
)

// Defaults for the zero values of Config.
const (
	// DefaultMaxBackends bounds the backends of one Gateway.
	DefaultMaxBackends = 64
	// DefaultMaxCatalogEntries bounds the tools, prompts, resources and resource templates
	// one backend lists, all kinds counted together.
	DefaultMaxCatalogEntries = 1024
	// DefaultConnectTimeout bounds one connection attempt to a backend, catalog included.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultMinRestartDelay is the first wait before reconnecting to (or restarting) a
	// backend that failed; each failure in a row doubles it up to DefaultMaxRestartDelay.
	DefaultMinRestartDelay = 100 * time.Millisecond
	// DefaultMaxRestartDelay caps the wait between reconnection attempts.
	DefaultMaxRestartDelay = 30 * time.Second
	// DefaultHealthInterval is the period of the ping that checks a connected backend.
	DefaultHealthInterval = 5 * time.Second
	// DefaultInputTimeout bounds the wait of a parked call for its caller's answer.
	DefaultInputTimeout = 60 * time.Second
	// DefaultMaxParkedCalls bounds the calls parked at once.
	DefaultMaxParkedCalls = 1024
	// DefaultBreakerFailures is the number of calls in a row failing on the transport or
	// timing out that opens a backend's circuit breaker.
	DefaultBreakerFailures = 5
	// DefaultBreakerCooldown is how long an open breaker refuses calls before its probe.
	DefaultBreakerCooldown = 5 * time.Second
	// DefaultBackendPoolSize caps the pooled connections to one HTTP backend when
	// Config.Client leaves PoolSize zero. Each call in flight holds one (HTTP/1.1), so the
	// client's own default of 16 would make the 17th concurrent caller of a slow tool wait;
	// connections are opened only as calls need them and closed when idle.
	DefaultBackendPoolSize = 256
)

// Separator joins a backend's name to the names of its tools and prompts: backend "weather"
// with a tool "forecast" lists "weather__forecast". A backend name never contains '_', so
// the first "__" of a namespaced name ends the backend's name, and the rest is the
// backend's own name, byte for byte.
const Separator = "__"

// SchemeSeparator joins a backend's name to the URI scheme of its resources and resource
// templates: "file:///a.txt" of backend "docs" lists as "docs+file:///a.txt", a valid URI
// scheme ("+" is allowed in one) that strips back to the backend's URI exactly.
const SchemeSeparator = "+"

// backendName is what a backend may be called: a lowercase letter, then up to 31 lowercase
// letters, digits and '-'. No '_' (the Separator stays unambiguous) and no '+' or ':' (the
// rewritten scheme stays one), and a letter first so that "NAME+scheme" is a URI scheme.
var backendName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// Backend is one MCP server behind the Gateway: an http(s) URL (either era: the client
// finds out at connection) or a command started over stdio and supervised.
type Backend struct {
	// Name namespaces the backend's catalog: [a-z][a-z0-9-]{0,31}.
	Name string
	// URL is the backend's endpoint, http:// or https://. Empty for a stdio backend.
	URL string
	// Command and Args start a stdio backend; Env is appended to the gateway's environment.
	Command string
	Args    []string
	Env     []string

	// Limits of the requests forwarded to the backend (tools/call, prompts/get,
	// resources/read, completion/complete), across all of its entries; zero values select
	// the defaults, negative ones are invalid. See the package doc's Limits.
	//
	// Timeout bounds each call (default: the client's RequestTimeout alone); a longer one
	// raises this backend's RequestTimeout to it.
	Timeout time.Duration
	// MaxConcurrent bounds the calls in flight to the backend (default: unlimited): the one
	// past it is refused at once.
	MaxConcurrent int
	// Rate is the calls a second the backend is sent, on average, Burst how many may come at
	// once (a token bucket; default: unlimited, and Burst the rate rounded up): the one past
	// them is refused at once.
	Rate  float64
	Burst int
	// BreakerFailures calls in a row that fail on the transport or time out open the
	// backend's circuit breaker (default 5); it then refuses calls for BreakerCooldown
	// (default 5 s) before letting one through as its probe.
	BreakerFailures int
	BreakerCooldown time.Duration

	// Credentials are the backend's own (HTTP only): a static Authorization header or OAuth
	// client credentials. See the package doc's Credentials.
	Credentials Credentials
}

// ParseBackend reads a backend as the command line gives it: NAME=URL (http:// or
// https://) or NAME=stdio:COMMAND ARGS…, the command and its arguments split at spaces (no
// quoting).
func ParseBackend(s string) (Backend, error) {
	name, target, ok := strings.Cut(s, "=")
	if !ok {
		return Backend{}, fmt.Errorf("%w: backend %q: want NAME=URL or NAME=stdio:COMMAND ARGS", ErrInvalidConfig, s)
	}
	b := Backend{Name: name}
	if cmd, ok := strings.CutPrefix(target, "stdio:"); ok {
		fields := strings.Fields(cmd)
		if len(fields) == 0 {
			return Backend{}, fmt.Errorf("%w: backend %q: stdio: without a command", ErrInvalidConfig, name)
		}
		b.Command, b.Args = fields[0], fields[1:]
	} else {
		b.URL = target
	}
	return b, b.check()
}

// check validates one backend.
func (b *Backend) check() error {
	if !backendName.MatchString(b.Name) {
		return fmt.Errorf("%w: backend name %q: want a lowercase letter, then up to 31 lowercase letters, digits and '-'", ErrInvalidConfig, b.Name)
	}
	if err := b.checkLimits(); err != nil {
		return err
	}
	if err := b.checkCredentials(); err != nil { // credentials.go
		return err
	}
	switch {
	case b.URL != "" && b.Command != "":
		return fmt.Errorf("%w: backend %q: both a URL and a command", ErrInvalidConfig, b.Name)
	case b.Command != "":
		return nil
	case strings.HasPrefix(b.URL, "http://") || strings.HasPrefix(b.URL, "https://"):
		return nil
	}
	return fmt.Errorf("%w: backend %q: %q is neither an http(s) URL nor stdio:COMMAND", ErrInvalidConfig, b.Name, b.URL)
}

// Config configures a Gateway. Zero values select the defaults; negative ones are invalid.
type Config struct {
	// Backends are the servers whose catalogs the Gateway serves. With exactly one, the
	// Gateway is transparent: names and URIs are served unchanged.
	Backends []Backend
	// MaxBackends bounds len(Backends) (default 64, DefaultMaxBackends): New fails with an
	// error wrapping ErrInvalidConfig past it.
	MaxBackends int
	// MaxCatalogEntries bounds the entries (tools, prompts, resources, templates together)
	// one backend lists (default 1,024): a catalog past it is refused with an error wrapping
	// ErrCatalogTooLarge, and the backend is treated as down.
	MaxCatalogEntries int
	// ConnectTimeout bounds one connection attempt, catalog included (default 10 s).
	ConnectTimeout time.Duration
	// MinRestartDelay and MaxRestartDelay pace reconnection (defaults 100 ms and 30 s):
	// the delay doubles after each failure in a row, and starts over once a connection has
	// lasted MaxRestartDelay.
	MinRestartDelay, MaxRestartDelay time.Duration
	// HealthInterval is the period of the ping that checks each connected backend (default
	// 5 s); a call that fails on the transport checks at once.
	HealthInterval time.Duration
	// InputTimeout bounds how long a call to an initialize-era backend waits, parked, for
	// the caller's answer to one of its requests for input (default 60 s): then the backend's
	// call is cancelled and the caller's late retry gets -32602 (see the package doc).
	InputTimeout time.Duration
	// MaxParkedCalls bounds the calls parked at once on this Gateway (default 1,024): past
	// it, a call that asks for input is cancelled and its caller gets -32603 "Too many
	// backend requests waiting for input".
	MaxParkedCalls int
	// Client is the template of every backend's client configuration (pool, timeouts,
	// response bounds, credentials). Its target fields (Command, Args, Env, Stderr) are set
	// per backend. It never carries a caller's credentials: a backend sees only what this
	// template gives it. A zero PoolSize is DefaultBackendPoolSize (256) per backend.
	Client client.Config
	// Logger receives backend state changes, refused catalog entries and the stderr of stdio
	// backends. Default: slog.Default().
	Logger *slog.Logger
	// TraceContext, when set, gives the trace context a forwarded call carries to its
	// backend (the Gateway's own span: observe.SpanTraceContext); otherwise, or when it
	// returns none, the caller's traceparent and tracestate are passed on unchanged.
	TraceContext TraceContextFunc
	// NoTaskPassThrough keeps the Gateway from serving the tasks extension of its
	// tasks-capable backends (see the package doc's Tasks): for a Server whose own tasks
	// extension is registered (one extension per ID).
	NoTaskPassThrough bool
	// TaskIDKeys authenticate the task ids the Gateway gives its callers (see Tasks): the
	// first signs, every one verifies; each at least 32 bytes. Share them between replicas
	// so that any replica serves a task. Default: a random key per Gateway.
	TaskIDKeys [][]byte
}

// resolve checks cfg and fills its defaults.
func (c *Config) resolve() error {
	if c.MaxBackends < 0 || c.MaxCatalogEntries < 0 || c.ConnectTimeout < 0 || c.MinRestartDelay < 0 ||
		c.MaxRestartDelay < 0 || c.HealthInterval < 0 ||
		c.InputTimeout < 0 || c.MaxParkedCalls < 0 {
		return fmt.Errorf("%w: negative limit", ErrInvalidConfig)
	}
	setDefault(&c.MaxBackends, DefaultMaxBackends)
	setDefault(&c.MaxCatalogEntries, DefaultMaxCatalogEntries)
	setDefault(&c.ConnectTimeout, DefaultConnectTimeout)
	setDefault(&c.MinRestartDelay, DefaultMinRestartDelay)
	setDefault(&c.MaxRestartDelay, DefaultMaxRestartDelay)
	setDefault(&c.HealthInterval, DefaultHealthInterval)
	setDefault(&c.InputTimeout, DefaultInputTimeout)
	setDefault(&c.MaxParkedCalls, DefaultMaxParkedCalls)
	if c.MaxRestartDelay < c.MinRestartDelay {
		return fmt.Errorf("%w: MaxRestartDelay %v is shorter than MinRestartDelay %v", ErrInvalidConfig, c.MaxRestartDelay, c.MinRestartDelay)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if len(c.Backends) == 0 {
		return fmt.Errorf("%w: no backend", ErrInvalidConfig)
	}
	if len(c.Backends) > c.MaxBackends {
		return fmt.Errorf("%w: %d backends, more than MaxBackends (%d)", ErrInvalidConfig, len(c.Backends), c.MaxBackends)
	}
	seen := make(map[string]bool, len(c.Backends))
	for i := range c.Backends {
		b := &c.Backends[i]
		if err := b.check(); err != nil {
			return err
		}
		if seen[b.Name] {
			return fmt.Errorf("%w: backend name %q given twice", ErrInvalidConfig, b.Name)
		}
		seen[b.Name] = true
	}
	return nil
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}
