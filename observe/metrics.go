package observe

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// The Prometheus names of the OpenTelemetry MCP semantic conventions: the histogram
// mcp.server.operation.duration (unit s) and its attributes, dots become underscores.
const (
	OperationDurationName = "mcp_server_operation_duration_seconds"
	LabelMethod           = "mcp_method_name"
	LabelTool             = "gen_ai_tool_name"
	LabelErrorType        = "error_type"
	LabelNetwork          = "network_transport"
	LabelProtocolVersion  = "mcp_protocol_version"
)

// DefaultBuckets are the bucket bounds, in seconds, of the operation duration histogram: the
// conventions' advice (10 ms to 300 s) with six finer bounds below it, since an edge server
// answers most requests in well under 10 ms.
var DefaultBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
	0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
}

// Metrics is a [fastmcp.Observer] that records the duration of every request in the
// histogram [OperationDurationName], labelled by method, tool, error type, network transport
// and protocol version. The labels are bounded ([fastmcp.RequestInfo] says how), so the
// series are too: at most one per method, catalog tool, error code, transport and version.
//
// Recording a request allocates nothing once its label set has been seen. It is safe for
// concurrent use.
type Metrics struct {
	desc      *prometheus.Desc
	bounds    histogramBounds
	maxSeries int

	mu     sync.Mutex                          // serializes writers of series
	named  int                                 // how many series are not aliases, under mu
	series atomic.Pointer[map[seriesKey]entry] // copied on write: readers take no lock
	// recent caches the series of a request's label set and error type by their addresses
	// (the server interns label sets, and error types are constants): a hash of two
	// pointers and two comparisons, where the map hashes and compares five strings. A
	// collision only sends the request to the map.
	recent [recentSlots]atomic.Pointer[view]
}

const (
	recentBits  = 8
	recentSlots = 1 << recentBits
)

// seriesKey is a series' label values.
type seriesKey struct{ method, tool, errorType, network, version string }

// entry is a series in the map: alias reports that its key is a tool's past MaxSeries, which
// records into the _other series (the scrape skips it).
type entry struct {
	s     *series
	alias bool
}

// view is how a label set and error type, by address, find their series' counters.
type view struct {
	labels    *fastmcp.Labels
	errorType string
	counters
}

// MetricsConfig configures [NewMetrics].
type MetricsConfig struct {
	// Registerer receives the histogram. If nil, NewMetrics fails: pass
	// prometheus.DefaultRegisterer to use the global registry.
	Registerer prometheus.Registerer
	// Buckets are the histogram's bucket bounds in seconds, in increasing order (+Inf is
	// implied). If nil, [DefaultBuckets].
	Buckets []float64
	// MaxSeries bounds the label sets of the histogram that name a tool: a catalog of many
	// tools could make many series. Past it a request's tool is recorded as "_other" (the
	// other labels are bounded by fixed tables). If zero, [DefaultMaxSeries]. Negative
	// values are invalid.
	MaxSeries int
}

// DefaultMaxSeries is the default of [MetricsConfig.MaxSeries].
const DefaultMaxSeries = 10_000

// NewMetrics registers the request histogram with cfg.Registerer.
func NewMetrics(cfg MetricsConfig) (*Metrics, error) {
	if cfg.Registerer == nil {
		return nil, fmt.Errorf("%w: MetricsConfig.Registerer is nil", ErrInvalidConfig)
	}
	if cfg.Buckets == nil {
		cfg.Buckets = DefaultBuckets
	}
	if err := defaults.Resolve(&cfg.MaxSeries, DefaultMaxSeries, "MaxSeries", ErrInvalidConfig); err != nil {
		return nil, err
	}
	if n := len(cfg.Buckets); n > 0 && math.IsInf(cfg.Buckets[n-1], 1) {
		cfg.Buckets = cfg.Buckets[:n-1] // implied, as prometheus.Histogram has it
	}
	for i := 1; i < len(cfg.Buckets); i++ {
		if !(cfg.Buckets[i-1] < cfg.Buckets[i]) {
			return nil, fmt.Errorf("%w: Buckets are not in increasing order at %v", ErrInvalidConfig, cfg.Buckets[i])
		}
	}
	m := &Metrics{maxSeries: cfg.MaxSeries, bounds: newHistogramBounds(cfg.Buckets), desc: prometheus.NewDesc(
		OperationDurationName,
		"MCP request duration as observed on the server, from receipt until the reply is ready (mcp.server.operation.duration).",
		[]string{LabelMethod, LabelTool, LabelErrorType, LabelNetwork, LabelProtocolVersion}, nil)}
	empty := map[seriesKey]entry{}
	m.series.Store(&empty)
	if err := cfg.Registerer.Register(durationCollector{m}); err != nil {
		return nil, fmt.Errorf("observe: registering %s: %w", OperationDurationName, err)
	}
	return m, nil
}

// RequestStart does nothing: the duration is known at the end.
func (m *Metrics) RequestStart(ctx context.Context, _ fastmcp.RequestInfo) context.Context {
	return ctx
}

// RequestEnd records the request's duration (not an attempt to be run again: the request is
// recorded once, when it is answered).
func (m *Metrics) RequestEnd(_ context.Context, info fastmcp.RequestInfo, out fastmcp.RequestOutcome) {
	if out.Rerun {
		return
	}
	slot := &m.recent[recentSlot(info.Labels, out.ErrorType)]
	v := slot.Load()
	if v == nil || v.labels != info.Labels || !sameString(v.errorType, out.ErrorType) {
		k := seriesKey{info.Method, info.Tool, out.ErrorType, info.Network, info.ProtocolVersion}
		e, ok := (*m.series.Load())[k]
		if !ok {
			e = m.addSeries(k)
		}
		v = &view{labels: info.Labels, errorType: out.ErrorType, counters: e.s.counters}
		slot.Store(v)
	}
	v.observe(&m.bounds, out.Duration)
}

// recentSlot hashes the addresses of a label set and an error type into recent.
func recentSlot(l *fastmcp.Labels, errorType string) int {
	h := uintptr(unsafe.Pointer(l)) ^ uintptr(unsafe.Pointer(unsafe.StringData(errorType)))<<1
	return int(uint64(h) * 0x9e3779b97f4a7c15 >> (64 - recentBits)) // Fibonacci hashing: the top bits
}

// sameString reports that a and b are the same string at the same address (any two empty
// strings are: the address of one is unspecified).
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}

// addSeries makes the series of k, once.
func (m *Metrics) addSeries(k seriesKey) entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.series.Load()
	if e, ok := old[k]; ok {
		return e
	}
	next := make(map[seriesKey]entry, len(old)+2)
	for key, e := range old {
		next[key] = e
	}
	var e entry
	if m.named >= m.maxSeries && k.tool != "" && k.tool != fastmcp.OtherLabel {
		// Past the bound the tool's requests are _other's: k is an alias of that series.
		other := k
		other.tool = fastmcp.OtherLabel
		if _, ok := next[other]; !ok {
			next[other] = entry{s: newSeries(other, m.bounds)}
		}
		e = entry{s: next[other].s, alias: true}
	} else {
		e = entry{s: newSeries(k, m.bounds)}
		m.named++
	}
	next[k] = e
	m.series.Store(&next)
	return e
}
