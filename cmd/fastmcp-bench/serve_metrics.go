package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/gateway"
	"github.com/fastmcp-go/fastmcp/observe"
	"github.com/fastmcp-go/fastmcp/pool"
	"github.com/fastmcp-go/fastmcp/streamable"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// metricsOptions are the observation flags of serve.
type metricsOptions struct {
	addr            string
	trace, accessOn bool
}

func (o *metricsOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.addr, "metrics", "", "serve Prometheus /metrics, /healthz and /readyz on this `address` (a separate listener), e.g. 127.0.0.1:9090")
	fs.BoolVar(&o.trace, "trace", false, "start an OpenTelemetry span per request, parented by params._meta traceparent, and log each span to stderr")
	fs.BoolVar(&o.accessOn, "access-log", false, "log one line per request to stderr (method, tool, version, transport, id, duration, error type)")
}

// observation is what the flags set up: the Observer the core is given (nil with none of the
// flags), the registry of --metrics, and what to stop at exit.
type observation struct {
	observer fastmcp.Observer
	registry *prometheus.Registry
	// tasks counts the tasks store's tasks by status for fastmcp_tasks, when the store
	// serving the Tasks extension is a tasks.Counter (see countTasks).
	tasks tasks.Counter
	// gateway, with --backend, is reported by /readyz and fastmcp_gateway_backend_*
	// (countGateway).
	gateway *gateway.Gateway
	// traceContext, with --trace, is the trace context a gateway's forwarded call carries:
	// its request's span.
	traceContext gateway.TraceContextFunc
	stops        []func()
}

// countTasks makes the tasks store, if any, the source of fastmcp_tasks.
func (obs *observation) countTasks(store tasks.Store) {
	if c, ok := store.(tasks.Counter); ok {
		obs.tasks = c
	}
}

// setup builds the observers the flags ask for.
func (o *metricsOptions) setup(logger *slog.Logger) (*observation, error) {
	obs := &observation{}
	var tracing, metrics, access fastmcp.Observer
	if o.trace {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spanLogger{logger}))
		obs.stops = append(obs.stops, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = tp.Shutdown(ctx)
		})
		t, err := observe.NewTracing(observe.TracingConfig{TracerProvider: tp})
		if err != nil {
			return nil, err
		}
		tracing = t
		obs.traceContext = observe.SpanTraceContext
	}
	if o.addr != "" {
		obs.registry = prometheus.NewRegistry()
		obs.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		m, err := observe.NewMetrics(observe.MetricsConfig{Registerer: obs.registry})
		if err != nil {
			return nil, err
		}
		metrics = m
	}
	if o.accessOn {
		access = observe.NewAccessLog(logger)
	}
	obs.observer = observe.Chain(tracing, metrics, access)
	return obs, nil
}

// countBus exports b's counters with --metrics.
func (obs *observation) countBus(b crossBus) {
	if obs.registry != nil {
		obs.registry.MustRegister(busCollector{b})
	}
}

// listen starts the metrics listener over srv and transport (nil over stdio; a streamable
// host otherwise), ready while ctx lasts: ctx ends when a signal starts the drain. It
// returns the listener's base URL, "" without --metrics.
func (obs *observation) listen(ctx context.Context, addr string, srv *fastmcp.Server, transport any, logger *slog.Logger) (string, error) {
	if obs.registry == nil {
		return "", nil
	}
	src := observe.Sources{Server: srv, Tasks: obs.tasks, Logger: logger}
	if t, ok := transport.(observe.Transport); ok {
		src.Transport = t
	}
	if e, ok := transport.(interface{ Executor() *pool.Executor }); ok {
		src.Executor = e.Executor()
	}
	c, err := observe.NewCollector(src)
	if err != nil {
		return "", err
	}
	obs.registry.MustRegister(c)
	// The native listener's Ready turns false from the first moment of its drain; the other
	// stacks are ready until the signal that starts theirs.
	ready := func() bool { return ctx.Err() == nil }
	if r, ok := transport.(interface{ Ready() bool }); ok {
		ready = r.Ready
	}
	lc := observe.ListenerConfig{Addr: addr, Gatherer: obs.registry, Ready: ready, Logger: logger}
	if obs.gateway != nil {
		lc.Readyz = gatewayReadyz(obs.gateway, ready)
	}
	l, err := observe.Listen(lc)
	if err != nil {
		return "", err
	}
	obs.stops = append(obs.stops, func() { _ = l.Close() })
	logger.Info("metrics", "url", l.URL()+observe.MetricsPath)
	return l.URL(), nil
}

// stop stops what setup and listen started, last first.
func (obs *observation) stop() {
	for i := len(obs.stops) - 1; i >= 0; i-- {
		obs.stops[i]()
	}
}

// spanLogger is a span exporter that logs each span, for --trace without a collector.
type spanLogger struct{ logger *slog.Logger }

func (s spanLogger) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	for _, sp := range spans {
		attrs := []slog.Attr{
			slog.String("name", sp.Name()),
			slog.String("trace_id", sp.SpanContext().TraceID().String()),
			slog.String("span_id", sp.SpanContext().SpanID().String()),
			slog.Duration("duration", sp.EndTime().Sub(sp.StartTime())),
		}
		if p := sp.Parent(); p.IsValid() {
			attrs = append(attrs, slog.String("parent_id", p.SpanID().String()))
		}
		for _, kv := range sp.Attributes() {
			attrs = append(attrs, slog.String(string(kv.Key), kv.Value.String()))
		}
		s.logger.LogAttrs(ctx, slog.LevelInfo, "span", attrs...)
	}
	return nil
}

func (spanLogger) Shutdown(context.Context) error { return nil }

// metricsError names the flag in the error of a metrics listener that cannot start.
func metricsError(err error) error { return fmt.Errorf("--metrics: %w", err) }

// The net/http and mount stacks report their transport's counters like the native one.
func (e *netEndpoint) Stats() streamable.Stats       { return e.handler.Stats() }
func (e *netEndpoint) Refusals() streamable.Refusals { return e.handler.Refusals() }

func (e *mountEndpoint) Stats() streamable.Stats       { return e.handler.Stats() }
func (e *mountEndpoint) Refusals() streamable.Refusals { return e.handler.Refusals() }

func (e *netEndpoint) Executor() *pool.Executor   { return e.handler.Executor() }
func (e *mountEndpoint) Executor() *pool.Executor { return e.handler.Executor() }
