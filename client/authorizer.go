package client

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// Authorizer gives the client's HTTP requests their credentials and answers the server's
// authorization challenges (MCP authorization: OAuth 2.1, optionally DPoP-bound). Package
// client/oauth provides one; set it as Config.Authorizer. It is used over HTTP only: a stdio
// server takes its credentials from its environment. Its methods may be called concurrently.
type Authorizer interface {
	// Authorize returns the credentials of one HTTP request to the server, which req names.
	// It runs before every request, so with a cached token it must be fast and should not
	// wait on the network. The zero AuthCredentials sends none; an error fails the request
	// (wrapped, as it is).
	Authorize(ctx context.Context, req AuthRequest) (AuthCredentials, error)

	// Challenge is called when the server refuses a request: status 401, or 403 with a
	// WWW-Authenticate header (insufficient_scope). It may run a whole authorization
	// (discovery, the user's consent, a token request), and returns nil when the request
	// should be sent again, with the credentials Authorize then returns, or the error the
	// request fails with. One request is challenged at most MaxAuthChallenges times; the
	// next refusal fails it with *HTTPError. RequestTimeout restarts after each Challenge,
	// which may wait for a user; the context's deadline still bounds everything.
	Challenge(ctx context.Context, c *AuthChallenge) error
}

// MaxAuthChallenges bounds the challenges one request answers, with a retry after each: a
// refusal, an authorization, a DPoP nonce, a step-up and a second nonce at most.
const MaxAuthChallenges = 4

// AuthRequest names one HTTP request to the server.
type AuthRequest struct {
	// Method is the HTTP method: POST, or GET for a legacy session's event stream.
	Method string
	// URL is the endpoint's URL without its query: scheme, host and path, as a DPoP proof's
	// htu claim wants it.
	URL string
}

// AuthCredentials are the credential headers of one request; empty ones are not sent. Values
// must be visible ASCII (no control characters): the request fails otherwise.
type AuthCredentials struct {
	// Authorization is the Authorization header's value, e.g. "Bearer <token>".
	Authorization string
	// DPoP is the DPoP proof header (RFC 9449) of a DPoP-bound token, fresh per request.
	DPoP string
	// Headers are further credential headers, such as an API key ("X-API-Key"), sent as
	// given. A name must be an HTTP token and none of the headers the client writes itself
	// (Host, Content-Type, Content-Length, Accept, Connection, Transfer-Encoding,
	// Authorization, DPoP, Last-Event-ID, MCP-Protocol-Version, Mcp-*): the request fails
	// otherwise.
	Headers []AuthHeader
}

// AuthHeader is one further credential header of [AuthCredentials].
type AuthHeader struct{ Name, Value string }

// AuthChallenge is a refused request, as Authorizer.Challenge sees it.
type AuthChallenge struct {
	Request AuthRequest
	// Status is 401 or 403.
	Status int
	// WWWAuthenticate holds every WWW-Authenticate header of the response, in order.
	WWWAuthenticate []string
	// DPoPNonce is the response's DPoP-Nonce header, if any.
	DPoPNonce string
	// Sent are the credentials the refused request carried: an Authorizer that renewed its
	// token meanwhile (for a concurrent request) can tell and just ask for a retry.
	Sent AuthCredentials
}

// endpointURL is u without its query or fragment, the URL an Authorizer sees.
func endpointURL(u *url.URL) string {
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return u.Scheme + "://" + u.Host + path
}

// credentials asks the Authorizer, if any, for the credentials of one request (msg nil: the
// GET of an event stream).
func (t *httpTransport) credentials(ctx context.Context, msg []byte) (AuthCredentials, error) {
	if t.authz == nil {
		return AuthCredentials{}, nil
	}
	req := AuthRequest{Method: "POST", URL: t.url}
	if msg == nil {
		req.Method = "GET"
	}
	cred, err := t.authz.Authorize(ctx, req)
	if err != nil {
		return cred, fmt.Errorf("client: authorization: %w", err)
	}
	if !HeaderValueSafe(cred.Authorization) || !HeaderValueSafe(cred.DPoP) {
		return AuthCredentials{}, fmt.Errorf("client: authorization: %w: a credential header holds a control character", ErrMalformed)
	}
	for _, h := range cred.Headers {
		if !HeaderValueSafe(h.Value) {
			return AuthCredentials{}, fmt.Errorf("client: authorization: %w: credential header %q holds a control character", ErrMalformed, h.Name)
		}
		if !CredentialHeaderName(h.Name) {
			return AuthCredentials{}, fmt.Errorf("client: authorization: %w: %q cannot be a credential header", ErrMalformed, h.Name)
		}
	}
	return cred, nil
}

// CredentialHeaderName reports whether name may be an [AuthCredentials] Headers name: an
// HTTP token the client does not write itself.
func CredentialHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	lower := strings.ToLower(name)
	switch lower {
	case "host", "content-type", "content-length", "accept", "connection", "transfer-encoding",
		"authorization", "dpop", "last-event-id", "mcp-protocol-version":
		return false
	}
	return !strings.HasPrefix(lower, "mcp-")
}

// HeaderValueSafe reports whether v may be written as a credential header's value as it
// is: no control character (tab included) and no DEL, as every value Authorize returns must
// be.
func HeaderValueSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// writeCredentials writes the credential headers of one request.
func writeCredentials(w interface{ WriteString(string) (int, error) }, cred AuthCredentials) {
	writeHeader(w, "Authorization", cred.Authorization)
	writeHeader(w, "DPoP", cred.DPoP)
	for _, h := range cred.Headers {
		writeHeader(w, h.Name, h.Value)
	}
}

// refused reports whether pc's response is an authorization challenge the Authorizer answers.
func (t *httpTransport) refused(pc *pconn) bool {
	if t.authz == nil {
		return false
	}
	switch pc.hdr.StatusCode() {
	case 401:
		return true
	case 403:
		return len(pc.hdr.Peek("WWW-Authenticate")) > 0
	}
	return false
}

// challenge reads the refusal in pc, returns pc to the pool and asks the Authorizer whether
// to send the request again (nil) or fail it. *n counts the request's challenges so far.
func (t *httpTransport) challenge(ctx context.Context, pc *pconn, stop func() bool, msg []byte, sent AuthCredentials, n *int) error {
	c := &AuthChallenge{Request: AuthRequest{Method: "POST", URL: t.url}, Status: pc.hdr.StatusCode(),
		DPoPNonce: string(pc.hdr.Peek("DPoP-Nonce")), Sent: sent}
	if msg == nil {
		c.Request.Method = "GET"
	}
	for _, v := range pc.hdr.PeekAll("WWW-Authenticate") {
		c.WWWAuthenticate = append(c.WWWAuthenticate, string(v))
	}
	body, reusable, err := t.readBody(pc)
	stop()
	t.pool.release(pc, reusable && err == nil)
	if *n >= MaxAuthChallenges {
		if len(body) > 512 {
			body = body[:512]
		}
		return &HTTPError{Status: c.Status, Body: body}
	}
	*n++
	if err := t.authz.Challenge(ctx, c); err != nil {
		return fmt.Errorf("client: authorization: %w", err)
	}
	return nil
}
