package streamable

import (
	"net/http"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// HTTPStatus maps an error of the core to the HTTP status a 2026-07-28 Streamable HTTP response
// carries (reference: the MCP specification's error table): 404 for an unknown method; 400 for
// parse, request, header, capability and version errors, and for invalid params of admission
// ([fastmcp.Error.Admission]: invalid request metadata, a message that did not decode); 503
// when the core refused for want of capacity ([fastmcp.Error.Unavailable]: subscriptions/listen
// past Config.MaxSubscriptionBytes, or while it shuts down); 200 for every other error, which
// is a JSON-RPC error about an otherwise valid request.
func HTTPStatus(err *fastmcp.Error) int {
	if err.Unavailable() {
		return http.StatusServiceUnavailable
	}
	switch err.Code {
	case fastmcp.CodeMethodNotFound:
		return http.StatusNotFound
	case fastmcp.CodeParseError, fastmcp.CodeInvalidRequest, fastmcp.CodeHeaderMismatch,
		fastmcp.CodeMissingCapability, fastmcp.CodeUnsupportedVersion:
		return http.StatusBadRequest
	case fastmcp.CodeInvalidParams:
		if err.Admission() {
			return http.StatusBadRequest
		}
	}
	return http.StatusOK
}

// legacyStatus maps an error of an initialize-era reply: a JSON-RPC error about a request
// that reached its dialect travels in a 200 (what the revisions' clients, the TypeScript SDK
// among them, expect: they read the error from the body), except the admission errors
// ([fastmcp.Error.Admission]: the MCP-Protocol-Version header, "it MUST respond with 400
// Bad Request"), which are 400, and the core's capacity refusals
// ([fastmcp.Error.Unavailable]), which are 503 as the transport's own are.
func legacyStatus(err *fastmcp.Error) int {
	switch {
	case err.Unavailable():
		return http.StatusServiceUnavailable
	case err.Admission():
		return http.StatusBadRequest
	}
	return http.StatusOK
}
