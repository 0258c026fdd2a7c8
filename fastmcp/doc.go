// Package fastmcp is the protocol core of an MCP (Model Context Protocol) server for revision
// 2026-07-28: the stateless protocol with no initialize handshake, where every request carries
// its protocol version and client capabilities in params._meta; and beside it, for the clients
// that open with initialize, the initialize-era revisions 2025-11-25 and 2025-06-18 (see
// "Initialize-era dialects" below).
//
// The core knows no transport. A [Server] holds the registered tools, resources, resource
// templates and prompts, and serves one JSON-RPC message at a time: a transport serves
// messages decoded by package decode through the Server's side for transports (package
// fastmcp/transport), and [Server.Dispatch] serves raw bytes, for tests and simple
// embeddings. Notifications that belong to a request (progress, log messages, a
// subscription's events) go to the [Sink] the transport passes in. The transports are
// packages of their own: stdio (newline-delimited JSON-RPC) and streamable (Streamable HTTP,
// on fasthttp or net/http). Every method of the core is served:
// server/discover, tools/list, tools/call, prompts/list, prompts/get, resources/list,
// resources/templates/list, resources/read, completion/complete and subscriptions/listen.
//
// # Example
//
// A server with one tool, called through Dispatch with literal bytes, as a transport would:
//
//	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	type In struct {
//		City string `json:"city" description:"City name"`
//	}
//	fastmcp.AddTool(s, fastmcp.Tool{Name: "forecast", Description: "Tomorrow's weather"},
//		func(ctx context.Context, r *fastmcp.Request, in In) (fastmcp.ToolResult, error) {
//			return fastmcp.ToolResult{Text: "Sunny in " + in.City}, nil
//		})
//	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast",` +
//		`"arguments":{"city":"Oslo"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
//		`"io.modelcontextprotocol/clientCapabilities":{}}}}`
//	fmt.Println(string(s.Dispatch(context.Background(), []byte(req), nil)))
//	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text",
//	// "text":"Sunny in Oslo"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}}
//
// Serving it over standard input and output is one more line, stdio.Serve(ctx, s,
// stdio.Config{}); over HTTP, streamable.New(s, streamable.ListenerConfig{...}).
//
// # Requests
//
// Every request must carry params._meta["io.modelcontextprotocol/protocolVersion"] and
// ["io.modelcontextprotocol/clientCapabilities"]; without them it is -32602. A version other
// than [Version] is -32022 with data.supported and data.requested. The optional reserved keys
// clientInfo, logLevel and progressToken are checked when present (-32602), the W3C trace
// context is available through [Request.TraceContext], other keys must follow the key grammar
// (an optional dotted prefix and a slash, then a name), and everything the client sent reaches
// handlers unchanged through [Request.Meta]. Nothing is remembered between requests: capabilities, the log level and the
// caller's identity are per request. Methods removed from earlier revisions (initialize, ping,
// logging/setLevel, resources/subscribe, …) and methods whose capability the server does not
// advertise are -32601; for initialize its data names the versions served
// ({"supported":["2026-07-28"],"requested":…}), as the specification asks of a server that
// speaks 2026-07-28 only. The codes the core answers with are the constants of type [Code], with
// [CodeAccessDenied] for authorization (handlers and policies may choose others); the
// Streamable HTTP transport maps them to HTTP statuses (transport.Rules.HTTPStatus).
//
// Every result carries "resultType" and the server's identity in
// _meta["io.modelcontextprotocol/serverInfo"]; server/discover, the lists and resources/read
// carry the cache hints ttlMs and cacheScope of [Config] (or of the resource). The lists are
// sorted (tools and prompts by name, resources by URI, templates by template) and paged.
//
// # Registering components
//
// Tools come in three forms:
//   - typed, [AddTool]: the arguments decode into a Go type, from which the input schema is
//     derived (json, description, jsonschema and mcpheader struct tags) unless
//     Tool.InputSchema is given;
//   - structured, [AddStructuredTool]: typed arguments and a typed result, sent as
//     structuredContent (with its JSON as text) and checked against an output schema derived
//     from the result type;
//   - raw, [Server.AddRawTool]: an explicit JSON Schema (kept byte for byte, compacted, with
//     every 2020-12 keyword and x-mcp-header annotation) and the raw arguments object.
//
// Arguments are validated against the input schema before the handler runs; a failure, like
// any plain error from the handler, is an isError result the model can read, while an *[Error]
// from the handler is sent as a JSON-RPC error. A typed tool's integer fields take every number
// JSON Schema counts as an integer (1e2 is 100); a valid value its Go type cannot hold is an
// isError result worded like a schema failure ("Invalid arguments: /n: must be <= 127, got
// 300"), never the decoder's text. Resources ([Server.AddResource]), resource
// templates ([Server.AddResourceTemplate], RFC 6570 level 1) and prompts ([Server.AddPrompt])
// are registered the same way; templates and prompts may complete their arguments
// (completion/complete). A handler that panics is answered with a generic -32603; the panic is
// logged with its stack, never sent. Registration mistakes (a duplicate name, an invalid
// schema or template) panic, as net/http's ServeMux does. Components may be added and removed
// while serving: each request sees one consistent catalog, and listen streams are told.
//
// # Multi round-trip requests
//
// In 2026-07-28 a server never sends requests to the client. A tools/call, prompts/get or resources/read
// handler that needs input returns an *[InputRequired] (as its error) naming what it asks:
// [ElicitForm], [ElicitURL], [Sample] or [ListRoots]. The client gets an input_required result
// with those inputRequests and a requestState, and retries the same request with a new id, its
// inputResponses and the requestState. The handler then runs again from the start and reads
// the answers with [Request.InputResponse] and its own state with [Request.State]; a partial
// answer is met by asking again for what is missing. The server checks what it can before the
// handler runs: the shapes of the retry envelope, and the state, which is sealed (encrypted and
// authenticated with [Config.StateKeys], or a random per-process key) and bound to the method,
// the component, its arguments and the caller, and expires. Replicas that share the keys open
// each other's states; the first key seals, every key opens, and [Server.SetStateKeys]
// replaces them while serving, so a key rotates with no refused retry (add the new key second
// everywhere, then move it first, then drop the old one after [Config.StateTTL]). A state
// sealed under a key no longer held is -32602 "Invalid or expired request state". An input request the request's
// client capabilities do not allow is -32021 with data.requiredCapabilities; a completion
// handler cannot ask for input (-32603).
//
// # Initialize-era dialects
//
// [Config.Dialects] lists the revisions served, by default all three ([AllDialects]). A
// transport asks the core which one serves each message (transport.Endpoint.Classify),
// statelessly, from the
// message and the version it carries beside it (the MCP-Protocol-Version header; on stdio the
// version its connection negotiated): modern _meta is 2026-07-28, initialize opens the
// newest initialize-era dialect served, a served legacy version selects that dialect, and an
// unknown or disabled one is -32022 naming the versions served (HTTP 400). It serves every
// message through one entry point (transport.Endpoint.Serve), passing what it knows of the
// client ([ConnState]: the dialect chosen and, for stdio, what the handshake declared;
// stateless HTTP knows nothing: capabilities unknown, the log level [Config.LegacyLogLevel],
// no event delivery). Without 2026-07-28 in Dialects a modern
// request is -32022; without the initialize-era dialects initialize gets the modern-only
// answer, -32601 naming the versions served.
//
// The initialize-era dialects serve initialize (it needs protocolVersion, a string; capabilities, an
// object; clientInfo, an object with name and version strings, else -32602; a version served
// is answered with itself, any other with the newest initialize-era version served, never an
// error), ping and logging/setLevel (exactly {}; an invalid level is -32602), the list, get,
// read, call and complete methods, and resources/subscribe and unsubscribe ({}; a uri string
// is required, -32602; a connection holds at most [MaxResourceSubscriptions] URIs, -32602;
// over stateless HTTP they are accepted and nothing is delivered). [Reply.State] reports
// the client's new state after initialize and logging/setLevel, for a transport that keeps it
// (stdio). Results have the revision's own shapes: no resultType, cache hints or server
// _meta (a handler's own _meta is kept); icons, and Implementation's description and
// websiteUrl, only in 2025-11-25; listChanged and resources.subscribe advertised only where
// the transport delivers them. Tools whose input or output schema the revision cannot
// express (not "type":"object" at the root, a boolean property schema) are neither listed
// nor callable there (-32602 "Unknown tool"); a structuredContent that is not an object is
// left out. Differences in errors: a resource nothing serves is [CodeResourceNotFound]
// (-32002); server/discover and subscriptions/listen are -32601; the 2026-07-28 retry params
// inputResponses and requestState are -32602; errors are JSON-RPC errors of a valid request
// (HTTP 200), never admission refusals. Cursors are bound to their dialect too (-32602
// "Invalid pagination cursor" in another).
//
// One handler serves both eras. In an initialize-era dialect a handler's *[InputRequired] is
// sent to the client as real requests (elicitation/create, sampling/createMessage,
// roots/list, adapted to the revision) through the request's sink, which must be a
// [Requester]; the transport hands the client's responses to [Server.Answer], and the handler
// runs again with them: [Request.InputResponse] reads each answer (a client's error answer is
// returned as its *Error) and [Request.State] the State of the previous round, kept in
// process. A request may take [Config.MaxInputRounds] rounds ([DefaultMaxInputRounds], 8),
// then it is -32603 "Too many input rounds"; at most [Config.MaxOutstandingRequests]
// ([DefaultMaxOutstandingRequests], 10,000) requests await answers server-wide, past that
// -32603 "Server input request capacity exhausted". An input the client cannot give (a
// capability its initialize did not declare, or that its revision lacks, or a transport that
// carries no requests) ends a tools/call with an isError result naming what is missing, so
// the model can do without; a prompt or a resource answers -32021 with
// data.requiredCapabilities, or -32603 "The transport cannot send requests to the client".
// A client that never answers gets the request's deadline; a cancelled request sends no
// reply, and the client is told its requests are withdrawn (notifications/cancelled). A
// transport that runs the request where it cannot wait gets [Reply.Rerun] and serves it
// again elsewhere (the handler then starts afresh).
//
// # Progress and logging
//
// [Request.Progress] sends notifications/progress when the request carried a progressToken,
// and does nothing otherwise. [Request.Log] sends notifications/message when the request
// carried a logLevel, at or above that level (logging is deprecated in 2026-07-28 but still
// served); in an initialize-era dialect at or above the level of [ConnState.LogLevel]
// (logging/setLevel on stdio; [Config.LegacyLogLevel], "info" by default, over stateless
// HTTP). Both go to the request's own sink, before its reply; neither is ever sent on a
// listen stream.
//
// # Subscriptions
//
// subscriptions/listen is a request that lasts: Handle writes the acknowledgement (the subset
// of the filter the server honours) to the sink, then the list_changed and resources/updated
// events the client opted into, each tagged with the listen request's id, and returns when the
// stream ends. The client ends it by going away (the transport cancels the request's
// context); [Server.CloseSubscriptions] ends every stream with its completion response, as a
// transport does when it drains. Catalog changes publish their list_changed events;
// [Server.NotifyResourceUpdated] and [Server.Publish] publish others. Events travel over an
// [EventBus], in memory by default, which replicas may share (packages bus/natsbus and
// bus/pgbus). A bus that may have lost events (outbound overflow, an outage, a reconnect)
// delivers [EventsLost]: every stream then open completes with its completion response, so
// its client re-reads and listens again, and new streams are accepted as before.
//
// # Authorization
//
// A transport that authenticated the caller attaches an [Identity] to the request's context
// ([WithIdentity]); it is never taken from the request's JSON. An [Authorizer] in [Config] is
// asked about every component: at discovery a refused component is left out of the lists,
// before paging; at invocation a refusal is the policy's error (or -32003 "Access denied" for
// [ErrRefused]) before anything runs, or, with [Config.ConcealRefusals], the error an unknown
// component gets. A policy that fails is -32603, never an empty list.
//
// # Extensions
//
// [Server.AddExtension] adds an MCP extension to the 2026-07-28 dialect (the initialize-era
// dialects never see one): it is advertised in server/discover under
// capabilities.extensions, serves its own methods (a request that does not declare the
// extension in its _meta clientCapabilities gets -32021 with data.requiredCapabilities
// before the method runs), may take over tools/call once the tool is looked up, the call
// authorized and its arguments validated (so a refused call reaches no extension), and may
// read the subscriptions/listen filter and add notifications to the stream. [Server.RunTool]
// runs a tools/call an extension deferred, outside any request. The Tasks extension
// (package tasks) is built on it.
//
// # Wrappers
//
// A component may declare wrappers (Tool.Wrap, Resource.Wrap, …), which run around its handler
// after authorization and argument validation, the first declared outermost: [Timeout],
// [Concurrency] and [RateLimit]. A wrapper's refusal is an isError result for a tool and -32603
// with the wrapper's message for a resource or a prompt.
//
// # Observation
//
// [Config.Observer] is told of each request's start and end ([Observer]) with bounded labels:
// the method, the tool or prompt as the catalog names it, the protocol version, the network
// transport its sink names ([NetworkNamer]), the error code or "tool_error"; anything outside
// those sets is [OtherLabel]. The server interns each label set ([Labels]): requests of the
// same labels carry the same pointer, which an Observer may key its series by. Package observe
// implements it with Prometheus, OpenTelemetry and log/slog; the core imports none of them.
// Without an Observer a request pays one nil check.
// [Server.EventStats] counts the events published to the listen streams and those dropped.
//
// # Limits
//
// Every limit, its default, and what a client sees when it is reached:
//   - Messages: Dispatch decodes with [Config.Limits] (package decode): 2,000,000 bytes
//     (-32600), nesting depth 128 (-32700), integer literals of at most 64 digits (-32700),
//     ids that are strings of at most 256 bytes or int64 integers (-32600 with a null id),
//     progressToken under the same bounds (-32602). See the decode package documentation for
//     the complete list; transports apply their own limits first.
//   - Page size: [DefaultPageSize] (100) items per page of each list ([Config.PageSize]); the
//     client follows nextCursor.
//   - Cursors: at most [MaxCursorBytes] (2,048) bytes, bound to the method and the caller;
//     otherwise -32602 "Invalid pagination cursor". After the catalog changes, -32602
//     "Pagination cursor has expired".
//   - requestState: valid for [DefaultStateTTL] (300 s; [Config.StateTTL], at most
//     [MaxStateTTL], 900 s) and at most 16 KiB; a state that is expired, longer, tampered with
//     or issued for another request or caller is -32602 "Invalid or expired request state". A
//     handler state too large to seal in 16 KiB is -32603 "Server produced an invalid result".
//     Each of [Config.StateKeys] needs at least [MinStateKeyBytes] (32) bytes, at most
//     [MaxStateKeys] (8) of them.
//   - Subscriptions: at most [MaxResourceSubscriptions] (1,000) URIs per listen request,
//     otherwise -32602; at most [DefaultSubscriptionBuffer] (100) resources/updated events
//     queued per stream ([Config.SubscriptionBuffer]): on overflow the stream ends with its
//     completion response, so the client re-reads and listens again. All open streams
//     together hold at most [DefaultMaxSubscriptionBytes] (64 MiB,
//     [Config.MaxSubscriptionBytes]) for their subscriptions, counted as that field says
//     (each distinct URI once); a listen past it is -32603 "Server subscription capacity
//     exhausted" (HTTP 503), with no acknowledgement.
//   - Completion: at most [MaxCompletionValues] (100) values; a handler that returns more is
//     -32603 "Server produced an invalid result".
//   - Progress, per request: [MaxProgressUpdates] (1,000) notifications, messages of at most
//     [MaxProgressMessageBytes] (4,096) bytes, one update outstanding, each written within
//     [ProgressAckTimeout] (5 s). The handler gets the error ([ErrProgressLimit],
//     [ErrProgressMessage], [ErrProgressBusy], [ErrProgressTimeout]); the client gets no
//     notification for it.
//   - Wrappers: [Timeout] [DefaultComponentTimeout] (5 s), "Component timed out";
//     [Concurrency] [DefaultComponentConcurrency] (32) calls in flight per component and key,
//     "Component concurrency limit reached"; [RateLimit] [DefaultComponentRateLimit] (60) calls
//     per [DefaultComponentRateWindow] (60 s) per component and key, "Component rate limit
//     reached", tracking at most [DefaultComponentRateKeys] (10,000) keys, "Component rate key
//     capacity reached".
//   - Registration (a panic, not a client error): tool names of 1 to 128 characters from
//     [A-Za-z0-9_.-]; schemas of at most 64 KiB and nesting depth 64; resource templates of at
//     most 1,024 bytes and 32 variables.
//
// It is safe to call Server methods from concurrently running goroutines.
//
// # Initialize-era clients: requests to the client
//
// On an initialize-era connection (2025-11-25, 2025-06-18) a handler's [InputRequired] goes
// to the client as real JSON-RPC requests (elicitation/create, sampling/createMessage,
// roots/list), written by a transport whose sink is a [Requester]; the client's responses
// come back through [Server.Answer], and the handler runs again with the answers. Each
// request's id is "fastmcp-" and 22 base64url characters (128 random bits); an answer counts
// once, and only with the principal the request was made for: any other (unknown, late,
// repeated, foreign) is ignored.
//   - Replicas: with a shared [Config.EventBus], an answer that reaches a replica holding no
//     request with its id is published as an [Answer] event (Topic: a digest of the id and
//     the answer's principal; Data: the response), and the replica whose request has the id
//     delivers it under the same rules, so a load balancer need not route answers by client.
//     Only ids of the minted shape are forwarded, and only answers of at most
//     [MaxEventData] (1 MiB) bytes: a larger one is dropped (and logged) and its request
//     runs to its deadline. An answer of another principal, or one no replica waits for, is
//     dropped as on one process. A replica that has sent such requests stays subscribed for
//     their answers while it drains ([Server.CloseSubscriptions]).
//   - At most [DefaultMaxOutstandingRequests] (10,000; [Config.MaxOutstandingRequests])
//     requests await answers, server-wide; a round that would pass it sends nothing and is
//     -32603 "Server input request capacity exhausted".
//   - Requests still unanswered when the request ends (its deadline, the client's
//     notifications/cancelled, the connection closing) are withdrawn: the client gets
//     notifications/cancelled {requestId, reason}, written within 1 s.
//   - When the client's capabilities are known (stdio, from initialize), asking for one it
//     did not declare sends nothing and is -32021 "Missing required client capability", with
//     data.requiredCapabilities naming each (elicitation.form, elicitation.url, sampling,
//     sampling.tools, sampling.context, roots); a tools/call answers it, and a sink that is
//     not a Requester, with an isError result instead (see Initialize-era dialects). Over
//     stateless HTTP they are unknown: the
//     request is sent, and a client without the feature answers with an error.
//   - 2025-06-18 has no url elicitation and no sampling tools: asking for either there is
//     -32021 naming elicitation.url or sampling.tools. Its elicitation/create carries no mode.
//     A 2025-11-25 url elicitation without an elicitationId gets a minted one.
//   - A sink that is not a Requester: -32603 "The transport cannot send requests to the
//     client". A response that is neither a result object nor an error with an integer code
//     and a string message reads as the error -32603 "The client answered with a malformed
//     response".
//
// [Server.ServeLegacyEvents] writes, for a connection that carries unsolicited messages
// (stdio), notifications/tools/list_changed, prompts/list_changed and
// resources/list_changed, and notifications/resources/updated for the URIs of its
// [LegacyEvents], which holds at most [MaxResourceSubscriptions] (1,000). Bursts coalesce
// into one notification per kind and URI; at most [Config.SubscriptionBuffer] (100) URIs wait
// while a write is in progress, and updates past it are dropped with a logged warning.
package fastmcp
