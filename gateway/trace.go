package gateway

import (
	"context"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TraceContextFunc returns the W3C trace context (traceparent, tracestate) a forwarded call
// carries to its backend, from the context the caller's request is served with; an empty
// traceparent sends the caller's own. observe.SpanTraceContext is one: the span a Tracing
// observer started for the request.
type TraceContextFunc func(ctx context.Context) (traceparent, tracestate string)

// callOptions are the client options of one forwarded request: what the caller asked of r
// (progress, log messages; relay.go) and the trace context.
func (b *backend) callOptions(ctx context.Context, rl *relay, r *fastmcp.Request) []client.CallOption {
	opts := rl.options(r)
	if tp, ts := b.g.traceContext(ctx, r); tp != "" {
		opts = append(opts, client.WithTraceContext(tp, ts))
	}
	return opts
}

// traceContext is the trace context a call forwarded for r carries: Config.TraceContext's
// (the Gateway's own span), else the caller's, passed on unchanged as W3C Trace Context asks
// of an intermediary that does not trace. Baggage is not passed on: it is the caller's
// word to the Gateway, not to the servers behind it.
func (g *Gateway) traceContext(ctx context.Context, r *fastmcp.Request) (traceparent, tracestate string) {
	if g.cfg.TraceContext != nil {
		if tp, ts := g.cfg.TraceContext(ctx); tp != "" {
			return tp, ts
		}
	}
	tp, ts, _ := r.TraceContext()
	return tp, ts
}
