// Package gateway serves the catalogs of several MCP servers (backends) from one
// fastmcp.Server: the tools, prompts, resources and resource templates of each backend are
// registered into it, and a request for one of them is forwarded to its backend with the
// client package. It has no transport of its own: serve the Server with streamable or
// stdio as any other, with their TLS, authorization, limits and metrics.
//
//	srv, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "edge", Version: "1"}, nil)
//	web, _ := gateway.ParseBackend("web=https://mcp.example.com/mcp")
//	local, _ := gateway.ParseBackend("local=stdio:my-mcp-server --flag")
//	g, err := gateway.New(srv, gateway.Config{Backends: []gateway.Backend{web, local}})
//	if err != nil {
//		return err
//	}
//	g.Start(ctx) // returns once each backend was tried
//	defer g.Close()
//	// serve srv with streamable.New(srv, …) or stdio.Serve(ctx, srv, …)
//
// # Backends
//
// An HTTP backend is a URL of either protocol era: the client finds out at connection
// (server/discover, else initialize), so a 2026-07-28 caller can use an initialize-era
// backend and the reverse; the Server answers each caller in its own era. A stdio
// backend is a command started by the Gateway, its standard error logged line by line
// (at most 4 KiB a line), its output lines bounded by the client's MaxLineBytes.
//
// Each backend is supervised: connect, read the catalog, then follow its list_changed
// notifications (a listen stream, or an initialize-era server's notifications over stdio
// or on its session's GET stream) and ping it every HealthInterval. When the connection
// fails, the Gateway waits and connects again (a stdio backend: a new process), the wait
// doubling from MinRestartDelay (100 ms) to MaxRestartDelay (30 s) and starting over once
// a connection has lasted MaxRestartDelay. An initialize-era HTTP backend without an event
// stream (a stateless one) cannot announce changes: its catalog is re-read every HealthInterval
// (as is any backend's whose listen stream could not be opened, which is asked for again).
// The stream is opened before the backend counts as up, and the catalog read again once it
// is acknowledged, so no change falls between the two. A backend's list_changed becomes
// the Gateway's: what changed in the catalog is announced by the Server, and an
// announcement that changed nothing the Gateway serves is forwarded as it came. Re-reads
// are coalesced: one runs at a time, and the notifications that come meanwhile make one
// pending re-read, however many they are (a backend that floods list_changed costs one
// re-read in flight and one pending, and its callers one announcement per re-read).
//
// # Names
//
// With one backend the Gateway is transparent: names and URIs are served unchanged. With
// several, each backend's names are prefixed with its name and [Separator] ("__"), and its
// resource URIs (and URI templates) with its name and [SchemeSeparator] ("+"):
//
//	tool "forecast" of backend "weather"     -> "weather__forecast"
//	resource "file:///a.txt" of backend "docs" -> "docs+file:///a.txt"
//
// A backend name is [a-z][a-z0-9-]{0,31}: it holds no '_', so the first "__" ends it, and
// [SplitName] and [SplitURI] invert the mapping exactly. An entry the Server cannot serve
// (a namespaced name past 128 characters or with characters tool names do not allow, an
// unsupported URI template, a duplicate) is left out and logged. Resource contents read
// through the Gateway carry the Gateway's URI; URIs inside tool results are not rewritten.
//
// # Forwarding
//
// A call reaches its backend under the backend's own name with the caller's arguments; the
// backend's result comes back unchanged (content blocks as sent, structuredContent,
// isError, _meta without the backend's serverInfo), and its JSON-RPC error keeps its code,
// message and data. Progress is asked of the backend when the caller asked for it, and
// forwarded; the caller's cancellation cancels the backend's call. Completion requests on
// a prompt or template go to its backend when it declares completions.
//
// # Resource subscriptions
//
// A backend that declares resources.subscribe is subscribed, on the Gateway's listen stream
// to it (resources/subscribe on an initialize-era session), to every resource it lists, at
// most fastmcp.MaxResourceSubscriptions (1,000, in URI order; the rest is logged and gets
// no updates); its notifications/resources/updated is announced by the Server under the
// Gateway's URI, and reaches the callers subscribed to that URI (a listen stream's
// resourceSubscriptions, or an initialize-era session's resources/subscribe) and no other.
// When a re-read changes the backend's resources, the stream is opened again with the new
// list. Resources behind templates are not subscribed (their URIs are not listed).
//
// # Log messages
//
// The notifications/message a backend sends during a tools/call, prompts/get or
// resources/read reach the caller on that request's own stream, in order, with their
// level, logger and data, when the caller gets log messages at all: a 2026-07-28 caller
// that set _meta["io.modelcontextprotocol/logLevel"], an initialize-era one at its
// session's or connection's level (logging/setLevel, else the Server's LegacyLogLevel,
// "info"). The backend is asked at the caller's level: a 2026-07-28 backend in the call's
// _meta; an initialize-era backend logs at its own session's or connection's level (the
// Gateway sends it no logging/setLevel, which would hold for every caller), so the caller
// gets the messages at or above both. A caller that gets none is not asked for any.
//
// What tells a backend's message to its call: over HTTP, the call's own response stream
// (an initialize-era backend's messages on its session's GET stream belong to no call and
// are not forwarded); over stdio nothing does (a log message names no request), so a stdio
// backend's message is forwarded only when its call is the only request in flight on that
// connection (the Gateway's own health checks and catalog reads count), and otherwise not
// forwarded (Config.Client.OnLog gets it, when set) rather than risk telling the wrong
// caller. A call to an initialize-era backend parked for input (see below) forwards its
// progress and log messages to the caller's round that waits for it, first or retry; what
// comes between rounds is dropped.
//
// Nothing of the caller's request but its arguments (and its trace context, below) reaches
// a backend: no header, and never the caller's credentials (no token passthrough). A
// backend gets the credentials Config.Client gives it.
//
// # Trace context
//
// A forwarded call carries a W3C trace context in its _meta (traceparent and tracestate,
// in either era): the one Config.TraceContext gives, the Gateway's own span (fastmcp-bench
// serve --trace sets observe.SpanTraceContext, so the backend's span is the child of the
// Gateway's), else the caller's own, passed on as it came (at most 512 bytes each; the
// backend validates it, as any receiver must). The caller's baggage is not passed on: it
// was addressed to the Gateway.
//
// # Credentials
//
// A backend's own credentials are Backend.Credentials, sent to HTTP backends only (a stdio
// backend with credentials is a configuration error: it takes its own from Env):
//
//   - Authorization: a static header, sent with every request. A refusal of it (401, or
//     403 with a challenge) fails with ErrCredentialsRefused.
//   - OAuth: a client pre-registered with its Issuer (ClientID, and ClientSecret or a
//     PrivateKey for private_key_jwt) that gets its tokens with the client credentials grant
//     (package client/oauth) when the backend first refuses a request, for the backend's URL
//     (RFC 8707), keeps them across reconnections, and asks again when one is refused.
//   - Headers: further static headers by name (an API key such as X-API-Key, a tenant),
//     sent with every request beside either of the above or alone. A name must be an HTTP
//     token and none of the headers the client writes itself (Host, Content-Type, Accept,
//     Authorization, Mcp-*, …: client.CredentialHeaderName), else a configuration error.
//
// A backend without credentials that asks for authorization fails with ErrNoCredentials,
// and nothing is fetched (unless Config.Client has an Authorizer: it then serves every
// backend without credentials of its own). A backend cannot make the Gateway fetch
// arbitrary URLs: the resource_metadata of its 401, the authorization_servers of that
// metadata and the endpoints of an authorization server's metadata are the backend's to
// name, so its OAuth client fetches only from the backend's origin, the Issuer's and
// OAuthClient.AllowedOrigins (scheme://host[:port], for a token endpoint on another host);
// redirects are never followed, and client/oauth's rule holds besides (https, or http on
// loopback). Another URL is not requested: the refusal is logged at error level
//
//	gateway: refused to fetch a URL the backend's authorization named: not the backend's origin, its issuer's or an allowed origin
//
// with the URL (without its query), and that whole authorization fails with
// ErrFetchRefused, every later fetch of it refused too (the OAuth client would otherwise go
// on to the well-known URLs of the backend's origin: a backend that names another origin is
// refused, not worked around). In each case the request refused fails: at connection the
// backend is down with the error in Status.Err; during a call the caller gets the
// unavailable error (see A backend that is down) and the backend is checked at once. The
// reason is logged, never sent.
//
// A Secret (the header, a client secret) prints, logs and marshals as "[redacted]", and an
// OAuthClient as its client id and issuer alone, so that a Backend can be logged whole.
// [ParseConfig] and [LoadConfigFile] read backends and their credentials from a JSON
// configuration (fastmcp-bench serve --gateway-config): a credential is "env:NAME" or
// "file:PATH", never a literal; the file is bounded at MaxConfigFileBytes (1 MiB) and a
// credential file at MaxSecretFileBytes (64 KiB), refused past them with
// "gateway: invalid configuration: config file PATH: larger than 1048576 bytes
// (MaxConfigFileBytes)" (and "…: PATH: larger than 65536 bytes (MaxSecretFileBytes)"). JSON
// because the standard library reads it strictly: an unknown field is an error naming it
// (backends[0]: unknown field "maxConcurent"), so that a typo cannot drop a limit
// unseen (field names match regardless of case, as encoding/json matches them). Its
// "headers" object takes Authorization and any further header, each named once whatever its
// case.
//
// # Tasks
//
// A 2026-07-28 backend that declares the tasks extension (io.modelcontextprotocol/tasks)
// has its tasks pass through: the Server serves the extension from the first such backend
// on (unless Config.NoTaskPassThrough: a Server with a tasks extension of its own). A caller's
// tools/call that declares the extension, for that backend's tool, reaches the backend
// declaring it too; the backend decides, as for any client: its result, its round of input
// requests (relayed as any call's), its -32021, or a task. Its CreateTaskResult reaches the
// caller as sent (without the backend's _meta) under a task id of the Gateway's,
//
//	MAC.BACKEND.ID
//
// the backend's own id behind the backend's name, and an HMAC-SHA256 (16 bytes, base64url)
// of the caller's principal, the backend and its id under the first of Config.TaskIDKeys
// (Gateway.SetTaskIDKeys rotates them; any key verifies). The callers share the Gateway's one
// credential at the backend, so the id binds the task to its caller: another principal's id,
// a forged or altered one reads exactly like an unknown task,
//
//	{"code":-32602,"message":"Invalid params: unknown task"}
//
// and never reaches a backend. tasks/get, tasks/update and tasks/cancel with the Gateway's
// id reach the backend's task from any replica holding the keys (no replica keeps
// anything); their answers come back as the backend sent them, the id replaced, and its
// errors as any call's. A backend's task id longer than 256 bytes, or not visible ASCII (it
// travels in the Mcp-Name header too), is a malformed answer. A caller that does not declare
// the extension gets what the backend answers such a call: a tool that may run as a task
// runs at once, one that must answers -32021 with its data. The per-backend limits count
// each tasks/* request as a call.
//
// A caller's subscriptions/listen with notifications.taskIds (at most MaxListenTaskIDs,
// 100) opens each of its ids and listens, on a stream of the Gateway's own to each backend
// concerned, for as long as the caller's stream lasts: the backends' notifications/tasks
// reach the caller under its ids (without the backend's _meta), and the acknowledgement
// lists the ids the backends agreed to report (another principal's, a forged or an unknown
// one is left out). An undeclared request asking for taskIds is -32021 (HTTP 400). A caller
// more than 64 notifications behind misses the excess: tasks/get stays the baseline.
//
// # A backend that is down
//
// Its entries stay listed (so that a flapping backend does not make every caller re-list),
// and each request for one is answered at once with the JSON-RPC error
//
//	{"code":-32603,"message":"Backend \"NAME\" is unavailable","data":{"backend":"NAME"}}
//
// as is a call whose connection breaks meanwhile (a stdio process that dies, a refused
// connection; the backend is then checked at once), and one that its open circuit breaker
// refuses (see Limits). Why it is down is logged, never sent.
// When it comes back its catalog is read again and the Server's entries updated.
// [Gateway.Status] reports each backend's state.
//
// # A backend that answers badly
//
// A backend that is up but answers one call badly fails that call alone, with -32603 and
// the same data; the detail is logged, never sent:
//
//	{"code":-32603,"message":"Backend \"NAME\" sent a malformed answer","data":{"backend":"NAME"}}
//	{"code":-32603,"message":"Backend \"NAME\" sent an answer larger than the gateway accepts","data":{"backend":"NAME"}}
//	{"code":-32603,"message":"Backend \"NAME\" did not answer in time","data":{"backend":"NAME"}}
//	{"code":-32603,"message":"Backend \"NAME\" refused the gateway's authorization for this request","data":{"backend":"NAME"}}
//
// The last for a refusal of the Gateway's own credential (see Credentials) that its
// Authorizer could not answer: a 403 with a challenge (a scope this call needs and the
// credential lacks) concerns that call alone, and counts nowhere against the backend; a
// 401 also has the backend checked at once, so that a credential refused outright shows as
// down in Status. The caller's own credential is never the cause: it is never sent.
//
// The first for an answer that is not JSON, not a JSON-RPC response to the call, or a
// result the Gateway cannot carry (a tool's content that is not a list of objects, a
// prompt's message content or a resource's blob it cannot read); over stdio a line cut
// short fails its call at once when its id can be read, else at RequestTimeout. The second
// for an answer past the client's MaxResponseBytes (a body, an event, a stdio line), which
// the client stops reading there: the Gateway holds at most MaxResponseBytes of it. In both
// the backend stays up and the connection is kept (an HTTP one is closed and redialled by
// the client's pool). The third for a call that passed the client's RequestTimeout: the
// backend's request is cancelled (notifications/cancelled over stdio, the HTTP connection
// closed) and the backend checked at once, so that one that hangs entirely fails its health
// check within ConnectTimeout and is reconnected. A call that hangs holds only its own
// caller: calls to other backends, and to this one, go on beside it.
//
// # Limits
//
//   - MaxBackends (64, DefaultMaxBackends) backends per Gateway: New fails with
//     "gateway: invalid configuration: N backends, more than MaxBackends (64)"
//     (errors.Is ErrInvalidConfig).
//   - MaxCatalogEntries (1,024) tools, prompts, resources and templates together per
//     backend, counted while its pages are read (the rest is not read): the catalog is
//     refused with "gateway: backend catalog exceeds MaxCatalogEntries (1024)" (errors.Is
//     ErrCatalogTooLarge, in Status.Err and the log), and the backend is down as above,
//     retried with the backoff.
//   - ConnectTimeout (10 s) per connection attempt, catalog included, and per catalog
//     re-read and health check of a connected backend: a re-read or check past it ends the
//     connection (the backend is down as above, and reconnected with the backoff).
//   - One catalog re-read in flight and one pending per backend, whatever the number of
//     list_changed notifications (see Backends); the client's ListenBuffer (64)
//     notifications wait for the Gateway, newer ones are dropped (a re-read is pending
//     then anyway).
//   - The client's RequestTimeout (30 s, client.DefaultRequestTimeout) per forwarded call:
//     past it the caller gets "Backend \"NAME\" did not answer in time" (see above). The
//     caller's own deadline, when sooner, ends the call with the caller's error.
//   - The client's MaxResponseBytes (16 MiB, client.DefaultMaxResponseBytes) per answer
//     body, event or stdio line: past it "Backend \"NAME\" sent an answer larger than the
//     gateway accepts". At most that much of one answer is held while it is read.
//   - fastmcp.MaxProgressUpdates (1,000) progress notifications forwarded per call, as
//     for any handler; log messages are forwarded as they come, each handed to the caller's
//     stream before the next is read from the backend: the Gateway queues none, and a
//     backend that floods them goes at the caller's pace.
//   - The client's other bounds (Config.Client): pages, input rounds, pool size.
//
// Per backend (fields of Backend, zero for the default, negative invalid), over the
// requests forwarded to it (tools/call, prompts/get, resources/read, completion/complete;
// not the Gateway's health checks and catalog reads; a retry resuming a parked call is not
// a new call), across all of its entries. The core's component wrappers (fastmcp.Timeout,
// Concurrency, RateLimit) count per component and answer a tool's refusal as an isError
// result, so these are the Gateway's own; a refused call never reaches the backend and holds
// nothing once answered:
//
//   - Timeout (default: the client's RequestTimeout alone) per call: past it the caller gets
//     "Backend \"NAME\" did not answer in time", as above. A Timeout longer than the
//     client's RequestTimeout raises this backend's RequestTimeout to it.
//   - MaxConcurrent (default: unlimited) calls in flight: the call past it is refused at
//     once with the first error below (it does not wait: a waiting caller would hold its
//     stream and the Gateway's memory; retrying is the caller's choice).
//   - Rate calls a second with Burst at once (a token bucket, full at first; default:
//     unlimited, Burst the rate rounded up): the call past them is refused at once with the
//     second error below.
//   - A circuit breaker: BreakerFailures (5, DefaultBreakerFailures) calls in a row that fail
//     on the transport or time out (an answer, even a JSON-RPC error or a malformed one,
//     ends the run; a caller that leaves counts for nothing) open it, and calls are then
//     refused at once, without reaching the backend, with the unavailable error above. After
//     BreakerCooldown (5 s, DefaultBreakerCooldown), or at once when the backend is
//     reconnected, it is half-open: the next call is its probe, the others are refused
//     meanwhile; the probe's answer closes it, its failure opens it again. The probe is a
//     real call, not the health check: a backend whose calls hang may well answer pings.
//     The breaker holds for the whole backend (one tool that hangs opens it for all).
//
// The refusals of MaxConcurrent and Rate:
//
//	{"code":-32603,"message":"Backend \"NAME\" has too many calls in flight","data":{"backend":"NAME"}}
//	{"code":-32603,"message":"Backend \"NAME\" is over its rate limit","data":{"backend":"NAME"}}
//
// [Gateway.Status] reports each backend's breaker state, calls in flight and calls by
// outcome and refusal ([CallStats]); [Gateway.Ready] holds while at least one backend is up
// with its breaker not open. fastmcp-bench serve exports them as Prometheus series and in
// /readyz.
//
// # Requests for input
//
// A 2026-07-28 backend's input_required result (tools/call, prompts/get, resources/read)
// reaches the caller with its inputRequests unchanged; the backend's requestState rides
// inside the Gateway's, which the Server seals (Config.StateKeys of the fastmcp.Server:
// share them between replicas). The caller's retry, on any replica, reaches the backend
// with the caller's inputResponses and the backend's own requestState: no replica keeps
// state. The backend is told the caller's elicitation, sampling and roots capabilities, so
// a caller that lacks one gets the backend's -32021 as it was. An initialize-era caller
// gets real server-to-client requests from the Server's bridge, and its answers go on as
// the retry.
//
// An initialize-era backend asks with server-to-client requests during a call (the
// Gateway declares elicitation (form), sampling and roots to it). The call then keeps
// running on this replica, parked, and its request becomes an input_required round for
// the caller, one request a round, keyed "elicitation_N", "sampling_N" or "roots_N" (the
// backend's requests have no keys); the retry's answer goes to the backend as the
// request's result. Requests a backend sends at once are asked in successive rounds, in
// the order they are read: a call's event stream is read in order (the next request is read
// once the previous one is answered), and over stdio each waits for the round before it. A caller that does not declare the capability has the request
// answered for it with -32601 "The client does not support METHOD", and the call goes on.
// An initialize-era caller over stateless HTTP declared its capabilities to no one the
// Server remembers: it is sent every request, as the Server's bridge does for handlers. An
// initialize-era caller's parked call ends with its request, within which the bridge runs
// every round (a request the transport serves again elsewhere leaves no call behind).
// A parked call lives on the replica that parked it. When the gateway replicas share a bus
// (fastmcp.Config.EventBus, serve --bus), a retry that lands on another replica is carried
// to it: the replica that got the retry publishes the caller's answers for the parking one,
// which takes the call, says so at once, and publishes the call's outcome back (the next
// round, parked there again, or the result or error), with which the retry is answered. The
// caller's going away cancels the backend's call there too. Progress and log messages of a
// round carried this way are not forwarded. An outcome past fastmcp.MaxEventData (1 MiB)
// cannot be carried: the caller gets "Backend \"NAME\" sent an answer larger than the
// gateway accepts". When the parking replica does not say it took the call within
// ConnectTimeout (it stopped, or the bus is down), the retry is answered
//
//	{"code":-32603,"message":"The gateway replica holding the backend request waiting for this input did not answer"}
//
// Without a shared bus the retry is refused with
//
//	{"code":-32602,"message":"Invalid params: the backend request waiting for this input is held by another gateway replica"}
//
// (route a caller's requests to one replica, or share a bus), and a retry after the call
// ended (answered, cancelled, or past InputTimeout) with
//
//	{"code":-32602,"message":"Invalid params: the backend request waiting for this input has ended (answered, expired or cancelled)"}
//
// Limits: InputTimeout (60 s) per wait for the caller's retry, after which the backend's
// call is cancelled; the client's RequestTimeout still bounds the whole call. A retry
// carried to another replica waits ConnectTimeout for it to take the call, then at most
// InputTimeout and ConnectTimeout more for the outcome ("Backend \"NAME\" did not answer
// in time" past them). At most
// MaxParkedCalls (1,024) calls parked at once: the call past it is cancelled and its
// caller gets {"code":-32603,"message":"Too many backend requests waiting for input"}.
// Over stdio the protocol does not say which call a server request belongs to: a stdio
// backend's request that comes while more than one call to it runs is refused (-32603)
// rather than risk asking the wrong caller.
//
// Not yet built (see issue 23):
// limits and breakers per entry rather than per backend, and a concurrency cap that queues
// rather than refuses. Paging across backends is the Server's: every backend's catalog is
// read whole (within MaxCatalogEntries) and the Server pages the union.
package gateway
