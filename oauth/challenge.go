package oauth

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// The error_description of each refusal: fixed sentences, never a token, claim or key id.
const (
	describeMalformed = "The Authorization header is not a Bearer token"
	describeRepeated  = "The request has more than one Authorization header"
	describeInvalid   = "The access token is invalid, expired or not issued for this resource"
	describeScope     = "The access token lacks scopes this request needs"
	// describeUnavailable says what a 503 means: nothing about the token.
	describeUnavailable = "The access token could not be checked now; retry later"
)

// challenge builds the value of a WWW-Authenticate header (RFC 6750 §3, RFC 9728 §5.1):
// the error code first when there is one, then its description, resource_metadata and
// scope. Every value is quoted; none can hold a quote or backslash (the config is checked).
func challenge(errCode, description, metadataURL string, scopes []string) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	param := func(name, value string) {
		if b.Len() > len("Bearer ") {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(value)
		b.WriteByte('"')
	}
	if errCode != "" {
		param("error", errCode)
		param("error_description", description)
	}
	param("resource_metadata", metadataURL)
	if len(scopes) > 0 {
		param("scope", strings.Join(scopes, " "))
	}
	return b.String()
}

// oauthErrorBody is the JSON body of a refusal with an error code, as RFC 6750 servers and
// the official TypeScript SDK send it; clients read the header, people read this.
func oauthErrorBody(errCode, description string) []byte {
	return []byte(`{"error":"` + errCode + `","error_description":"` + description + `"}`)
}

// refusal is a gate response with a challenge.
func refusal(status int, errCode, description, metadataURL string, scopes []string) *streamable.GateResponse {
	r := &streamable.GateResponse{Status: status, Header: map[string]string{
		"WWW-Authenticate": challenge(errCode, description, metadataURL, scopes),
		"Cache-Control":    "no-store",
	}}
	if errCode != "" {
		r.ContentType = "application/json"
		r.Body = oauthErrorBody(errCode, description)
	}
	return r
}

// unavailableResponse is the answer when the verifier could not check a token: 503 with
// Retry-After (whole seconds, rounded up) and the OAuth error temporarily_unavailable in
// the body. It carries no WWW-Authenticate: it is no challenge, and nothing in it says the
// token is bad.
func unavailableResponse(retryAfter time.Duration) *streamable.GateResponse {
	seconds := max(1, int64((retryAfter+time.Second-1)/time.Second))
	return &streamable.GateResponse{Status: http.StatusServiceUnavailable, ContentType: "application/json",
		Header: map[string]string{"Retry-After": strconv.FormatInt(seconds, 10), "Cache-Control": "no-store"},
		Body:   oauthErrorBody("temporarily_unavailable", describeUnavailable)}
}

// refusals are the responses a ResourceServer answers with that do not depend on the
// request, made once.
type refusals struct {
	missing, malformed, repeated, invalid, scope *streamable.GateResponse
	unavailable                                  *streamable.GateResponse
}

func newRefusals(metadataURL string, required []string, retryAfter time.Duration) refusals {
	return refusals{
		unavailable: unavailableResponse(retryAfter),
		missing:     refusal(http.StatusUnauthorized, "", "", metadataURL, required),
		malformed:   refusal(http.StatusBadRequest, "invalid_request", describeMalformed, metadataURL, required),
		repeated:    refusal(http.StatusBadRequest, "invalid_request", describeRepeated, metadataURL, required),
		invalid:     refusal(http.StatusUnauthorized, "invalid_token", describeInvalid, metadataURL, required),
		scope:       refusal(http.StatusForbidden, "insufficient_scope", describeScope, metadataURL, required),
	}
}
