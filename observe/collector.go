package observe

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/defaults"
	"github.com/fastmcp-go/fastmcp/pool"
	"github.com/fastmcp-go/fastmcp/streamable"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// Transport is what a Streamable HTTP host reports: [streamable.Server], [streamable.Handler],
// [streamable.Endpoint] and [streamable.RequestHandler] all are.
type Transport interface {
	Stats() streamable.Stats
	Refusals() streamable.Refusals
}

// Executor is what an executor reports: a [pool.Executor] is one.
type Executor interface {
	Stats() pool.Stats
}

// Sources are what a [Collector] reads at each scrape; any may be nil.
type Sources struct {
	// Server gives the listen streams open and the events published and dropped.
	Server *fastmcp.Server
	// Transport gives connections, requests in flight and the refusals by limit.
	Transport Transport
	// Executor gives the jobs running and queued, and the ones it refused.
	Executor Executor
	// Tasks gives the tasks by status ([TasksName]): a store that implements
	// [tasks.Counter] (memstore, sqlitestore, pgstore), asked once per scrape.
	Tasks tasks.Counter
	// TasksTimeout bounds that count: past it the tasks series are left out of the scrape
	// and a warning is logged. If zero, [DefaultTasksTimeout]. Negative values are invalid.
	TasksTimeout time.Duration
	// Logger receives the count's failures. If nil, slog.Default().
	Logger *slog.Logger
}

// The names of the gauges and counters a Collector exports.
const (
	RefusalsName        = "fastmcp_refusals_total"
	ExecutorRunningName = "fastmcp_executor_running"
	ExecutorQueuedName  = "fastmcp_executor_queued"
	ConnectionsOpenName = "fastmcp_connections_open"
	InFlightName        = "fastmcp_requests_in_flight"
	ListenStreamsName   = "fastmcp_listen_streams_open"
	EventsPublishedName = "fastmcp_events_published_total"
	EventsDroppedName   = "fastmcp_events_dropped_total"
	LabelLimit          = "limit"
	refusalsHelp        = "Requests refused at a limit, by the limit (the Config field; draining; decode: invalid JSON or past a decoder limit)."
	executorRunningHelp = "Executor jobs running now."
	executorQueuedHelp  = "Executor jobs queued for a worker now."
	connectionsOpenHelp = "Connections open now (native listener)."
	inFlightHelp        = "HTTP requests being served now."
	listenStreamsHelp   = "subscriptions/listen streams open now."
	eventsPublishedHelp = "Events published to the listen streams."
	eventsDroppedHelp   = "resources/updated events dropped because a stream's queue was full (the stream then completes)."
	limitDraining       = "draining"
	limitDecode         = "decode" // invalid JSON or past a decoder limit: one count
	limitExecutorCap    = "MaxConcurrency+MaxQueue"
	limitSubscriptions  = "MaxSubscriptions"
	limitMaxConnections = "MaxConnections"
	limitMaxBodyBytes   = "MaxBodyBytes"
	limitMaxHeaderBytes = "MaxHeaderBytes"
	limitHeadTimeout    = "HeadTimeout"
	limitBodyTimeout    = "BodyTimeout"
	limitGateTimeout    = "RequestGateTimeout"
	limitRequestTimeout = "RequestTimeout"
)

var (
	descRefusals        = prometheus.NewDesc(RefusalsName, refusalsHelp, []string{LabelLimit}, nil)
	descExecutorRunning = prometheus.NewDesc(ExecutorRunningName, executorRunningHelp, nil, nil)
	descExecutorQueued  = prometheus.NewDesc(ExecutorQueuedName, executorQueuedHelp, nil, nil)
	descConnections     = prometheus.NewDesc(ConnectionsOpenName, connectionsOpenHelp, nil, nil)
	descInFlight        = prometheus.NewDesc(InFlightName, inFlightHelp, nil, nil)
	descListenStreams   = prometheus.NewDesc(ListenStreamsName, listenStreamsHelp, nil, nil)
	descEventsPublished = prometheus.NewDesc(EventsPublishedName, eventsPublishedHelp, nil, nil)
	descEventsDropped   = prometheus.NewDesc(EventsDroppedName, eventsDroppedHelp, nil, nil)
)

