// Package streamable serves MCP over Streamable HTTP, revision 2026-07-28 and the
// initialize-era revisions 2025-11-25 and 2025-06-18 side by side, statelessly ("Initialize-era
// dialects"): a native listener on fasthttp built for throughput ([New]), a net/http adapter
// for applications on
// the standard library, chi, echo or gin ([NewHandler]), a handler to mount in an
// application's own fasthttp server or Fiber app ([NewRequestHandler]), and the host-neutral
// [Endpoint] they share ("Other hosts"). All share one admission path and the same limits,
// and serve a transport-free [fastmcp.Server].
//
//	core, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
//	// ... register tools, resources, prompts on core ...
//	srv, _ := streamable.New(core, streamable.ListenerConfig{Addr: "127.0.0.1:8080"})
//	// Serve until SIGINT or SIGTERM (or ctx ends), then drain:
//	if err := srv.Run(ctx); err != nil {
//		log.Fatal(err)
//	}
//
// # Admission
//
// Each POST is checked in this order, and refused with the status and JSON-RPC error shown
// (errors found before the body parsed carry a null id; later ones echo the request's id):
// the method is POST (405 with Allow: POST); the path (404); the Origin, when present, names
// an allowed host (403); the Host names an allowed host (403; on a loopback address it must
// be a loopback name, against DNS rebinding; the authority of an absolute-form target stands
// for the Host, RFC 9112 §3.2.2); Content-Type is application/json (415); Accept lists
// application/json and text/event-stream (406); a Content-Length and no Transfer-Encoding of
// any kind (411, connection closed; the native listener refuses a Transfer-Encoding it cannot
// parse with 411 before any other check, net/http's server answers 501 to one it does not
// support); the body is JSON (400 -32700); a notification or response object is accepted
// with 202 and no body; a batch is 400 -32600; the envelope is valid (400); when the request
// carries its _meta, the mirrored headers MCP-Protocol-Version, Mcp-Method, Mcp-Name
// (trimmed, =?base64?…?= decoded; the name, uri or, for an extension's method, the member
// the core names (transport.Endpoint.NamedBy), such as tasks/get's taskId) and, for tools/call, the Mcp-Param-* headers of
// x-mcp-header arguments match the body (400 -32020); then the core answers (-32602 for
// missing _meta and -32022 for an unsupported version with 400, -32601 with 404, -32021 with
// 400, other errors with 200). Mcp-Session-Id and Last-Event-ID are ignored. Before the
// mirrored headers, each request is classified by era (see "Initialize-era dialects"): the
// mirrored headers are checked only for a 2026-07-28 request.
//
// A [Config.RequestGate] runs first, on the head alone. A request it answers (its own
// response, such as an OAuth 401 challenge, or its failure: 500, 504) is answered from the
// head on every stack: a body it declares is neither read nor invited with "100 Continue",
// and the connection closes after the answer (one that declares no body stays open), so an
// unauthenticated client cannot make the server hold a body, whatever Content-Length it
// sends. Nor is "100 Continue" sent before a 411 or 413. The RequestGate runs on its own
// goroutine, on a copy of the head, so that one past RequestGateTimeout is answered with 504
// while it goes on; a [Config.RequestGateQuick], when set, is tried first, inline on the
// request's goroutine and on the head itself, and what it decides (the oauth package's
// cached tokens, say) costs no goroutine, timer or copy: the RequestGate runs only for what
// it leaves undecided. Without a gate, nothing of this runs.
//
// A result is sent as application/json. A request whose handler reports progress or logs
// switches to a text/event-stream response scoped to it, ending with the reply.
// subscriptions/listen is a stream, with `: keepalive` comments and X-Accel-Buffering: no,
// whose response head goes out with the acknowledgement; a listen the core refuses before
// acknowledging it gets an ordinary JSON response instead (an invalid filter: 200 -32602; the
// core's subscription budget or a shutdown: 503 -32603). Once acknowledged, a stream keeps
// its subscription and lets go of its request: body, decoded message and buffers.
//
// # Initialize-era dialects
//
// With the initialize-era dialects enabled (fastmcp.Config.Dialects, all by default), the
// endpoint serves clients that open with initialize beside 2026-07-28 clients, on the same
// path and the same stacks, without sessions (unless [Config.LegacySessions]: see
// "Initialize-era sessions"): no Mcp-Session-Id is ever issued, and one a client sends is
// ignored. Every POST is classified on its own (transport.Endpoint.Classify):
// a request whose params._meta names a protocol version is 2026-07-28; initialize opens the
// newest initialize-era revision served (it negotiates the version itself and counter-offers
// an unknown one; its version header, if any, is not read); any other request is of the
// revision its MCP-Protocol-Version header names. Mcp-Method and Mcp-Name never decide the
// era, and an initialize-era request's are not checked. The header refusals, all 400:
//
//   - a repeated MCP-Protocol-Version on a request without _meta: -32020 "MCP-Protocol-Version
//     header is repeated";
//   - a version not served: -32022 "Unsupported protocol version" with data.supported (the
//     versions served) and data.requested;
//   - no version at all (no _meta, no header) while an initialize-era dialect is served:
//     -32602 "Missing required request metadata: io.modelcontextprotocol/protocolVersion and
//     io.modelcontextprotocol/clientCapabilities (an initialize-era client sends the
//     MCP-Protocol-Version header it negotiated)". The 2025-03-26 fallback for clients that
//     send no header is not offered. With the 2026-07-28 header and no _meta the request is
//     2026-07-28's, refused -32602 as such.
//
// Statuses: an initialize-era JSON-RPC error about a request that reached its dialect is
// sent as 200 with the error body (unknown method, unknown tool, invalid params: the
// revisions' clients read the error from the body), except the core's admission errors
// (400) and capacity refusals (503); the transport's own refusals (admission, 503 overload,
// 504 timeout) keep their statuses. Notifications and JSON-RPC responses are answered 202
// with no body, whatever they say: notifications/initialized needs nothing on a stateless
// server; a response (the client's answer to a server-to-client request) is handed to
// the core (transport.Endpoint.Answer) with the caller's principal, and one that answers nothing
// outstanding (a late, repeated, unknown or another principal's id) is ignored. GET and
// DELETE are 405 with Allow: POST: there is no standalone stream, so list_changed and
// resources/updated are not pushed (initialize advertises neither).
//
// What the handlers see over stateless HTTP: the client's capabilities are unknown (a
// handler may ask for any input; the client answers one it does not support with an error),
// log messages go at the core's LegacyLogLevel ("info" by default: logging/setLevel is
// answered {} and not remembered), and the request's context carries the gate's or host's
// identity as for 2026-07-28.
//
// Server-to-client requests: when a handler needs input (elicitation, sampling, roots), the
// core sends real JSON-RPC requests with server-minted ids; the POST's response turns into an
// event stream (as for progress and logs), each request is an event on it, the client POSTs
// its answer to the endpoint (202), and the handler's final reply is the stream's last event.
// A client that never answers gets the request's deadline: the last event is -32603 "Request
// execution timed out". The answer may come to another replica when the replicas' cores
// share an EventBus (fastmcp.Config.EventBus): that replica publishes it and the one that
// waits for it completes the request; without a shared bus it must come to the same process
// (behind a load balancer, route by client). On the native listener a request normally runs
// inline on its connection goroutine, which cannot service a stream meanwhile: a request
// that needs the client there is run again on a worker (Stats.InlineReruns; the first run's
// work is repeated, as a new input round would repeat it). The log messages of an inline run
// are held and sent, when there are any, as an event stream of them and then the reply: at
// most 64 messages or 256 KiB, past which the handler's Log returns [ErrHeldNotesFull] and
// the message is dropped. A request with a progress token never runs inline.
//
// Cancellation: notifications/cancelled {requestId} withdraws the running initialize-era
// request with that id from the same principal ("" when there is no identity): the request
// is cancelled and gets no response at all (its event stream ends with no response event;
// a request that opened no stream has its connection closed unanswered), and the core
// withdraws its outstanding requests to the client. Ids are compared as JSON literals (1 and
// "1" differ). An id that two running requests of one principal share is ambiguous and
// cancels neither; an unknown id is ignored; initialize is never cancelled. The registry
// behind this (transport.Cancels) is endpoint-wide, and a request leaves it as soon as its
// outcome is known, before its answer is sent (Stats.ClientCancels
// counts the cancels). The revisions say a dropped connection SHOULD NOT be read as a
// cancel, but a stateless endpoint without resumable streams has nowhere to deliver the
// result: a client that goes away cancels its request, in both eras, as under
// "Cancellation".
//
// # Initialize-era sessions
//
// With [Config.LegacySessions] (off by default; `fastmcp-bench serve --legacy-sessions`) an
// initialize-era client gets a session that any replica serves, with no session table. Every
// replica must share the fastmcp.Server's StateKey (which seals the ids) and EventBus
// (which carries the session's messages); with the Server's defaults, one process is one
// endpoint as before.
//
//   - initialize answers with Mcp-Session-Id: sealed state (the negotiated revision, the
//     client's capabilities, the log level at start, the expiry, a nonce), bound to the
//     caller's principal, opened by every replica with the key; it also advertises
//     listChanged and resources.subscribe. Handlers of later requests see the declared
//     capabilities.
//   - Every later initialize-era request must carry it: none is 400 -32600 "Bad Request:
//     Mcp-Session-Id header is required" (repeated: "... header is repeated"); one that does
//     not open (forged, another principal's, past SessionTTL, or ended) is 404 -32600
//     "Session not found: initialize a new session", and the client initializes again. A
//     notification or response carrying an invalid one gets the same 404; a 2026-07-28
//     request ignores the header.
//   - GET with the id (Accept listing text/event-stream, else 406) opens the session's
//     stream (a subscription slot, as a listen stream: MaxSubscriptions), which starts with a
//     keepalive comment and carries, each event with an id "<lineage>-<seq>",
//     notifications/tools|prompts|resources/list_changed, notifications/resources/updated of
//     the URIs the session subscribed to, and the notifications published for the session
//     with [SessionNotification] (a log message only at or above the session's level). One
//     stream per session: a newer GET, on any replica, takes it over and the older one ends.
//     It ends at the session's expiry too.
//   - resources/subscribe, unsubscribe and logging/setLevel, POSTed to any replica, go over
//     the bus (fastmcp.SessionMessage, Topic a digest of the id, never the id) to the replica
//     holding the stream, which acknowledges within 500 ms; with no answer the receiving
//     replica keeps the change itself for ResumeTimeout and hands it over to the replica the
//     stream opens on. A level set is also remembered, bounded by MaxEndedSessions, by every
//     replica for the session's later requests' own log messages.
//   - DELETE ends the session: every replica hears it, its stream completes, and each
//     replica answers the id 404 until it would have expired (a bounded, expiring set of
//     ended sessions, MaxEndedSessions; past it the oldest is forgotten and its id works
//     again until its TTL).
//   - Last-Event-ID on a GET resumes: the events after it that the session still holds
//     (MaxReplayEvents, at most 256 KiB) are sent first, from whichever replica held the
//     stream (it hands its state over). What cannot be replayed is said plainly: the stream
//     starts with notifications/message {level:"warning", logger:"mcp-session",
//     data:{message:"Events after Last-Event-ID could not be replayed: they are older than
//     the replay window; re-list and re-read what you need" (or "... no replica holds that
//     stream any more; ..."), lastEventId}} (left out when the level is above warning),
//     then every list_changed and a resources/updated of every subscription, without ids.
//
// Session limits, each a [Config] field: SessionTTL (15 min, at most
// fastmcp.MaxSessionTTL: the sealer's bound; 404 past it), MaxSessionSubscriptions (256:
// 200 with -32602 "Invalid params: at most 256 resource subscriptions per session"; a URI
// longer than 2,048 bytes: -32602 "Invalid params: a subscribed URI is at most 2048
// bytes"), MaxReplayEvents (128: the warning above), ResumeTimeout (60 s: a stream's state
// outlives its GET that long; a resume after it gets the warning), MaxEndedSessions
// (100,000). Delivery is at most once per stream and in order per replica; a slow stream
// that falls behind MaxReplayEvents gets the warning and the re-read notices.
//
// # Limits
//
// Every limit has a default (the DefaultX constants) and the error a client sees. The
// connections' limits, the first four, are a [ListenerConfig]'s: the native listener's own
// (an application's server bounds its connections itself); the others, a [Config]'s, hold
// on every host:
//
//   - MaxConnections (1,024): a connection accepted at the cap is closed without being read.
//   - HeadTimeout (10 s): the head must arrive within it (400, connection closed).
//   - ReadTimeout (5 s): each read of a request, from its first byte to its body's end (400,
//     connection closed); the wait for the next request on a keep-alive connection is
//     IdleTimeout's.
//   - IdleTimeout (60 s): the wait for the next request (connection closed, no response).
//   - WriteTimeout (5 s): writing one response or one event (connection closed).
//   - BodyTimeout (10 s): the body, from the end of the head or gate admission (400; 408 in
//     the net/http adapter).
//   - MaxHeaderBytes (32 KiB): 431, connection closed. The net/http adapter measures the
//     head as net/http parsed it (the request line, one "Name: value" line per value, Host
//     included) in the handler, so the limit holds in any http.Server; a head past that
//     server's own MaxHeaderBytes plus net/http's 4 KiB of slack gets net/http's 431 instead,
//     with a text body.
//   - MaxBodyBytes (2,000,000): 413 before the body is read, connection closed (on net/http
//     too: the response is not held back while net/http drains the body).
//   - RequestTimeout (30 s): queue plus execution, 504 -32603 "Request execution timed out"
//     (on a stream, the last event); progress never extends it.
//   - RequestGateTimeout (10 s): 504; a gate that panics or misbehaves fails closed with 500
//     (a RequestGateQuick too, which no timeout bounds).
//   - Executor capacity (32 running, 256 queued by default): 503 -32603 "Server execution
//     capacity exhausted".
//   - MaxSubscriptions (256) open listen streams: 503 -32603 "Server subscription capacity
//     exhausted"; the slot returns when the stream's connection ends. The bytes the streams
//     hold for their subscriptions are bounded by the core's
//     [fastmcp.Config.MaxSubscriptionBytes] (64 MiB), with the same answer past it.
//   - KeepAliveInterval (15 s): comments on streams; a client that went away is noticed at
//     the next write, within two intervals.
//   - DrainTimeout (5 s): see [Server.Shutdown].
//   - DrainDelay (0: none): how long Shutdown serves, not ready, before it drains (see
//     "Health").
//
// The native listener's read and write deadlines are checked by a 10 ms tick shared by every
// connection, not armed per request: they never fire early, and up to 20 ms late (later in a
// starved process: after a tick ran late, by as much, for the length of the longest bound).
//
// # TLS
//
// With ListenerConfig.TLS (a *tls.Config) or ListenerConfig.TLSCertFile and TLSKeyFile, the native listener
// serves HTTPS and [Server.URL] names an https URL. It speaks HTTP/1.1 only, so ALPN offers
// http/1.1 alone (a client offering only h2 fails the handshake with no_application_protocol),
// and TLS 1.2 is the floor (a lower MinVersion or MaxVersion is invalid config; a per-client
// configuration from GetConfigForClient is held to both). The handshake runs on the
// connection's first read and counts as part of the head: HeadTimeout, timed from the
// accept, bounds handshake and head together, ReadTimeout and WriteTimeout each of their
// reads and writes, so a client that opens TCP and never completes the handshake, or
// trickles it, is closed at HeadTimeout with nothing written (Stats.HeadTimeouts), holding
// a MaxConnections slot until then. Certificates from files are looked at again by a
// handshake once TLSReloadInterval (10 s) has passed since the last look: a changed pair
// that loads takes over for new handshakes; one that does not (a mismatched key, a file
// missing mid-rotation) keeps the current certificate and is logged at error level. Bound
// beyond loopback without TLS, the listener logs a warning at Listen, even with a
// RequestGate (its credentials travel in plaintext); with TLS it is silent. Plain HTTP sent
// to the TLS listener is answered, in plaintext, 400 "Client sent an HTTP request to an HTTPS
// server." (as net/http answers it), and the connection closed.
//
// # Health
//
// With ListenerConfig.ServeHealth the native listener also answers GET and HEAD /healthz (200 "ok"
// while it serves HTTP) and /readyz (200 "ready" from Serve until Shutdown begins, then 503
// "not ready"), text/plain, Cache-Control: no-store; other methods get 405 with Allow: GET,
// HEAD. They answer before the RequestGate and skip the Origin and Host checks (a probe has no
// credentials and names the address it dialled; the answers reveal nothing). A drain closes
// the listening socket, so a probe of the main listener fails from then; a separate listener,
// a metrics listener's, serves the same answers through [HealthHandler] (net/http) or
// [HealthRequestHandler] (fasthttp) with [Server.Ready], and answers 503 while the drain
// finishes the requests in flight.
//
// Behind a load balancer that polls /readyz, set ListenerConfig.DrainDelay (default 0: none)
// to at least its check interval times the failures it needs to mark a server down, plus one
// interval: Shutdown then answers /readyz 503 while it goes on accepting and serving for that
// long, so the balancer stops sending before the socket refuses connections.
//
// # Cancellation
//
// fasthttp never tells a handler that the client went away, so the listener watches the
// connection of any request still running after 20 ms and cancels its context when the peer
// closes: within about 100 ms of the disconnect. Bytes that arrive meanwhile (a pipelined
// request) are kept for after the response and the watch goes on, up to MaxHeaderBytes of
// them; past that it stops reading, and a disconnect is noticed only when the response is
// written. A request whose client went away is answered only if it finished anyway (with
// its real reply), else not at all, never with an empty response. An end of stream is a
// disconnect: a client that shuts down its sending side (shutdown(SHUT_WR)) while its
// request runs cannot be told from one that closed, and is treated alike, as net/http and
// nginx do. Streams notice at their next write.
//
// On the net/http adapter, net/http cancels a request's context when its background read of
// the connection meets the end of the stream. That read stops at the first byte the client
// sends after its request (a pipelined request, a stray byte) and sees nothing after it. With
// [ConnContext] as the http.Server's ConnContext ([NewHTTPServer] sets it), the handler also
// probes the connection of a request still running every 50 ms, on Linux, by asking the
// kernel whether the peer shut its side or the connection failed (poll for POLLRDHUP,
// POLLHUP or POLLERR, which reads nothing and leaves a pipelined request to net/http), and
// cancels the request within about 50 ms of the peer's FIN or reset, whatever the client
// sent first. The probe finds the socket under the connection the server accepted through
// a *tls.Conn and through listener wrappers that have a NetConn method or embed the
// net.Conn (as golang.org/x/net/netutil.LimitListener's do); a connection with no socket
// under it (net.Pipe, a wrapper that hides its connection in an unexported field) is not
// probed. Over TLS, the probe sees the TCP close, not close_notify: a client that sent
// further bytes, then close_notify, and keeps its TCP connection open is noticed only when
// it closes it. Without ConnContext, or on other systems, a client that went away after
// sending such a byte is noticed only when the response is written: its work runs on to its
// end or to RequestTimeout. As with net/http's own watch, a client that only shuts down its
// sending side (a TCP half-close) counts as gone.
//
// # Other hosts
//
// [Endpoint] is the endpoint without a host, for one that parses HTTP itself. The host fills
// a [Request] from the head it read (method, routed path, authority, a [Headers] view, the
// head's size if known, Content-Length and whether a Transfer-Encoding was declared, the body
// or a reader of it, the identity its own authentication verified, a [Peer] if it can tell a
// closed connection) and calls [Endpoint.Prepare], which applies MaxHeaderBytes (431), the
// RequestGate, the admission order above, the framing (411, 413, before the body is read;
// Response.Close then asks for the connection to close), BodyTimeout on the read (408, when
// the host gives BodyDeadline) and the body's checks, in the native listener's words. A
// Prepared request goes to [Endpoint.Execute] with the request's context (cancelled when the
// client goes away) and a [Streamer]: Execute applies RequestTimeout (504), the executor's
// capacity (503) and MaxSubscriptions (503), and opens an event stream through the Streamer
// for progress or logs and for an acknowledged listen (keepalives every KeepAliveInterval,
// each event bounded by WriteTimeout when the Streamer gives a deadline). [Endpoint.Handle]
// does both. The host bounds the rest itself: connections, the head's arrival and size, idle
// keep-alive connections, and its own writes outside events. [NewHandler] is built on it.
//
// # Mounting in a fasthttp server
//
// [RequestHandler] serves the endpoint from an application's fasthttp.Server, or a Fiber v2
// app (c.Context() is the *fasthttp.RequestCtx; see the example of NewRequestHandler); the identity
// its authentication verified goes in with [SetIdentity]. fasthttp reads the head and the
// body before the handler runs, and the application owns the connections, so the handler
// enforces: MaxHeaderBytes on the head fasthttp read (431), the admission order, 411 for a
// Transfer-Encoding or no Content-Length, 413 past MaxBodyBytes, the gate (its timeout,
// 504), RequestTimeout, executor capacity, MaxSubscriptions, WriteTimeout on each event and
// keepalives on streams, and DrainTimeout in [RequestHandler.Close] (listen streams end with
// their completion response, then are closed). The application's fasthttp.Server must set:
//
//   - HeaderReceived: h.HeaderReceived and ErrorHandler: h.ErrorHandler, so that 413 and
//     411 are answered before the body is read (and BodyTimeout bounds it), in the
//     endpoint's words, and the RequestGate runs on the head: a request it answers is
//     answered without its body being read or invited with "100 Continue", and its
//     connection closed. Without them fasthttp reads such a body (up to its own
//     MaxRequestBodySize) first, and the gate runs after it; Fiber exposes neither, so set
//     its BodyLimit to MaxBodyBytes.
//   - ReadBufferSize at least MaxHeaderBytes (fasthttp answers a larger head itself, with
//     431), MaxRequestBodySize at least MaxBodyBytes, ReadTimeout (HeadTimeout and
//     ReadTimeout's role), IdleTimeout, and Concurrency (MaxConnections' role).
//   - Its WriteTimeout bounds JSON responses only: a stream disables it for its response and
//     bounds each event instead.
//
// Streams: a request that reports progress turns into an event stream through
// SetBodyStreamWriter (chunked, with the application's response headers, the connection
// kept alive after it). A listen stream hijacks the connection, as on the native listener:
// the fasthttp worker and its buffers are released (with KeepHijackedConns false, fasthttp's
// default, the hijack goroutine holds its request context for the stream's life), the head,
// with the headers the application set before the handler ran, goes out at the
// acknowledgement, and the connection closes when the stream ends; fasthttp's Shutdown does
// not see hijacked connections, which is what Close is for. fasthttp never tells a handler
// that its client went away: on Linux the handler probes the connection of a running request
// every 50 ms (POLLRDHUP on the socket under ctx.Conn(), found as on the net/http adapter,
// which reads nothing; elsewhere, or with no socket under the connection, a disconnect is
// noticed only when the response is written), and a stream notices at its next write.
package streamable
