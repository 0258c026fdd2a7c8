package oauth

import (
	"encoding/json"
	"net/http"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// WellKnownPath is the RFC 9728 well-known path of protected resource metadata. The
// document of a resource with a path is served at WellKnownPath followed by that path.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// ProtectedResourceMetadata is the RFC 9728 document the server publishes (the fields it
// fills; the others are optional and left out).
type ProtectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
	// DPoPSigningAlgValuesSupported and DPoPBoundAccessTokensRequired are RFC 9728's DPoP
	// fields (RFC 9449 §5.1): the proof algorithms accepted, and whether only DPoP-bound
	// tokens are.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	DPoPBoundAccessTokensRequired bool     `json:"dpop_bound_access_tokens_required,omitempty"`
}

// metadataRoute is the gate's answer to each method at one metadata URL, made once.
type metadataRoute struct {
	get, options, other *streamable.GateResponse
}

// newMetadataRoute renders doc. The document is public: it is served without a token, to
// any origin (Access-Control-Allow-Origin: *); a preflight (OPTIONS) gets 204, any method
// other than GET, HEAD or OPTIONS 405.
func newMetadataRoute(doc ProtectedResourceMetadata) (metadataRoute, error) {
	body, err := json.Marshal(doc)
	if err != nil {
		return metadataRoute{}, err
	}
	return metadataRoute{
		get: &streamable.GateResponse{Status: http.StatusOK, ContentType: "application/json", Body: body,
			Header: map[string]string{"Access-Control-Allow-Origin": "*", "Cache-Control": "max-age=3600"}},
		options: &streamable.GateResponse{Status: http.StatusNoContent, Header: map[string]string{
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Methods": "GET, OPTIONS",
			"Access-Control-Allow-Headers": "MCP-Protocol-Version",
			"Access-Control-Max-Age":       "86400",
		}},
		other: &streamable.GateResponse{Status: http.StatusMethodNotAllowed,
			Header: map[string]string{"Allow": "GET, OPTIONS", "Access-Control-Allow-Origin": "*"}},
	}, nil
}

func (m metadataRoute) answer(method []byte) *streamable.GateResponse {
	switch string(method) {
	case http.MethodGet, http.MethodHead:
		return m.get
	case http.MethodOptions:
		return m.options
	}
	return m.other
}
