package fastmcp

import (
	"context"

	"github.com/fastmcp-go/fastmcp/decode"
)

// The methods the initialize-era dialects have beside those of 2026-07-28 (server/discover
// and subscriptions/listen they lack).
const (
	MethodInitialize           = methodInitialize
	MethodPing                 = "ping"
	MethodSetLevel             = "logging/setLevel"
	MethodResourcesSubscribe   = "resources/subscribe"
	MethodResourcesUnsubscribe = "resources/unsubscribe"
)

const (
	legacyMRTRMessage       = "Invalid params: inputResponses and requestState are not part of protocol version "
	legacyModernMetaMessage = "Invalid params: io.modelcontextprotocol/protocolVersion is not part of protocol version "
)

// serveLegacy resolves an initialize-era method (r's dialect), checks its capability and the
// params those revisions lack, and serves it with the shared component code, which writes
// the revision's shapes for r.dialect.
func (s *Server) serveLegacy(ctx context.Context, r *Request, method []byte, dst []byte) ([]byte, error) {
	name, serve, needs, ok := componentRoute(method)
	if !ok {
		switch string(method) {
		case methodInitialize:
			return s.initialize(r, dst)
		case MethodPing:
			return appendEmptyResult(dst, r.ID()), nil
		case MethodSetLevel:
			return s.setLevel(r, dst)
		case MethodResourcesSubscribe:
			name, serve, needs = MethodResourcesSubscribe, (*Server).subscribe, kindResource
		case MethodResourcesUnsubscribe:
			name, serve, needs = MethodResourcesUnsubscribe, (*Server).unsubscribe, kindResource
		default:
			return nil, ErrMethodNotFound // server/discover and subscriptions/listen included
		}
	}
	r.method = name
	if r.cat.kinds&needs != needs {
		return nil, ErrMethodNotFound // the capability is not advertised
	}
	if err := legacyParams(r.msg, r.dialect); err != nil {
		return nil, err
	}
	return serve(s, ctx, r, dst)
}

// legacyParams refuses the params of 2026-07-28 an initialize-era request cannot carry: the
// multi round-trip retry (these revisions ask with server-to-client requests instead) and a
// _meta protocol version (which would have made the request modern, see transport.Endpoint.Classify).
func legacyParams(m *decode.Message, d Dialect) *Error {
	switch {
	case m.InputResponses().Present() || m.RequestState().Present():
		return &Error{Code: CodeInvalidParams, Message: legacyMRTRMessage + d.Version()}
	case m.ProtocolVersion().Present():
		return &Error{Code: CodeInvalidParams, Message: legacyModernMetaMessage + d.Version()}
	}
	return nil
}
