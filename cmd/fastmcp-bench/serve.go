package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/pool"
	"github.com/fastmcp-go/fastmcp/streamable"
)

func init() {
	register(command{
		Name:    "serve",
		Summary: "serve the demo and/or conformance fixtures over Streamable HTTP (or stdio)",
		Run:     serve,
	})
}

// serveUsage heads the -h output of serve.
const serveUsage = `Usage: fastmcp-bench serve [flags]

Serves the fixture catalogs named by --fixtures on one MCP endpoint. Over HTTP, once listening
it prints exactly one JSON line to stdout, {"url":"http://127.0.0.1:PORT/mcp"} (https with
--tls-cert and --tls-key), with --pprof also "pprof" (the net/http/pprof index) and "memory"
(GET: the Go heap and stacks in use after a GC, as JSON); logs go to stderr. The line is the readiness signal: the endpoints it names
answer, and SIGINT or SIGTERM drains the listener (in-flight requests finish, listen streams
get their completion response, for at most --drain-timeout) and exits 0.

Behind a load balancer, --health serves /readyz on the listener and --drain-delay makes a
signal first turn it 503 while serve goes on accepting and serving for that long, so the
balancer's health checks take the replica out before its socket refuses connections: set it
to at least the check interval times the failures that mark a server down, plus one interval
(HAProxy's inter 500ms and fall 2: 1.5s). Default 0: the drain begins at once. A second
signal ends the delay and the drain at once.

With --stdio it serves newline-delimited JSON-RPC on stdin and stdout instead, until stdin
ends or a signal arrives.

--dialects restricts the protocol revisions served (default: all, so every client can use
the server): 2026-07-28 answers requests that carry their version in params._meta; 2025-11-25
and 2025-06-18 answer initialize and the requests whose MCP-Protocol-Version (over stdio, the
version initialize negotiated) names them. No session id is ever issued.

With the demo or conformance fixtures it also serves the Tasks extension
(io.modelcontextprotocol/tasks) for their task tools (the demo's report, the conformance
suite's), over --tasks-store: by default a SQLite file in a temporary directory removed at
exit; sqlite:PATH keeps the tasks across restarts (a file serve cannot write is refused at
start); postgres:DSN shares them between processes (--tasks-migrate creates the tables); off
serves no extension. --tasks-ttl sets how long a task lives (its ttlMs).

--state-key-file shares the requestState keys between replicas, so that a multi round-trip
retry may land on any of them: one key per line, standard base64 of at least 32 random bytes
(openssl rand -base64 32); blank lines and lines starting with # are ignored; at most 8 keys
and 64 KiB. A file that does not parse stops serve before it listens (exit status 2).
The first key seals, every key opens. SIGHUP rereads the file (a file that does not parse is
logged and the keys in use stay). To rotate with no refused retry, add the new key as the
second line on every replica and SIGHUP them, then move it first and SIGHUP, then remove the
old one once its states have expired (5 minutes). Without the flag each process draws its own
key, and a retry that reaches another process is refused (-32602). A gateway (--backend)
derives its task id keys from the same file and rotates them with it: a task id verifies until
the key it was issued under is removed, so remove one only once its tasks are done.

Replicas: --bus nats://HOST:PORT (a NATS server; give it max_payload: 2MB to carry the
largest events) or --bus postgres://… (LISTEN/NOTIFY on that database) shares the listen
streams' events (list_changed, resources/updated, notifications/tasks) with every replica on
the same bus; without it, events stay in this process. Delivery is at most once: when the bus
drops events or its connection breaks, the open listen streams complete (resultType
complete) so clients re-read, and --metrics counts it (fastmcp_bus_*_total). Serve fails at
start when the bus cannot be reached within 30s.

Durations use Go's syntax (250ms, 5s, 1m). A limit set to 0 selects its default unless its text
gives 0 another meaning.

Flags:
`

