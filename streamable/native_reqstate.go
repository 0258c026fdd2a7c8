package streamable

import (
	"bytes"
	"unsafe"

	"github.com/valyala/fasthttp"
)

// reqState is what the head of a request tells its handler, or fasthttp's error handler:
// HeaderReceived learns it, and sees only the header. It lives in the request's connection,
// which reads one request at a time, and every head overwrites it, so it never outlives the
// connection and never reaches another request (a state kept by the header's address in a
// server-wide map did both: fasthttp pools request contexts across connections).
type reqState struct {
	// lengthRequired marks a request without a Content-Length or with a Transfer-Encoding:
	// it is refused with 411.
	lengthRequired bool
	gated          bool // the gate ran on this head; gate is its decision
	gate           gateResult
	// bodySkipped marks a request whose gate answered from the head: its declared body is
	// not read, and the connection closes after the answer (see skipBody).
	bodySkipped bool
}

// headerOffset is where a RequestCtx keeps its request's header.
const headerOffset = unsafe.Offsetof((*fasthttp.RequestCtx)(nil).Request) + unsafe.Offsetof((*fasthttp.Request)(nil).Header)

// ctxOfHeader returns the request context whose request h heads. fasthttp calls
// HeaderReceived with &ctx.Request.Header of the RequestCtx reading the request
// (serveConnCounted, its only call), and a RequestCtx serves one connection at a time, so
// the header leads to its context and the context to the connection: no lookup, and nothing
// to clean up. TestHeaderReceivedLeadsToItsConn pins this against fasthttp upgrades.
func ctxOfHeader(h *fasthttp.RequestHeader) *fasthttp.RequestCtx {
	return (*fasthttp.RequestCtx)(unsafe.Add(unsafe.Pointer(h), -int(headerOffset)))
}

// hasTransferEncoding reports whether a raw head (fasthttp's RawHeaders: the header lines
// as received) has a Transfer-Encoding field. fasthttp drops "identity" when it parses the
// head, so only the raw lines still show it.
func hasTransferEncoding(raw []byte) bool {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if i := bytes.IndexByte(line, ':'); i >= 0 && equalFoldASCII("Transfer-Encoding", line[:i]) {
			return true
		}
	}
	return false
}
