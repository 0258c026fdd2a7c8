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

	mu     sync.Mutex                            // serializes writers of series
	named  int                                   // how many series are not aliases, under mu
	series atomic.Pointer[map[seriesKey]*series] // copied on write: readers take no lock
	// recent caches series by a hash of label lengths and ends, which costs a few
	// instructions where hashing the whole key in the map costs far more; a collision only
	// sends the request to the map.
	recent [recentSlots]atomic.Pointer[series]
}

const (
	recentBits  = 6
	recentSlots = 1 << recentBits
)

type seriesKey struct{ method, tool, errorType, network, version string }

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
	switch {
	case cfg.MaxSeries < 0:
		return nil, fmt.Errorf("%w: MaxSeries %d is negative", ErrInvalidConfig, cfg.MaxSeries)
	case cfg.MaxSeries == 0:
		cfg.MaxSeries = DefaultMaxSeries
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
	empty := map[seriesKey]*series{}
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
	k := seriesKey{info.Method, info.Tool, out.ErrorType, info.Network, info.ProtocolVersion}
	slot := &m.recent[k.slot()]
	s := slot.Load()
	if s == nil || !s.key.is(k) && s.key != k {
		var ok bool
		if s, ok = (*m.series.Load())[k]; !ok {
			s = m.addSeries(k)
		}
		slot.Store(s)
	}
	s.observe(&m.bounds, out.Duration)
}

// slot hashes where k's labels are, not what they say: they are the server's own strings
// (the constants of fixed tables, the catalog's names), so a label set comes with the same
// pointers request after request, and hashing them reads no label bytes. Equal labels at
// other addresses only hash to another slot, where == still finds their series.
func (k seriesKey) slot() int {
	h := uintptr(unsafe.Pointer(unsafe.StringData(k.method)))
	h ^= uintptr(unsafe.Pointer(unsafe.StringData(k.tool))) << 1
	h ^= uintptr(unsafe.Pointer(unsafe.StringData(k.errorType))) << 2
	h ^= uintptr(unsafe.Pointer(unsafe.StringData(k.network))) << 3
	h ^= uintptr(unsafe.Pointer(unsafe.StringData(k.version))) << 4
	return int(uint64(h) * 0x9e3779b97f4a7c15 >> (64 - recentBits)) // Fibonacci hashing: the top bits
}

// is reports that k and o are the same strings, at the same addresses: what a label set
// repeated by the server is, and far cheaper to check than == (which compares the bytes of
// strings at different addresses, as it must).
func (k seriesKey) is(o seriesKey) bool {
	return same(k.method, o.method) && same(k.tool, o.tool) && same(k.errorType, o.errorType) &&
		same(k.network, o.network) && same(k.version, o.version)
}

func same(a, b string) bool { return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b) }

// addSeries makes the series of k, once.
func (m *Metrics) addSeries(k seriesKey) *series {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.series.Load()
	if o, ok := old[k]; ok {
		return o
	}
	next := make(map[seriesKey]*series, len(old)+2)
	for key, v := range old {
		next[key] = v
	}
	var o *series
	if m.named >= m.maxSeries && k.tool != "" && k.tool != fastmcp.OtherLabel {
		// Past the bound the tool's requests are _other's: k becomes an alias of that
		// series, so that they are found by their own key (and cached) like any other.
		other := k
		other.tool = fastmcp.OtherLabel
		if next[other] == nil {
			next[other] = newSeries(other, m.bounds)
		}
		o = next[other].aliasOf(k)
	} else {
		o = newSeries(k, m.bounds)
		m.named++
	}
	next[k] = o
	m.series.Store(&next)
	return o
}