// serveOptions are the flags of serve.
type serveOptions struct {
	addr, stack, fixtures, pprofAddr, dialects string
	bus                                        string // serve_bus.go
	stdio, disableInline, legacySessions       bool

	maxConnections, maxHeaderBytes, maxBodyBytes, maxRequestsPerConn int
	headTimeout, readTimeout, bodyTimeout, idleTimeout               time.Duration
	writeTimeout, requestTimeout, drainTimeout, keepAlive            time.Duration
	drainDelay                                                       time.Duration
	maxSubscriptions, maxConcurrency, maxQueue                       int
	allowedOriginHosts, allowedHosts                                 string
	maxLineBytes                                                     int
	tls                                                              tlsOptions
	oauth                                                            oauthOptions
	tasks                                                            tasksOptions
	metrics                                                          metricsOptions  // serve_metrics.go
	stateKeys                                                        stateKeyOptions // serve_statekeys.go
	gateway                                                          gatewayOptions  // serve_gateway.go
}

func (o *serveOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.addr, "addr", streamable.DefaultAddr, "TCP `address` to listen on (port 0 picks a free port)")
	fs.StringVar(&o.stack, "stack", "fasthttp", "HTTP `stack`: fasthttp (the native listener), nethttp (net/http with the streamable handler) or fasthttp-mount (a fasthttp.Server with the mounted streamable.RequestHandler)")
	fs.StringVar(&o.fixtures, "fixtures", "demo", "comma-separated fixture `catalogs` to serve: "+strings.Join(fixtures.Names(), ", "))
	fs.StringVar(&o.pprofAddr, "pprof", "", "serve net/http/pprof on this loopback `address` (a separate listener), e.g. 127.0.0.1:6060")
	fs.BoolVar(&o.stdio, "stdio", false, "serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP")
	fs.StringVar(&o.dialects, "dialects", dialectList(fastmcp.AllDialects()), "comma-separated protocol `versions` to serve; others are refused naming these")

	fs.IntVar(&o.maxConnections, "max-connections", streamable.DefaultMaxConnections, "open connections at once; more are closed unread")
	fs.DurationVar(&o.headTimeout, "head-timeout", streamable.DefaultHeadTimeout, "deadline for a request head to arrive")
	fs.DurationVar(&o.readTimeout, "read-timeout", streamable.DefaultReadTimeout, "deadline for each read from a connection")
	fs.DurationVar(&o.bodyTimeout, "body-timeout", streamable.DefaultBodyTimeout, "deadline for a request body to arrive")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", streamable.DefaultIdleTimeout, "how long a keep-alive connection may wait for its next request")
	fs.IntVar(&o.maxHeaderBytes, "max-header-bytes", streamable.DefaultMaxHeaderBytes, "largest request head (431 beyond)")
	fs.IntVar(&o.maxBodyBytes, "max-body-bytes", streamable.DefaultMaxBodyBytes, "largest request body (413 beyond)")
	fs.IntVar(&o.maxRequestsPerConn, "max-requests-per-conn", 0, "close a connection after this many requests (0: the default, 100000)")
	fs.DurationVar(&o.requestTimeout, "request-timeout", streamable.DefaultRequestTimeout, "deadline of one request, queueing included (0: none)")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", streamable.DefaultDrainTimeout, "how long shutdown waits for requests in flight")
	fs.DurationVar(&o.drainDelay, "drain-delay", 0, "on SIGINT or SIGTERM, how long to answer /readyz 503 while still accepting and serving, before the drain (0: none; behind a proxy polling /readyz, its check interval × fall count + one interval; only with --stack fasthttp)")
	fs.IntVar(&o.maxSubscriptions, "max-subscriptions", 0, "open subscriptions/listen streams at once (0: the transport's default, 256 over HTTP, 32 over stdio)")
	fs.DurationVar(&o.keepAlive, "keepalive-interval", streamable.DefaultKeepAliveInterval, "period of the keep-alive comments on event streams")
	fs.StringVar(&o.allowedOriginHosts, "allowed-origin-hosts", "", "comma-separated `hosts` an Origin header may name (default: the loopback names)")
	fs.StringVar(&o.allowedHosts, "allowed-hosts", "", "comma-separated `hosts` the Host header may name (default: loopback names on a loopback address, unchecked elsewhere)")
	fs.IntVar(&o.maxConcurrency, "max-concurrency", pool.DefaultMaxConcurrency, "requests executing at once")
	fs.BoolVar(&o.disableInline, "disable-inline", false, "hand every request to an executor worker instead of running a request that cannot stream on its connection's goroutine when a worker is free")
	fs.IntVar(&o.maxQueue, "max-queue", pool.DefaultMaxQueue, "requests waiting for a worker (0: no queue, refuse when all workers are busy)")
	fs.DurationVar(&o.writeTimeout, "write-timeout", streamable.DefaultWriteTimeout, "deadline for writing one response or one stream event")
	fs.BoolVar(&o.legacySessions, "legacy-sessions", false, "give initialize-era HTTP clients a session: a sealed Mcp-Session-Id, a GET event stream (list_changed, resources/updated, log messages; Last-Event-ID resumes), DELETE; off: those clients are served sessionless, GET and DELETE 405")
	o.tasks.flags(fs)
	fs.StringVar(&o.bus, "bus", "", "share events with the other replicas over this `bus`: nats://HOST:PORT or postgres://… (default: in memory, this process alone)")
	fs.IntVar(&o.maxLineBytes, "max-line-bytes", 0, "with --stdio: longest input line, newline included (0: the transport's default)")
	o.tls.flags(fs)
	o.oauth.flags(fs)
	o.metrics.flags(fs)
	o.stateKeys.flags(fs)
	o.gateway.flags(fs)
}

