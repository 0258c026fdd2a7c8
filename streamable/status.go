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
