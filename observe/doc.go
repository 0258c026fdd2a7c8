// Package observe is the operator's view of a fastmcp server: Prometheus metrics named by
// the OpenTelemetry MCP semantic conventions, OpenTelemetry tracing, an access log on
// log/slog, and a metrics listener with /healthz and /readyz (answered by
// [streamable.HealthHandler] with the native listener's [streamable.Server.Ready]: 503 from
// the first moment of a drain).
//
// The core and the transports know nothing of Prometheus or OpenTelemetry: they keep their
// counters ([streamable.Stats], [streamable.Refusals], [pool.Stats], [fastmcp.EventStats])
// and call a [fastmcp.Observer] per request when one is configured. This package implements
// that Observer ([Metrics], [Tracing], [AccessLog], combined with [Chain]) and reads the
// counters at scrape time ([Collector]), so that a server without observation pays one nil
// check per request, and one with [Metrics] no allocation.
//
// # Metrics
//
//   - mcp_server_operation_duration_seconds, a histogram (mcp.server.operation.duration),
//     labelled mcp_method_name, gen_ai_tool_name, error_type, network_transport and
//     mcp_protocol_version. Tool names come from the catalog, never from the request: a name
//     the catalog lacks is "_other", as are an unknown method, version and error code, so
//     the series stay bounded.
//   - fastmcp_refusals_total{limit}: requests refused at a limit, by the Config field
//     (MaxBodyBytes, MaxHeaderBytes, MaxConnections, MaxConcurrency+MaxQueue,
//     MaxSubscriptions, HeadTimeout, BodyTimeout, RequestGateTimeout, RequestTimeout),
//     "draining", or "decode" (a body the decoder refused: invalid JSON or past one of its
//     limits, which it does not tell apart).
//   - fastmcp_executor_running, fastmcp_executor_queued, fastmcp_connections_open,
//     fastmcp_requests_in_flight, fastmcp_listen_streams_open (gauges);
//     fastmcp_events_published_total, fastmcp_events_dropped_total (counters).
//   - fastmcp_tasks{status}: the tasks in the store by status (working, input_required,
//     completed, failed, cancelled; expired ones excluded), counted at scrape time when
//     [Sources.Tasks] is a [tasks.Counter].
//
// # Tracing
//
// [Tracing] starts a server span per request, the child of the W3C trace context in
// params._meta (traceparent and tracestate, validated by [RemoteParent]), named
// "tools/call echo" and attributed by the conventions. It is off unless configured.
//
// # Limits
//
// [MetricsConfig.MaxSeries] (default 10,000) bounds the histogram's label sets that name a
// tool: past it a new tool is recorded as "_other". The client sees nothing.
//
// [Sources.TasksTimeout] (default 2 s) bounds the count of the tasks at a scrape: past it,
// or when the store fails, fastmcp_tasks is left out of that scrape (the rest is answered)
// and a warning is logged.
//
// The metrics listener ([Listen]) bounds a request head's arrival by
// [ListenerConfig.ReadHeaderTimeout] (default 10 s; past it the connection is closed
// unanswered) and its size by [ListenerConfig.MaxHeaderBytes] (default 16 KiB; 431 Request
// Header Fields Too Large). A traceparent longer than [MaxTraceParentBytes] (512) or a
// tracestate longer than [MaxTraceStateBytes] (512) or with more than
// [MaxTraceStateMembers] (32) members is ignored: the request starts a new trace, or keeps
// its parent without the state; the client sees no error.
//
// # Example
//
//	reg := prometheus.NewRegistry()
//	m, _ := observe.NewMetrics(observe.MetricsConfig{Registerer: reg})
//	srv, _ := fastmcp.NewServer(info, &fastmcp.Config{Observer: m})
//	http, _ := streamable.New(srv, streamable.ListenerConfig{})
//	c, _ := observe.NewCollector(observe.Sources{Server: srv, Transport: http, Executor: http.Executor(), Tasks: store})
//	reg.MustRegister(c)
//	l, _ := observe.Listen(observe.ListenerConfig{Addr: "127.0.0.1:9090", Gatherer: reg, Ready: http.Ready})
//	defer l.Close()
package observe