// Collector is a prometheus.Collector over the counters the server, its transport and its
// executor keep anyway: it reads them at scrape time, so it costs the request path nothing.
type Collector struct{ src Sources }

// NewCollector returns a Collector over src; register it with a prometheus.Registerer. A
// negative TasksTimeout is an error wrapping [ErrInvalidConfig].
func NewCollector(src Sources) (*Collector, error) {
	if err := defaults.Resolve(&src.TasksTimeout, DefaultTasksTimeout, "Sources.TasksTimeout", ErrInvalidConfig); err != nil {
		return nil, err
	}
	if src.Logger == nil {
		src.Logger = slog.Default()
	}
	return &Collector{src: src}, nil
}

// Describe sends the descriptions of the metrics src can give.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	if c.src.Server != nil {
		ch <- descListenStreams
		ch <- descEventsPublished
		ch <- descEventsDropped
	}
	if c.src.Transport != nil {
		ch <- descConnections
		ch <- descInFlight
	}
	if c.src.Transport != nil || c.src.Executor != nil {
		ch <- descRefusals
	}
	if c.src.Executor != nil {
		ch <- descExecutorRunning
		ch <- descExecutorQueued
	}
	if c.src.Tasks != nil {
		ch <- descTasks
	}
}

// Collect reads the sources once each.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	if s := c.src.Server; s != nil {
		ev := s.EventStats()
		ch <- prometheus.MustNewConstMetric(descListenStreams, prometheus.GaugeValue, float64(s.Subscribers()))
		ch <- prometheus.MustNewConstMetric(descEventsPublished, prometheus.CounterValue, float64(ev.Published))
		ch <- prometheus.MustNewConstMetric(descEventsDropped, prometheus.CounterValue, float64(ev.Overflows))
	}
	if t := c.src.Transport; t != nil {
		st, r := t.Stats(), t.Refusals()
		ch <- prometheus.MustNewConstMetric(descConnections, prometheus.GaugeValue, float64(st.OpenConnections))
		ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, float64(st.InFlight))
		for _, v := range []struct {
			limit string
			n     int64
		}{
			{limitMaxConnections, st.ClosedAtCap},
			{limitMaxBodyBytes, r.BodyTooLarge},
			{limitMaxHeaderBytes, r.HeaderTooLarge},
			{limitExecutorCap, r.Overloaded},
			{limitSubscriptions, r.Subscriptions},
			{limitDraining, r.ShuttingDown},
			{limitDecode, r.Undecodable},
			{limitHeadTimeout, st.HeadTimeouts},
			{limitBodyTimeout, st.BodyTimeouts},
			{limitGateTimeout, st.GateTimeouts},
			{limitRequestTimeout, st.RequestTimeouts},
		} {
			ch <- prometheus.MustNewConstMetric(descRefusals, prometheus.CounterValue, float64(v.n), v.limit)
		}
	}
	if e := c.src.Executor; e != nil {
		st := e.Stats()
		ch <- prometheus.MustNewConstMetric(descExecutorRunning, prometheus.GaugeValue, float64(st.Running))
		ch <- prometheus.MustNewConstMetric(descExecutorQueued, prometheus.GaugeValue, float64(st.Queued))
		if c.src.Transport == nil { // the transport counts the executor's refusals itself
			ch <- prometheus.MustNewConstMetric(descRefusals, prometheus.CounterValue, float64(st.Rejected), limitExecutorCap)
		}
	}
	if c.src.Tasks != nil {
		collectTasks(ch, c.src.Tasks, c.src.TasksTimeout, c.src.Logger)
	}
}
