package fastmcp

import (
	"context"
	"errors"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Dialect is a protocol revision the server speaks, with its own handshake, capability
// negotiation, method catalogue, result shapes and transport lifecycle. There is no
// translation between dialects: a request is served by exactly one, which its transport
// asks the core for (package fastmcp/transport).
type Dialect uint8

// The dialects, newest first. The zero Dialect is none.
const (
	// Modern is revision 2026-07-28: every request carries its protocol version and client
	// capabilities in params._meta; there is no handshake.
	Modern Dialect = iota + 1
	// Legacy20251125 is the initialize-era revision 2025-11-25.
	Legacy20251125
	// Legacy20250618 is the initialize-era revision 2025-06-18.
	Legacy20250618
)

// allDialects lists every dialect, newest first.
var allDialects = [...]Dialect{Modern, Legacy20251125, Legacy20250618}

// AllDialects returns every dialect, newest first: the default of [Config.Dialects].
func AllDialects() []Dialect { return append([]Dialect(nil), allDialects[:]...) }

var dialectVersions = [...]string{Modern: Version, Legacy20251125: "2025-11-25", Legacy20250618: "2025-06-18"}

// Version returns the revision's protocol version string, "" for the zero Dialect.
func (d Dialect) Version() string {
	if int(d) < len(dialectVersions) {
		return dialectVersions[d]
	}
	return ""
}

func (d Dialect) String() string {
	if v := d.Version(); v != "" {
		return v
	}
	return "none"
}

// Legacy reports whether d is an initialize-era dialect.
func (d Dialect) Legacy() bool { return d == Legacy20251125 || d == Legacy20250618 }

// ParseDialect returns the dialect of a protocol version string, or 0 when fastmcp has none.
func ParseDialect[T string | []byte](version T) Dialect {
	for d := Modern; int(d) < len(dialectVersions); d++ {
		if string(version) == dialectVersions[d] {
			return d
		}
	}
	return 0
}

// serves reports whether the server's Config enables d.
func (s *Server) serves(d Dialect) bool { return d != 0 && s.dialects&(1<<d) != 0 }

// newestLegacy is the newest initialize-era dialect enabled, or 0 when none is.
func (s *Server) newestLegacy() Dialect {
	for _, d := range allDialects {
		if d.Legacy() && s.serves(d) {
			return d
		}
	}
	return 0
}

// classify tells which dialect serves a decoded request, statelessly (see
// transport.Endpoint.Classify).
func (s *Server) classify(m *decode.Message, version []byte, hasVersion bool) (Dialect, *Error) {
	if m.ProtocolVersion().Present() {
		return Modern, nil
	}
	if string(m.Method().Text()) == methodInitialize {
		if d := s.newestLegacy(); d != 0 {
			return d, nil
		}
		return Modern, nil
	}
	if !hasVersion {
		return Modern, nil
	}
	switch d := ParseDialect(version); {
	case d == Modern:
		return Modern, nil
	case d.Legacy() && s.serves(d):
		return d, nil
	}
	return 0, s.unsupportedVersion(decode.AppendStringBytes(nil, version, false))
}

// ConnState is what the server knows of a client beyond one message, as its transport
// keeps it and gives it to every request: the dialect that serves the client and, in the
// initialize era, what the handshake declared. stdio keeps one for the life of its
// connection (from initialize and logging/setLevel, see [Reply.State]); stateless HTTP
// makes one afresh for each request.
type ConnState struct {
	// Dialect serves the request: the one the transport's classification chose (the zero
	// Dialect is 2026-07-28's). In the initialize era it is the negotiated revision (stdio)
	// or the one MCP-Protocol-Version names (HTTP).
	Dialect Dialect
	// Capabilities is the ClientCapabilities object the client declared in initialize; nil
	// when it is unknown (stateless HTTP), which lets handlers ask for any input: the
	// client answers an input it does not support with an error the handler sees. A
	// 2026-07-28 request carries its own, and this is not read.
	Capabilities []byte
	// LogLevel is the level logging/setLevel set on the connection, or the transport's
	// default ([Config.LegacyLogLevel] over stateless HTTP); [LogOff] sends none. Not read
	// for a 2026-07-28 request, which names its own.
	LogLevel LogLevel
	// Events, when non-nil, is the connection's delivery of unsolicited notifications
	// (stdio): initialize then advertises listChanged and resources.subscribe, and
	// resources/subscribe and unsubscribe record their URIs here. Nil (stateless HTTP,
	// which has no channel for them) accepts subscribe and unsubscribe with {} and delivers
	// nothing.
	Events *LegacyEvents
}

// dialect is the dialect st names, 2026-07-28 for the zero Dialect.
func (st *ConnState) dialect() Dialect {
	if st.Dialect == 0 {
		return Modern
	}
	return st.Dialect
}

// Requester is implemented by the Sink of a transport that carries server-to-client requests
// (the initialize-era dialects have elicitation, sampling and roots as real requests).
type Requester interface {
	Sink
	// Request writes one complete JSON-RPC request to the client, as Notify writes a
	// notification, and returns once it is written. It returns [ErrCannotWait] when the
	// request runs where it must not wait for the client (an inline run): [Reply.Rerun]
	// then asks the transport to serve the message again where it can.
	Request(ctx context.Context, msg []byte) error
}

// ErrCannotWait is returned by a [Requester] that cannot wait for the client's answer where
// the request runs now.
var ErrCannotWait = errors.New("fastmcp: the transport cannot wait for the client here")

// unsupportedModernVersion is the -32022 of a request whose _meta names a version not served:
// the modern rule, whose data.supported lists the per-request (modern) versions a client can
// switch to, since the request was not an initialize. A server without the modern dialect
// names the versions it serves instead.
func (s *Server) unsupportedModernVersion(requested []byte) *Error {
	if !s.serves(Modern) {
		return s.unsupportedVersion(requested)
	}
	data := append([]byte(`{"supported":["`+Version+`"],"requested":`), requested...)
	data = append(data, '}')
	return &Error{Code: CodeUnsupportedVersion, Message: "Unsupported protocol version", Data: data, admission: true}
}

// unsupportedVersion is -32022 with the versions served and the one requested (a JSON string
// literal).
func (s *Server) unsupportedVersion(requested []byte) *Error {
	data := append([]byte(`{"supported":`), s.supportedJSON...)
	data = append(append(data, `,"requested":`...), requested...)
	data = append(data, '}')
	return &Error{Code: CodeUnsupportedVersion, Message: "Unsupported protocol version", Data: data, admission: true}
}

// appendSupported writes the versions the server serves as a JSON array, newest first.
func appendSupported(dst []byte, dialects uint8) []byte {
	dst = append(dst, '[')
	n := 0
	for _, d := range allDialects {
		if dialects&(1<<d) == 0 {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(append(dst, '"'), d.Version()...), '"')
		n++
	}
	return append(dst, ']')
}

// legacyLogLevel returns the level Config.LegacyLogLevel names ([LogOff] for "off"), for
// transports that keep no logging/setLevel (stateless HTTP).
func (s *Server) legacyLogLevel() LogLevel { return s.cfg.legacyLogLevel }