// queue maps the --max-queue flag to a pool queue size: 0 on the command line means none.
func (o *serveOptions) queue() int {
	if o.maxQueue == 0 {
		return pool.NoQueue
	}
	return o.maxQueue
}

func (o *serveOptions) httpConfig(logger *slog.Logger) streamable.ListenerConfig {
	timeout := o.requestTimeout
	if timeout == 0 {
		timeout = streamable.NoTimeout
	}
	return streamable.ListenerConfig{
		Addr:               o.addr,
		MaxConnections:     o.maxConnections,
		HeadTimeout:        o.headTimeout,
		ReadTimeout:        o.readTimeout,
		IdleTimeout:        o.idleTimeout,
		MaxRequestsPerConn: o.maxRequestsPerConn,
		DisableInline:      o.disableInline,
		DrainDelay:         o.drainDelay,
		Config: streamable.Config{
			BodyTimeout:        o.bodyTimeout,
			MaxHeaderBytes:     o.maxHeaderBytes,
			MaxBodyBytes:       o.maxBodyBytes,
			WriteTimeout:       o.writeTimeout,
			RequestTimeout:     timeout,
			AllowedOriginHosts: splitList(o.allowedOriginHosts),
			AllowedHosts:       splitList(o.allowedHosts),
			MaxSubscriptions:   o.maxSubscriptions,
			KeepAliveInterval:  o.keepAlive,
			DrainTimeout:       o.drainTimeout,
			LegacySessions:     o.legacySessions,
			MaxConcurrency:     o.maxConcurrency,
			MaxQueue:           o.queue(),
			RequestGate:        o.oauth.gate(),
			RequestGateQuick:   o.oauth.gateQuick(),
			StepUp:             o.oauth.stepUp(),
			Logger:             logger,
		},
	}
}

// endpoint is a listening HTTP stack.
type endpoint interface {
	URL() string
	Serve() error
	Shutdown(ctx context.Context) error
}

