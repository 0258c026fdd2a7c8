package client

import (
	"context"
	"time"
)

// transport carries JSON-RPC messages to one server. The client core owns the protocol (ids,
// _meta, eras, MRTR, paging); a transport only moves bytes and routes what the server sends
// back for a request to that request. Implementations: the pooled HTTP transport
// (transport_http.go) and the stdio transport (stdio*.go).
//
// A transport is safe for concurrent use: many roundTrips may be in flight at once.
type transport interface {
	// roundTrip sends one request (a complete JSON-RPC message whose id the core chose; hdr
	// the headers mirrored on HTTP, ignored elsewhere) and delivers, in order, every message
	// the server sends for it before its response — notifications and server-to-client
	// requests — to onMessage, then returns the response (a copy the caller owns).
	//
	// onMessage returns the bytes to send back for a server-to-client request (nil for a
	// notification). A transport with a duplex channel (stdio) writes them itself; the HTTP
	// transport posts them as a separate request. An error from onMessage ends the exchange
	// with that error.
	//
	// roundTrip bounds the whole exchange by Config.RequestTimeout, or ctx's deadline when
	// sooner, and then fails with an error wrapping context.DeadlineExceeded (the core sets no
	// deadline of its own, which would cost a context per call).
	//
	// When ctx ends first, roundTrip returns ctx.Err() (wrapped) promptly. On modern HTTP
	// that closes the request's connection, which the server sees as the cancellation; a
	// transport that cannot signal it by itself reports cancelsByClose() == false, and the
	// core then sends notifications/cancelled.
	roundTrip(ctx context.Context, req []byte, hdr *headers, onMessage func([]byte) ([]byte, error)) ([]byte, error)

	// notify sends a message that gets no answer: a notification, or a response to a
	// server-to-client request.
	notify(ctx context.Context, msg []byte, hdr *headers) error

	// cancelsByClose reports whether abandoning a roundTrip is itself the cancellation the
	// server observes (modern HTTP: the stream closes). Otherwise the core sends
	// notifications/cancelled for the abandoned request id.
	cancelsByClose() bool

	// close releases the transport: idle connections close at once, in-flight exchanges
	// finish on their own sockets (HTTP) or fail at once (stdio, the process is gone).
	close() error
}

// headers are the HTTP headers that mirror a request body (2026-07-28 §Standard Headers),
// set by the core for each request. Off HTTP they are ignored. Empty fields are not sent.
type headers struct {
	// version is MCP-Protocol-Version, sent in both eras.
	version string
	// method is Mcp-Method and name is Mcp-Name (already encoded with the base64 sentinel
	// when needed); modern era only.
	method string
	name   string
	// longLived marks a subscription: RequestTimeout bounds it only until the response
	// head, then it runs until ctx ends or the server ends it.
	longLived bool
	// resumable marks a legacy request: an event stream that ends before the response is
	// resumed with GET and Last-Event-ID (SEP-1699); lastEventID is that header.
	resumable   bool
	lastEventID string
	// del turns the bodiless request (normally the legacy GET stream) into the session's
	// DELETE.
	del bool
	// timeout, when set, bounds the request instead of Config.RequestTimeout: the
	// MaxTotalTimeout of a call whose timeout restarts on progress (the core keeps the
	// restarting RequestTimeout itself).
	timeout time.Duration
	// params are the Mcp-Param-* headers of a tool's x-mcp-header arguments, in order.
	params []paramHeader
	// logs marks a call made WithLog: over stdio it takes the log messages that come while
	// it is the only call pending (nothing else says which call one belongs to).
	logs bool
}

// paramHeader is one Mcp-Param-{name} header with its wire value.
type paramHeader struct {
	name, value string
}
