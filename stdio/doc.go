// Package stdio serves MCP over newline-delimited JSON-RPC: one message per line on standard
// input and standard output (or any io.Reader and io.Writer), as the MCP stdio transport
// specifies. Requests run concurrently on a [pool.Executor]; one writer puts every message
// on the wire as one complete line.
//
//	srv, _ := fastmcp.NewServer(fastmcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
//	fastmcp.AddTool(srv, fastmcp.Tool{Name: "echo"}, echo)
//	if err := stdio.Serve(ctx, srv, stdio.Config{}); err != nil {
//		log.Fatal(err) // logs go to standard error
//	}
//
// [Serve] returns when the input ends (the client closes standard input) and every request
// it admitted has its outcome; open subscriptions/listen streams then end without a final
// reply, as if the client had cancelled them.
//
// # Dialects
//
// One connection serves the 2026-07-28 dialect and the initialize-era revisions 2025-11-25
// and 2025-06-18 (those [fastmcp.Config.Dialects] enables), each request in exactly one, as
// the core's classification (transport.Endpoint.Classify) chooses: the version the connection negotiated stands in for the
// MCP-Protocol-Version header HTTP carries, so stdio and HTTP select dialects alike. A
// request whose _meta names a protocol version is modern, whatever the connection
// negotiated; initialize opens an initialize-era dialect; any other request is served in
// the dialect initialize negotiated, or, before any initialize, by the modern rules (which
// refuse a request without _meta). A client that never sends initialize is never given
// initialize-era state.
//
// A successful initialize sets the connection's state: the negotiated revision, the
// client's capabilities and a fresh set of resource subscriptions. A repeated initialize
// replaces all of it (the client starts afresh at the version it negotiates now; its
// earlier subscriptions are dropped). logging/setLevel sets the level of the
// notifications/message initialize-era requests get; before any setLevel it is
// [fastmcp.Config.LegacyLogLevel] (default "info"), the level stateless HTTP uses, so one
// setting governs both transports. The input is ordered: once an initialize-era initialize
// or logging/setLevel is read, the next line is read only when that request has its outcome
// (its state adopted, or its error decided), so every line after it, even one the client
// sent before reading the response, sees the state it produces. That wait is bounded by the
// request's deadline ([Config.RequestTimeout]). Other requests run concurrently; each sees
// the state as it was when it was read from the input.
// notifications/initialized is accepted silently; a response line from the client goes to
// the server-to-client request it answers.
//
// While an initialize-era state lives, one goroutine writes the notifications its client
// gets unasked: notifications/tools/list_changed, prompts/list_changed,
// resources/list_changed when the catalog changes, and notifications/resources/updated for
// the URIs it subscribed to (see transport.Endpoint.SubscribeEvents). It ends when a later
// initialize replaces the state, when the input ends, and when serving stops.
//
// # Server-to-client requests
//
// An initialize-era handler that needs input (elicitation, sampling, roots; see
// [fastmcp.InputRequired]) makes the server write real JSON-RPC requests to the client, one
// line each, with ids the server mints, before the request's response. The client answers
// with response lines, matched by id; the handler then runs again with the answers. The
// reader keeps reading while handlers wait, and answers are handed over on the reader
// itself, never queued behind requests, so a full executor cannot keep an answer from the
// handler waiting for it. A response whose id matches no outstanding request (late,
// repeated, or never asked) is ignored. The rounds and the requests outstanding are bounded
// by [fastmcp.Config.MaxInputRounds] and [fastmcp.Config.MaxOutstandingRequests]; a client
// that never answers holds its request until the request's deadline ([Config.RequestTimeout]),
// which answers -32603 "Request execution timed out", after which the server withdraws its
// own request with notifications/cancelled. That withdrawal, and the one that follows a
// client's cancellation, is the only line written for a request after its last word.
//
// # Framing
//
// Each line holds one JSON-RPC message. Lines end with LF; a CR before the LF is dropped, so
// CRLF is accepted. A UTF-8 byte order mark at the very start of the input is ignored, and so
// are blank lines (nothing but spaces, tabs and CRs). A last line without a newline at the end
// of input is served if it is within the limit. A batch (a JSON array) is refused with
// -32600: none of the revisions served has batches.
//
// Input is read in chunks of 64 KiB into a fixed buffer; a longer line is assembled in its
// own buffer, which never grows past [Config.MaxLineBytes]. A line that passes the limit
// (its newline counted) is answered with -32600 "Invalid Request: message exceeds the
// maximum size" and a null id as soon as the limit is passed, without being decoded; the
// rest of it is discarded as it arrives, and the next line is served normally.
//
// # Concurrency and ordering
//
// The reader decodes each line (the decoder's limits apply, see package decode) and submits
// each request to the executor; the line is copied into a buffer the request's job owns,
// because jobs outlive the read loop. Handlers see Serve's context values, and their own
// context ends at the request's deadline, on cancellation, and when serving stops. Responses are written in completion order, not
// request order. Notifications that belong to a request (progress, log messages) are
// written one at a time, each acknowledged to the handler once written, and always before
// the request's response; nothing is written for a request after its response.
//
// A request whose id is still in flight (admitted and not yet answered or cancelled) is
// refused with -32600 "Duplicate in-flight request id". When the executor has no worker and
// no queue room, a request is refused at once with -32603 "Server execution capacity
// exhausted". Past [Config.RequestTimeout] it is cancelled and answered with -32603 "Request
// execution timed out". A handler that panics gets -32603 "Internal error" (the panic and its
// stack are logged by the executor, never written). Errors that cannot be tied to a request
// (an unparseable line, an out-of-bounds id, an over-long line) carry a null id.
//
// Size the executor for the handlers: for CPU-bound tools, about one worker per processor
// ([Config.Pool] MaxConcurrency = runtime.GOMAXPROCS(0)) serves the most requests per
// second, because a job then rarely has to wake a parked worker; the pool's default of 32
// suits handlers that wait on I/O.
//
// When lines wait for the writer faster than Output takes them (more than 1 MiB pending),
// the reader stops reading input until the writer catches up, so a client that does not
// read its responses slows its own requests down instead of growing the server's memory.
//
// # Cancellation
//
// notifications/cancelled {"requestId": id, "reason"?: string} ends the request or stream
// with that id at once: a queued request never runs, a running one sees its context
// cancelled (one awaiting the client's answer to a server-to-client request stops waiting,
// and the server withdraws that request), no response is written for it, and the id can be
// reused by the very next line. A notification whose reason is not a string is ignored as
// a whole, as is one that names no request in flight, and one that names an initialize-era
// initialize, which the client must not cancel.
//
// # Subscriptions
//
// subscriptions/listen streams are multiplexed on the output: their acknowledgement and
// events carry the listen request's id as their subscriptionId. A stream runs on a
// goroutine of its own and holds one slot of the executor's [pool.Slots] (not a worker), so
// long-lived streams never starve requests. At most [Config.MaxSubscriptions] are open on
// one connection; beyond it, or when the executor's slots are all held, listen is answered
// with -32603 "Server subscription capacity exhausted". The client ends a stream with
// notifications/cancelled (no final reply is written, and the id is free at once); the
// server ends it gracefully with the listen request's completion response. At the end of
// input, and when serving stops, open streams end without a final reply.
//
// # Output
//
// Every line written is 7-bit ASCII: non-ASCII characters are escaped as \uXXXX (a
// surrogate pair beyond the Basic Multilingual Plane), so the bytes do not depend on the
// reader's encoding, and a raw line break inside a reply (whitespace between JSON tokens) is
// written as a space, so a message is always exactly one line. Lines are written by one
// goroutine, whole lines at a time, batching the lines that wait while a write is in
// progress into writes of about 64 KiB.
//
// A write that does not finish within [Config.WriteTimeout], or that fails, is terminal:
// running and queued requests are cancelled, subscriptions are closed, nothing is written
// or retried afterwards (a device that timed out may have taken part of a line), and Serve
// returns the error ([ErrWriteTimeout] for a timeout). Serve never closes Input or Output.
// Where Output has a working SetWriteDeadline method (a net.Conn, an *os.File from
// os.Pipe), the deadline is set on it before each write. Otherwise (the process's standard
// output, a plain io.Writer) a watchdog timer fails the connection when a write overruns;
// the writer goroutine then stays blocked in Write until Write returns, and exits without
// writing anything more. Requests never write themselves, so no executor worker is ever
// stuck in a write.
//
// # Standard output
//
// Standard output carries protocol messages only. When [Config.Output] is nil, Serve
// duplicates the process's file descriptor 1 for its own writes and, while it runs, points
// descriptor 1 at standard error (dup2). Whatever else writes to standard output in the
// meantime (a handler's fmt.Println, os.Stdout, a logger set up for stdout, C code, child
// processes that inherit the descriptor) lands on standard error, and the protocol stream
// cannot be corrupted. When Serve returns, descriptor 1 is pointed back at the real
// standard output. Only one Serve may hold standard output at a time ([ErrStdoutInUse]).
// On systems without dup2 (Windows), only the os.Stdout variable is swapped.
//
// A supplied Output is used as it is: Serve changes nothing about the process's standard
// output then. Pass Output: os.Stdout to opt out of the redirection.
//
// Logging goes to standard error: [Config.Logger] defaults to slog.Default(), whose
// default destination is standard error.
//
// # Limits
//
//   - [Config.MaxLineBytes], default [DefaultMaxLineBytes] (2,000,000, newline counted):
//     -32600 "Invalid Request: message exceeds the maximum size", null id.
//   - The decoder's content limits (package decode): an integer literal over 64 digits is
//     -32700; a request id must be a string of at most 256 bytes or an int64 integer
//     (-32600 with a null id otherwise); a progressToken has the same bounds (-32602).
//   - [Config.RequestTimeout], default the executor's (30 s): -32603 "Request execution
//     timed out".
//   - The executor's MaxConcurrency and MaxQueue ([Config.Pool] for an executor Serve
//     owns; defaults 32 and 256): -32603 "Server execution capacity exhausted".
//   - [Config.MaxSubscriptions], default [DefaultMaxSubscriptions] (32) per connection, and
//     the executor's slots: -32603 "Server subscription capacity exhausted". The same answer
//     past the core's [fastmcp.Config.MaxSubscriptionBytes] (64 MiB), which bounds what all
//     streams hold for their subscriptions; an acknowledged stream lets go of its line.
//   - [Config.WriteTimeout], default [DefaultWriteTimeout] (5 s) per write: terminal.
//   - The core's [fastmcp.Config.MaxInputRounds] (default 8) rounds of server-to-client
//     requests per initialize-era request, and [fastmcp.Config.MaxOutstandingRequests]
//     (default 10,000) awaiting answers: the errors are the core's (see package fastmcp).
//     A request waiting for an answer holds its executor worker until its deadline.
//
// A request refused because the executor was closed gets -32603 "Request executor
// unavailable"; Serve then stops reading, answers what it holds and returns an error
// wrapping pool.ErrClosed.
package stdio
