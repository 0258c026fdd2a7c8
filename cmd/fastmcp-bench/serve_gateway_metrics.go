package main

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fastmcp-go/fastmcp/gateway"
)

// The series of a gateway's backends, with --backend and --metrics, labelled by backend.
var (
	descBackendUp = prometheus.NewDesc("fastmcp_gateway_backend_up",
		"1 while the backend is connected and its catalog loaded.", []string{"backend"}, nil)
	descBackendBreaker = prometheus.NewDesc("fastmcp_gateway_backend_breaker",
		"1 for the state the backend's circuit breaker is in (closed, open, half-open), 0 for the others.", []string{"backend", "state"}, nil)
	descBackendBreakerOpened = prometheus.NewDesc("fastmcp_gateway_backend_breaker_opened_total",
		"Times the backend's circuit breaker opened.", []string{"backend"}, nil)
	descBackendInFlight = prometheus.NewDesc("fastmcp_gateway_backend_in_flight",
		"Calls to the backend in flight.", []string{"backend"}, nil)
	descBackendCalls = prometheus.NewDesc("fastmcp_gateway_backend_calls_total",
		"Calls that reached the backend, by outcome (ok, error, malformed, timeout, failed, cancelled).", []string{"backend", "outcome"}, nil)
	descBackendRefused = prometheus.NewDesc("fastmcp_gateway_backend_refused_total",
		"Calls refused before reaching the backend, by reason (down, breaker, concurrency, rate).", []string{"backend", "reason"}, nil)
	descBackendConnections = prometheus.NewDesc("fastmcp_gateway_backend_connections_total",
		"Connections made to the backend (a stdio backend: processes started and serving).", []string{"backend"}, nil)
)

// gatewayCollector exports a gateway's Status.
type gatewayCollector struct{ g *gateway.Gateway }

func (c gatewayCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descBackendUp, descBackendBreaker, descBackendBreakerOpened, descBackendInFlight,
		descBackendCalls, descBackendRefused, descBackendConnections} {
		ch <- d
	}
}

func (c gatewayCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for _, st := range c.g.Status() {
		gauge(descBackendUp, bit(st.Up), st.Name)
		for _, s := range []gateway.BreakerState{gateway.BreakerClosed, gateway.BreakerOpen, gateway.BreakerHalfOpen} {
			gauge(descBackendBreaker, bit(st.Breaker == s), st.Name, string(s))
		}
		counter(descBackendBreakerOpened, st.BreakerOpened, st.Name)
		gauge(descBackendInFlight, float64(st.InFlight), st.Name)
		s := st.Calls
		for _, o := range []struct {
			label string
			v     int64
		}{{"ok", s.OK}, {"error", s.Errors}, {"malformed", s.Malformed}, {"timeout", s.Timeouts}, {"failed", s.Failures}, {"cancelled", s.Cancelled}} {
			counter(descBackendCalls, o.v, st.Name, o.label)
		}
		for _, r := range []struct {
			label string
			v     int64
		}{{"down", s.Down}, {"breaker", s.BreakerOpen}, {"concurrency", s.OverConcurrency}, {"rate", s.OverRate}} {
			counter(descBackendRefused, r.v, st.Name, r.label)
		}
		counter(descBackendConnections, int64(st.Connections), st.Name)
	}
}

func bit(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// gatewayReadyz answers /readyz for a gateway: 200 "ready" while the listener takes
// requests and at least one backend can answer (gateway.Gateway.Ready), 503 "not ready"
// otherwise, then one line per backend: "backend NAME up|down breaker=STATE". A replica
// leaves rotation only when none of its backends can serve; which cannot is in the lines
// (and the metrics).
func gatewayReadyz(g *gateway.Gateway, listening func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var b strings.Builder
		status := http.StatusOK
		if listening() && g.Ready() {
			b.WriteString("ready\n")
		} else {
			status = http.StatusServiceUnavailable
			b.WriteString("not ready\n")
		}
		for _, st := range g.Status() {
			state := "down"
			if st.Up {
				state = "up"
			}
			b.WriteString("backend " + st.Name + " " + state + " breaker=" + string(st.Breaker) + "\n")
		}
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = w.Write([]byte(b.String()))
		}
	})
}

// countGateway exports g's backends with --metrics and makes /readyz report them.
func (obs *observation) countGateway(g *gateway.Gateway) {
	if obs.registry == nil || g == nil {
		return
	}
	obs.registry.MustRegister(gatewayCollector{g})
	obs.gateway = g
}
