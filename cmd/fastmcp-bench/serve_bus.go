package main

import (
	"context"

	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fastmcp-go/fastmcp/bus"
	"github.com/fastmcp-go/fastmcp/bus/natsbus"
	"github.com/fastmcp-go/fastmcp/bus/pgbus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// busOpenTimeout bounds connecting to --bus at start.
const busOpenTimeout = 30 * time.Second

// crossBus is a bus across replicas: an EventBus that counts and closes.
type crossBus interface {
	fastmcp.EventBus
	Stats() bus.Stats
	Close() error
}

// openBus opens the bus --bus names: nats://HOST:PORT (natsbus), postgres://… or
// postgresql://… (pgbus), or nil for "" (the Server's in-memory hub).
func openBus(ctx context.Context, spec string) (crossBus, error) {
	ctx, cancel := context.WithTimeout(ctx, busOpenTimeout)
	defer cancel()
	switch {
	case spec == "":
		return nil, nil
	case strings.HasPrefix(spec, "nats://"):
		b, err := natsbus.Open(ctx, natsbus.Config{URL: spec, Name: "fastmcp-bench serve"})
		if err != nil {
			return nil, err // not a nil *Bus in a non-nil interface
		}
		return b, nil
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		b, err := pgbus.Dial(ctx, spec, pgbus.Config{})
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, usageError(fmt.Sprintf("--bus: %q is neither nats://HOST:PORT nor postgres://…", spec))
}

// The series of the bus across replicas, with --bus and --metrics.
var (
	descBusPublished  = prometheus.NewDesc("fastmcp_bus_published_total", "Events this replica handed to the bus (--bus).", nil, nil)
	descBusReceived   = prometheus.NewDesc("fastmcp_bus_received_total", "Events received from the bus, every replica's.", nil, nil)
	descBusDropped    = prometheus.NewDesc("fastmcp_bus_dropped_total", "Events this replica published that never reached the bus (buffer full, too large, connection down); each run of drops completes the listen streams.", nil, nil)
	descBusLost       = prometheus.NewDesc("fastmcp_bus_lost_total", "Incoming events that could not be delivered.", nil, nil)
	descBusOutages    = prometheus.NewDesc("fastmcp_bus_outages_total", "Times the connection to the bus broke.", nil, nil)
	descBusReconnects = prometheus.NewDesc("fastmcp_bus_reconnects_total", "Times it came back.", nil, nil)
)

// busCollector exports a bus's Stats.
type busCollector struct{ b crossBus }

func (c busCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descBusPublished, descBusReceived, descBusDropped, descBusLost, descBusOutages, descBusReconnects} {
		ch <- d
	}
}

func (c busCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.b.Stats()
	for _, m := range []struct {
		d *prometheus.Desc
		v uint64
	}{{descBusPublished, s.Published}, {descBusReceived, s.Received}, {descBusDropped, s.Dropped}, {descBusLost, s.Lost}, {descBusOutages, s.Outages}, {descBusReconnects, s.Reconnects}} {
		ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v))
	}
}
