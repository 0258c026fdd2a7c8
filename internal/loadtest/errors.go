package loadtest

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
)

// Error kinds: every failed request is counted under exactly one. Kinds that carry a code
// (a status, a JSON-RPC error) append it: "status 503", "jsonrpc -32603".
const (
	KindDial         = "dial"            // the connection could not be opened
	KindRefused      = "refused"         // the connection was refused (nothing listening)
	KindWrite        = "write"           // the request could not be written
	KindClosed       = "closed"          // the connection closed before any response byte
	KindTimeout      = "timeout"         // no complete response within the request timeout
	KindHTTP         = "malformed-http"  // the response was not valid HTTP
	KindContentType  = "content-type"    // neither application/json nor text/event-stream
	KindJSON         = "bad-json"        // the body is not a JSON-RPC response object
	KindID           = "id-mismatch"     // the id was not echoed
	KindShape        = "bad-result"      // the result lacks the expected shape
	KindStatusPrefix = "status "         // a status other than 200
	KindRPCPrefix    = "jsonrpc "        // a JSON-RPC error response
	KindNoEvent      = "no-final-event"  // an event stream ended without its response
	KindStream       = "stream-refused"  // a listen stream was not opened
	KindEcho         = "echo-mismatch"   // the echoed text differs from the sent one
	KindUnexpected   = "unexpected-body" // a response where none was due, or the reverse
)

// Errors counts failed requests by kind. A nil Errors is empty.
type Errors map[string]int64

func (e *Errors) add(kind string, n int64) {
	if *e == nil {
		*e = Errors{}
	}
	(*e)[kind] += n
}

// merge adds o's counts to e.
func (e *Errors) merge(o Errors) {
	for k, n := range o {
		e.add(k, n)
	}
}

// Total is the number of failed requests.
func (e Errors) Total() int64 {
	var n int64
	for _, v := range e {
		n += v
	}
	return n
}

// String lists the kinds by count, largest first: "timeout 3, status 503 1"; "none" when
// empty.
func (e Errors) String() string {
	if len(e) == 0 {
		return "none"
	}
	keys := slices.Collect(maps.Keys(e))
	slices.SortFunc(keys, func(a, b string) int {
		if e[a] != e[b] {
			if e[a] > e[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, e[k])
	}
	return strings.Join(parts, ", ")
}

// kindOf classifies a transport error. read tells whether any response byte arrived.
func kindOf(err error, read bool) string {
	var ne net.Error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return KindTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case !read && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)):
		return KindClosed
	}
	return KindHTTP
}

// ErrTargetDown is returned when a scenario cannot reach its target at all.
var ErrTargetDown = errors.New("loadtest: target unreachable")
