package streamable

import "sync/atomic"

// Stats is a snapshot of the transport's counters.
type Stats struct {
	// OpenConnections is the number of connections open now.
	OpenConnections int64
	// ClosedAtCap counts connections closed unread because MaxConnections were open.
	ClosedAtCap int64
	// InFlight is the number of requests being served now.
	InFlight int64
	// OpenStreams is the number of subscriptions/listen streams open now.
	OpenStreams int64
	// Timeouts by kind.
	HeadTimeouts, BodyTimeouts, GateTimeouts, RequestTimeouts int64
	// Disconnects counts requests cancelled because the client went away.
	Disconnects int64
	// Drains counts completed Shutdowns.
	Drains int64
	// ClientCancels counts initialize-era requests withdrawn by the client's
	// notifications/cancelled; InlineReruns those that ran inline, needed to wait for the
	// client, and were run again on a worker (native listener).
	ClientCancels, InlineReruns int64
}

type counters struct {
	openConns, closedAtCap, inFlight, openStreams         atomic.Int64
	headTimeouts, bodyTimeouts, gateTimeouts, reqTimeouts atomic.Int64
	disconnects, drains                                   atomic.Int64
	clientCancels, inlineReruns                           atomic.Int64
}

func (c *counters) snapshot() Stats {
	return Stats{
		OpenConnections: c.openConns.Load(),
		ClosedAtCap:     c.closedAtCap.Load(),
		InFlight:        c.inFlight.Load(),
		OpenStreams:     c.openStreams.Load(),
		HeadTimeouts:    c.headTimeouts.Load(),
		BodyTimeouts:    c.bodyTimeouts.Load(),
		GateTimeouts:    c.gateTimeouts.Load(),
		RequestTimeouts: c.reqTimeouts.Load(),
		Disconnects:     c.disconnects.Load(),
		Drains:          c.drains.Load(),
		ClientCancels:   c.clientCancels.Load(),
		InlineReruns:    c.inlineReruns.Load(),
	}
}
