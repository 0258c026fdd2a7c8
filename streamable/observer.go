package streamable

import (
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/pool"
)

// The sinks a request is served with name the network transport for a fastmcp.Observer.
var (
	_ fastmcp.NetworkNamer = (*job)(nil)
	_ fastmcp.NetworkNamer = (*streamSink)(nil)
	_ fastmcp.ReceiveTimer = (*job)(nil)
	_ fastmcp.ReceiveTimer = (*streamSink)(nil)
)

// ReceivedAt is when the native listener read the request (fasthttp's RequestCtx.Time, a
// clock read it makes per request anyway); zero on the net/http adapter, whose job never
// sets it.
func (j *job) ReceivedAt() time.Time { return j.received }

// ReceivedAt is the listen request's [job.ReceivedAt].
func (s *streamSink) ReceivedAt() time.Time { return s.j.received }

// NetworkTransport reports that Streamable HTTP runs over TCP.
func (*job) NetworkTransport() string { return fastmcp.NetworkTCP }

// NetworkTransport reports that Streamable HTTP runs over TCP.
func (*streamSink) NetworkTransport() string { return fastmcp.NetworkTCP }

// Refusals counts the requests the transport refused at a limit, by limit, for metrics. The
// timeouts and the connections closed at MaxConnections are in [Stats].
type Refusals struct {
	// BodyTooLarge: a body over MaxBodyBytes (413).
	BodyTooLarge int64
	// HeaderTooLarge: a head over MaxHeaderBytes (431).
	HeaderTooLarge int64
	// Overloaded: every worker busy and the queue full, MaxConcurrency and MaxQueue (503).
	Overloaded int64
	// Subscriptions: MaxSubscriptions listen streams open, or the core's
	// MaxSubscriptionBytes spent (503).
	Subscriptions int64
	// ShuttingDown: a request that arrived during a drain (503).
	ShuttingDown int64
	// Undecodable: a body the decoder refused (400): invalid JSON, or past one of the
	// decoder's limits (fastmcp.Config.Limits: depth, number, string and id bounds).
	Undecodable int64
}

// refusalCounters are the atomic counts behind Refusals.
type refusalCounters struct {
	bodyTooLarge, headerTooLarge, overloaded, subscriptions, shuttingDown atomic.Int64
	undecodable                                                           atomic.Int64
}

// count counts e when it is a refusal at a limit; other errors are not counted here.
func (c *refusalCounters) count(e *httpError) {
	switch e {
	case nil:
	case errBodyTooLarge:
		c.bodyTooLarge.Add(1)
	case errHeaderTooLarge:
		c.headerTooLarge.Add(1)
	case errOverloaded:
		c.overloaded.Add(1)
	case errSubscriptions:
		c.subscriptions.Add(1)
	case errShuttingDown:
		c.shuttingDown.Add(1)
	}
}

func (c *refusalCounters) snapshot() Refusals {
	return Refusals{
		BodyTooLarge:   c.bodyTooLarge.Load(),
		HeaderTooLarge: c.headerTooLarge.Load(),
		Overloaded:     c.overloaded.Load(),
		Subscriptions:  c.subscriptions.Load(),
		ShuttingDown:   c.shuttingDown.Load(),
		Undecodable:    c.undecodable.Load(),
	}
}

// prepare is prepareUncounted with its refusal counted.
func (ep *endpoint) prepare(r *Request) (Prepared, Response, bool) {
	p, resp, ok := ep.prepareUncounted(r)
	ep.refused.count(resp.refused)
	return p, resp, ok
}

// Refusals returns the counts of the requests refused at a limit.
func (s *Server) Refusals() Refusals { return s.ep.refused.snapshot() }

// Refusals returns the counts of the requests refused at a limit.
func (e *Endpoint) Refusals() Refusals { return e.ep.refused.snapshot() }

// Refusals returns the counts of the requests refused at a limit.
func (h *Handler) Refusals() Refusals { return h.ep.refused.snapshot() }

// Refusals returns the counts of the requests refused at a limit.
func (h *RequestHandler) Refusals() Refusals { return h.ep.refused.snapshot() }

// Executor returns the executor the handler runs requests on (Config.Executor, or its own),
// for its Stats.
func (h *Handler) Executor() *pool.Executor { return h.ep.exec }

// Executor returns the executor the handler runs requests on (Config.Executor, or its own),
// for its Stats.
func (h *RequestHandler) Executor() *pool.Executor { return h.ep.exec }

// Executor returns the executor the endpoint runs requests on (Config.Executor, or its own),
// for its Stats.
func (e *Endpoint) Executor() *pool.Executor { return e.ep.exec }
