// Package client is an MCP client for servers of both protocol eras: 2026-07-28 (no
// handshake, per-request _meta, multi round-trip requests) and the initialize era
// (2025-11-25, 2025-06-18), over a pooled HTTP transport built on fasthttp, or over stdio.
//
// # Connecting
//
// [Connect] takes an http(s) URL of the server's endpoint, or an empty target with
// Config.Command to start a server over stdio. By default (EraAuto) Connect talks to the
// server: it sends server/discover and settles on 2026-07-28 when the answer is a modern
// result whose supportedVersions include it; otherwise (an error, a result with neither
// resultType nor supportedVersions, only initialize-era versions, no answer to the stdio
// probe within 2 s) it
// performs the initialize handshake, offering the newest revision both sides speak. A
// server that cannot be reached fails Connect. Config.Era pins an era instead: EraModern
// (Connect sends nothing, and takes a result without resultType as complete), EraLegacy
// (initialize offering 2025-11-25) or EraLegacy20250618 (initialize at 2025-06-18 only).
//
// # Sessions
//
// A sessionful initialize-era HTTP server (one that issues Mcp-Session-Id) may forget the
// session: it restarted, or expired it, and answers 404 to a request naming it. The client
// then starts a new session with initialize, sent without the old id, and sends the request
// once more: the 404 answered the POST itself, so the server did not run it (tools/call
// included). A request whose event stream broke and whose resumption the server then
// refused is not sent again, as it may have run; its error wraps the 404, and the next
// request uses the new session. The old session's subscriptions end (EndRemote); a later
// Listen uses the new session's GET stream. Close ends a session with DELETE, bounded by
// 2 s (or RequestTimeout when shorter); its failure is ignored.
//
// # Errors
//
// A JSON-RPC error response is an [*Error], matched to the request by id (an error with
// another request's id is ErrMalformed; id null is accepted). Over HTTP every non-2xx
// response is an [*HTTPError] with its Status, whatever its body; when the body is a
// JSON-RPC error, that *Error is HTTPError.Err and errors.As finds it too (a modern
// server's 400 -32022, a session's 404). A step that fails names itself once:
// "client: connecting to host:port: …", "client: waiting for the response head: …".
//
// To drive a server core in the same process (an application's unit tests, measurements), use
// package client/inprocess: it returns the same Client with no transport. This package never
// imports the server core or its executor, so a program that only dials servers links neither.
//
// # What a call does
//
// Every modern request carries _meta (protocolVersion, clientCapabilities from the configured
// input handlers, clientInfo) and, over HTTP, the mirrored MCP-Protocol-Version, Mcp-Method,
// Mcp-Name and Mcp-Param-* headers (values that are not plain ASCII travel as
// =?base64?…?=). A server error is an [*Error]; a tool's own failure is a result with IsError.
// An input_required result is answered with the configured handlers and retried, with a new
// id and the server's exact requestState, up to MaxInputRounds. On a legacy connection the
// same handlers answer the server's requests, which arrive on the call's event stream and are
// answered by a separate POST. Cancelling a call's context cancels it on the server: by
// closing its connection (modern HTTP) or with notifications/cancelled (legacy).
//
// # Tasks
//
// [Client.CallToolTask] calls a tool declaring the Tasks extension
// (io.modelcontextprotocol/tasks) in that request's _meta clientCapabilities only; every
// other request declares nothing, so the server never answers it with a task (and a
// CreateTaskResult to anything but a declaring tools/call is ErrMalformed). The server
// decides: the tool's result, or a [TaskHandle] to follow with Get (tasks/get), Update
// (tasks/update, answers to the task's input requests), Cancel (tasks/cancel) and Await,
// which polls at the server's pollIntervalMs until the task ends and answers its input
// requests with the configured handlers, each key once; AwaitListen also takes the
// notifications/tasks of a subscriptions/listen stream with taskIds. [Client.Task] makes a
// handle from a task id kept from earlier. Over HTTP the tasks/* requests carry Mcp-Name =
// taskId. A tool the server runs only as a task refuses CallTool with -32021 (errors.Is
// ErrTasksRequired); an unknown, expired or foreign task is -32602 (ErrUnknownTask). On an
// initialize-era connection the extension is not defined: CallToolTask is a plain call, and
// tasks/* requests fail with ErrTasksNotDefined.
//
// # Subscriptions
//
// [Client.Listen] opens a [Subscription]. On a modern connection it is a subscriptions/listen
// request. On an initialize-era connection there is none: the subscription takes what the
// server sends unasked, of the kinds its filter asks for and the server's initialize
// capabilities announce (tools, prompts and resources listChanged; logging for
// ListenFilter.LogMessages), and the filter's URIs are subscribed with resources/subscribe
// when the server declares resources.subscribe (once each, however many subscriptions list
// them; resources/unsubscribe when the last one ends, if the connection is still up). A URI
// the server refuses is left out of Acknowledged. Where the unsolicited notifications come
// from depends on the transport:
//
//   - stdio: the server's output, which carries them whenever it likes.
//   - HTTP, a sessionful server (it issued Mcp-Session-Id): the session's GET event stream,
//     opened after initialize and shared by every subscription; Listen opens a new one if
//     the server ended it.
//   - HTTP, a server whose GET is refused (405, as a stateless one such as fastmcp's
//     streamable answers): nothing can arrive outside a request, not even resources/updated
//     for a subscribed URI, so Listen fails at once with [ErrNoEventStream].
//
// A subscription ends as a modern one does: EndLocal on Close or when its context ends;
// EndGraceful when the server ends it (modern: the listen response; legacy HTTP: the GET
// stream ending at an event boundary); EndRemote with the error otherwise (the stream broke,
// the stdio server exited: ErrServerExited, or the Client was closed: ErrClosed).
//
// # Log messages
//
// Config.OnLog receives every notifications/message, from a call's stream or outside any,
// in both eras and over every transport (a modern request then carries logLevel, at
// Config.LogLevel). It runs on a goroutine of its own so a slow hook never holds the reader.
//
// [WithLog] asks for one call's log messages at a level of its own, and takes the ones on
// the call's stream from OnLog: its callback runs on the reading goroutine, in order, and
// never after the call returns, as WithProgress's. An initialize-era server logs at its
// session's level (WithLog sends no logging/setLevel; it drops what is below its level);
// over stdio, where a log message names no call, a WithLog call gets those that come while
// it is the only call pending.
//
// [WithTraceContext] sends a W3C traceparent and tracestate in a call's _meta, in either
// era, so that the server's span joins the caller's trace.
//
// # Lists
//
// ListTools, ListResources, ListResourceTemplates and ListPrompts follow every page. The
// iterators Tools, Resources, ResourceTemplates and Prompts fetch a page when the previous
// one is used up (for t, err := range c.Tools(ctx)); List…Page takes and returns cursors,
// one page at a time.
//
// # Progress and timeouts
//
// [WithProgress] asks for a call's progress, routed by its token from whichever stream
// carries it (a session's GET stream included); no callback runs after the call returns.
// RequestTimeout bounds the call whatever the
// progress, unless Config.ResetTimeoutOnProgress is set (off by default, as the TypeScript
// client's resetTimeoutOnProgress): then each progress notification restarts RequestTimeout,
// and Config.MaxTotalTimeout bounds the whole call.
//
// # Authorization
//
// Config.Authorizer gives every HTTP request its credentials (Authorization, and DPoP for a
// DPoP-bound token) and answers the server's challenges: a 401, or a 403 with
// WWW-Authenticate, goes to [Authorizer].Challenge, and the request is sent again when it
// returns nil. Package client/oauth is an OAuth 2.1 Authorizer as the MCP authorization
// spec asks of clients (discovery, registration, PKCE, step-up, refresh, DPoP).
//
// # Limits
//
// Each has a default and an error to test with errors.Is:
//
//   - PoolSize (16) connections per client; a request waits up to RequestTimeout for one:
//     ErrPoolTimeout.
//   - PoolIdleTimeout (30 s), by a timer while connections are idle, and
//     PoolMaxRequests (1000): the connection is closed and counted in [PoolStats].Retired.
//   - RequestTimeout (30 s) per request, from waiting for a connection to the response's end:
//     an error wrapping context.DeadlineExceeded.
//   - MaxTotalTimeout (10 min) per call whose timeout restarts on progress
//     (ResetTimeoutOnProgress): an error wrapping context.DeadlineExceeded.
//   - MaxResponseBytes (16 MiB) per body or event, checked while reading: ErrResponseTooLarge.
//     An event's data is held in one buffer that never grows past it.
//   - MaxPages (1,000) per List call: ErrTooManyPages; a repeated cursor: ErrRepeatedCursor.
//   - MaxInputRounds (10) per call: ErrTooManyRounds.
//   - TaskAwaitTimeout (60 s) per Await whose context has no deadline: an error wrapping
//     context.DeadlineExceeded (the task keeps running). Await polls at the server's
//     pollIntervalMs, never more often than MinTaskPollInterval (50 ms), and every
//     DefaultTaskPollInterval (1 s) when the server gives none.
//   - ListenBuffer (64) notifications waiting per Subscription; newer ones are dropped and
//     counted (Subscription.Dropped), in both eras.
//   - LogBuffer (64) log messages waiting for Config.OnLog; newer ones are dropped and
//     counted (Client.LogsDropped).
//   - MaxAuthChallenges (4) authorization challenges answered per request (with an
//     Authorizer); the next refusal fails it with *HTTPError (its status, 401 or 403).
//   - 5 resumptions (GET with Last-Event-ID) of a legacy call's event stream that ends
//     before its response: ErrTooManyResumes.
//   - 2 s (or RequestTimeout when shorter) for the DELETE that Close sends to end a legacy
//     session; past it Close goes on, the session left to the server's expiry.
//   - Over stdio, Close waits up to DefaultCloseTimeout (2 s) for the lines already queued
//     (a timed-out call's notifications/cancelled) to be written, then for the server to
//     exit; a response line that is not JSON-RPC but names a pending call's id fails that
//     call with ErrMalformed.
//
// A connection is reused only after an HTTP/1.1 response with a complete Content-Length body
// and no Connection: close; event streams detach from the pool and close their socket at the
// end, and chunked, close-framed, malformed or failed responses close theirs.
package client
