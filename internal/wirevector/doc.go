// Package wirevector runs the wire vectors, literal JSON-RPC exchanges in
// fastmcp/testdata/vectors/*.txtar, against a server through any transport. It is a test
// helper (it imports testing and testify) and is imported only by tests.
//
// [Load] parses the files, [NewFixtureServer] builds the server a file's setup names, and
// [RunSteps] sends each request through a [StepExchange] and compares what comes back. The
// core's tests use [CoreSteps] (transport.Endpoint.Classify, then Serve, as a stateless HTTP
// transport does); a transport's tests wrap the same server in the transport and pass a
// StepExchange that sends one request, with the step's version beside it, and collects the
// reply and the notifications written for the request before it. Such an exchange must call
// Fixture.OnNotify for each notification as it arrives, as CoreSteps does (the listen
// fixture ends its stream that way), and a transport that writes 7-bit output passes
// Options{ASCII: true}. The runner and the fixtures use only the public API of package
// fastmcp and internal/wireschema.
//
// # File format
//
// A vector file is a txtar-like archive (golang.org/x/tools/txtar is not a dependency of the
// module; the format is parsed here). Everything before the first section marker is a comment
// saying what the file covers and which seed acceptance case (seed-system-snodo.md §14.9) it
// adopts. A section marker is a line "-- NAME --"; its content runs to the next marker.
//
//	-- setup --                 one line: the fixture the server is built from (see fixtures)
//	-- request [Def] [opts] --  one line: the exact bytes sent; Def, if given, is the schema
//	                            definition the request itself must match (left out for
//	                            deliberately malformed requests); opts below
//	-- reply Def --             one line: the exact bytes expected back, and the definition of
//	                            the step's schema revision they must match
//	-- no reply --              nothing must come back (a notification, a response object)
//	-- notifications Def... --  the notifications the request's sink receives, one per line,
//	                            in order; one Def for all lines or one per line. Without this
//	                            section the request must produce no notification at all.
//
// Every request is followed by exactly one of reply and no reply; blank lines and lines
// starting with "#" inside a section are ignored (JSON-RPC messages are one line each).
//
// The request options say what a transport carries beside the message, and which revision
// the step's messages follow:
//
//	version=V    the protocol version the transport carries with the request: over HTTP the
//	             MCP-Protocol-Version header; over stdio the version the connection
//	             negotiated (the transport initializes it to V first when it is at another).
//	             Without it the request goes with no header (stdio: a connection that has
//	             negotiated nothing). See transport.Endpoint.Classify.
//	schema=REV   the revision (2026-07-28, 2025-11-25, 2025-06-18) whose definitions the
//	             step's request, reply and notifications are validated against. If absent:
//	             V when it names one, else 2026-07-28. An initialize names the revision it
//	             negotiates this way.
//
// The initialize-era vectors (legacy_*.txtar) expect what a stateless HTTP transport gets:
// the client's capabilities unknown, log messages at Config.LegacyLogLevel, and no
// listChanged or resources.subscribe in initialize (a transport that delivers them, stdio,
// replaces those replies with Options.Replace).
//
// # Placeholders
//
// Some reply bytes are random by design: requestState is sealed with a random nonce (and a
// random per-process key), and pagination cursors are opaque. In a reply or notification,
// {{name}} stands for such a token: the first time a name appears it matches a run of
// [A-Za-z0-9_-] and captures it; afterwards it must equal the captured value. In a request,
// {{name}} is replaced by the captured value, and {{name:tamper}} by the captured value with
// its middle character changed (a tampered token). Names are scoped to one file.
//
// # Schema definitions
//
// Each reply and notification is validated against its definition in the step's revision
// with wireschema (the initialize-era revisions lack the error object definitions: there
// they check the code they stand for, and the message against the revision's error
// response):
//   - a definition whose name ends in "Response", the MCP error responses
//     (UnsupportedProtocolVersionError, MissingRequiredClientCapabilityError,
//     HeaderMismatchError) and the notifications are validated as the whole message;
//   - the JSON-RPC error objects (ParseError, InvalidRequestError, MethodNotFoundError,
//     InvalidParamsError, InternalError) are validated against the message's error member,
//     and the whole message against JSONRPCErrorResponse;
//   - result definitions (InputRequiredResult, …Result) are validated against the result
//     member, and the whole message against JSONRPCResultResponse.
//
// The schema's RequestId is a string or an integer, and its error response makes id optional;
// JSON-RPC 2.0 answers a request whose id cannot be read with "id":null, as the core does. Such
// a reply is validated with its null id left out.
package wirevector