func serve(ctx context.Context, args []string) int {
	var o serveOptions
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	o.flags(fs)
	if err := fs.Parse(args); err != nil {
		return usageStatus(err)
	}
	if len(o.gateway.backends) > 0 && !flagGiven(fs, "fixtures") {
		o.fixtures = "" // a gateway serves its backends' catalogs only, unless asked for more
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "serve: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if err := o.checkDrainDelay(); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 2
	}
	if err := o.tls.check(o.stack, o.stdio); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 2
	}
	dialects, err := parseDialects(o.dialects)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve: --dialects:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if code := o.buildOAuth(ctx, logger); code != 0 {
		return code
	}
	obs, err := o.metrics.setup(logger)
	if err != nil {
		logger.Error("serve: cannot set up observation", "err", err)
		return 1
	}
	defer obs.stop()

	var stateKeys [][]byte
	if o.stateKeys.file != "" {
		if stateKeys, err = readStateKeys(o.stateKeys.file); err != nil {
			fmt.Fprintf(os.Stderr, "serve: --state-key-file %s: %v\n", o.stateKeys.file, err)
			return 2
		}
	}
	eb, err := openBus(ctx, o.bus)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	cfg := &fastmcp.Config{Logger: logger, Dialects: dialects, Authorizer: o.oauth.authorizer(), Observer: obs.observer, StateKeys: stateKeys}
	if eb != nil {
		defer eb.Close()
		cfg.EventBus = eb
		obs.countBus(eb)
	}
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "fastmcp-bench", Version: version()}, cfg)
	if err != nil {
		logger.Error("serve: cannot create the server", "err", err)
		return 1
	}
	if o.fixtures != "" {
		if err := fixtures.Register(srv, o.fixtures); err != nil {
			fmt.Fprintln(os.Stderr, "serve: --fixtures:", err)
			return 2
		}
	}
	if len(o.gateway.backends) > 0 {
		o.gateway.trace = obs.traceContext
		o.gateway.noTasks = servesOwnTasks(o.fixtures, o.tasks)
		o.gateway.taskIDKeys = taskIDKeys(stateKeys)
		stop, err := o.gateway.start(ctx, srv, logger)
		if err != nil {
			fmt.Fprintln(os.Stderr, "serve: --backend:", err)
			return 2
		}
		defer stop()
		obs.countGateway(o.gateway.g)
	}
	if o.stateKeys.file != "" {
		var also []func([][]byte) error
		if g := o.gateway.g; g != nil {
			also = append(also, func(keys [][]byte) error { return g.SetTaskIDKeys(taskIDKeys(keys)) })
		}
		defer reloadStateKeys(ctx, o.stateKeys.file, srv, logger, also...)()
	}
	stopTasks, err := startTasks(srv, o.fixtures, o.tasks, logger, obs.countTasks)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 2
	}
	defer stopTasks()
	var debug debugURLs
	if o.pprofAddr != "" {
		var stop func()
		if debug, stop, err = startPprof(o.pprofAddr, logger); err != nil {
			fmt.Fprintln(os.Stderr, "serve: --pprof:", err)
			return 2
		}
		defer stop()
	}
	if o.stdio {
		if _, err := obs.listen(ctx, o.metrics.addr, srv, nil, logger); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", metricsError(err))
			return 2
		}
		return serveStdio(ctx, srv, &o, logger)
	}

	var ep endpoint
	switch o.stack {
	case "fasthttp":
		ep, err = newFastHTTP(srv, o.tls.apply(o.httpConfig(logger)))
	case "nethttp":
		ep, err = newNetHTTP(srv, o.httpConfig(logger))
	case "fasthttp-mount":
		ep, err = newFastMount(srv, o.httpConfig(logger))
	default:
		err = usageError(fmt.Sprintf("--stack: unknown stack %q (fasthttp, nethttp or fasthttp-mount)", o.stack))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		var ue usageError
		if errors.As(err, &ue) || errors.Is(err, streamable.ErrInvalidConfig) {
			return 2
		}
		return 1
	}
	if debug.Metrics, err = obs.listen(ctx, o.metrics.addr, srv, ep, logger); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", metricsError(err))
		return 2
	}
	return runEndpoint(ctx, ep, o.drainDelay, o.drainTimeout, debug, logger)
}

// checkDrainDelay refuses --drain-delay where no listener of serve's would wait it: the
// native listener's Shutdown does (ListenerConfig.DrainDelay), the hosted stacks' do not.
func (o *serveOptions) checkDrainDelay() error {
	switch {
	case o.drainDelay < 0:
		return usageError(fmt.Sprintf("--drain-delay %v is negative", o.drainDelay))
	case o.drainDelay > 0 && (o.stdio || o.stack != "fasthttp"):
		return usageError("--drain-delay is the native listener's: only with --stack fasthttp, not with --stdio")
	}
	return nil
}

// flagGiven reports whether the command line set the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// usageError is a mistake on the command line (exit status 2).
type usageError string

func (e usageError) Error() string { return string(e) }

// runEndpoint announces ep's URL on stdout, serves until ctx ends, then drains: not ready
// for delay (the endpoint's Shutdown waits it), then for at most drain.
func runEndpoint(ctx context.Context, ep endpoint, delay, drain time.Duration, debug debugURLs, logger *slog.Logger) int {
	if err := announce(os.Stdout, ep.URL(), debug); err != nil {
		logger.Error("serve: cannot write the URL to stdout", "err", err)
		return 1
	}
	logger.Info("serving", "url", ep.URL())
	served := make(chan error, 1)
	go func() { served <- ep.Serve() }()
	select {
	case err := <-served:
		logger.Error("serve: the listener stopped", "err", err)
		return 1
	case <-ctx.Done():
	}
	logger.Info("draining", "delay", delay, "timeout", drain)
	// Shutdown bounds itself by the delay and the drain timeout; the margin covers closing
	// what is left. A second signal ends both at once.
	again, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sctx, cancel := context.WithTimeout(again, delay+drain+5*time.Second)
	defer cancel()
	if err := ep.Shutdown(sctx); err != nil {
		logger.Warn("drain did not finish in time; remaining connections were closed", "err", err)
	}
	if err := <-served; err != nil && !errors.Is(err, streamable.ErrServerClosed) && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("serve returned after shutdown", "err", err)
	}
	logger.Info("stopped")
	return 0
}

// announceLine is the one JSON line that tells a harness where the endpoint is.
type announceLine struct {
	URL string `json:"url"`
	debugURLs
}

// debugURLs are the endpoints of --pprof, empty without it.
type debugURLs struct {
	Pprof  string `json:"pprof,omitempty"`
	Memory string `json:"memory,omitempty"`
	// Metrics is the --metrics listener's base URL (/metrics, /healthz, /readyz).
	Metrics string `json:"metrics,omitempty"`
}

// announce prints the announceLine.
func announce(w io.Writer, url string, debug debugURLs) error {
	line, err := json.Marshal(announceLine{url, debug})
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}

// fastEndpoint adapts the native listener to endpoint.
type fastEndpoint struct{ *streamable.Server }

func (f fastEndpoint) Serve() error { return f.Server.Serve() }

func newFastHTTP(srv *fastmcp.Server, cfg streamable.ListenerConfig) (endpoint, error) {
	s, err := streamable.New(srv, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.Listen(); err != nil {
		return nil, err
	}
	return fastEndpoint{s}, nil
}

// startPprof serves net/http/pprof and the memory reading on a loopback address; stop closes
// it.
func startPprof(addr string, logger *slog.Logger) (urls debugURLs, stop func(), err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return urls, nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return urls, nil, fmt.Errorf("%s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return urls, nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/memory", serveMemory)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("pprof listener stopped", "err", err)
		}
	}()
	base := "http://" + ln.Addr().String()
	urls = debugURLs{Pprof: base + "/debug/pprof/", Memory: base + "/debug/memory"}
	logger.Info("pprof", "url", urls.Pprof, "memory", urls.Memory)
	return urls, func() { _ = hs.Close() }, nil
}

// parseDialects reads the --dialects list: protocol versions fastmcp serves, each at most
// once, at least one.
func parseDialects(list string) ([]fastmcp.Dialect, error) {
	var out []fastmcp.Dialect
	for _, v := range splitList(list) {
		d := fastmcp.ParseDialect(v)
		switch {
		case d == 0:
			return nil, fmt.Errorf("unknown protocol version %q (known: %s)", v, dialectList(fastmcp.AllDialects()))
		case slices.Contains(out, d):
			return nil, fmt.Errorf("protocol version %q is listed twice", v)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no protocol version given (known: %s)", dialectList(fastmcp.AllDialects()))
	}
	return out, nil
}

// dialectList names dialects as --dialects takes them.
func dialectList(dialects []fastmcp.Dialect) string {
	names := make([]string, len(dialects))
	for i, d := range dialects {
		names[i] = d.Version()
	}
	return strings.Join(names, ",")
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
