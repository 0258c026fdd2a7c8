package oauth

import (
	"errors"
	"fmt"
)

// Errors a Provider fails a request with (wrapped; test with errors.Is). None of them, nor any
// other error of this package, holds a token, a secret or an authorization code.
var (
	// ErrInvalidConfig wraps every error New returns.
	ErrInvalidConfig = errors.New("oauth: invalid config")
	// ErrNoMetadata: no protected resource metadata (RFC 9728) was found at the challenge's
	// resource_metadata URL nor at the well-known URLs, or none was usable.
	ErrNoMetadata = errors.New("oauth: no protected resource metadata")
	// ErrResourceMismatch: the metadata's resource does not name the server the client
	// called (RFC 9728 §3.3); nothing is sent to its authorization servers.
	ErrResourceMismatch = errors.New("oauth: protected resource metadata names another resource")
	// ErrNoAuthorizationServer: no authorization server metadata (RFC 8414, OpenID
	// discovery) was found for the issuer.
	ErrNoAuthorizationServer = errors.New("oauth: no authorization server metadata")
	// ErrIssuerMismatch: an authorization server's metadata names another issuer than the
	// one its well-known URL was built from (RFC 8414 §3.3); it is not used.
	ErrIssuerMismatch = errors.New("oauth: authorization server metadata names another issuer")
	// ErrIssuerChanged: the resource's authorization server is no longer the one the
	// pre-registered client was registered with.
	ErrIssuerChanged = errors.New("oauth: the authorization server changed")
	// ErrUnsupported: the authorization server lacks what the flow needs: PKCE S256, the
	// grant type, a client registration mechanism or a usable client authentication method.
	ErrUnsupported = errors.New("oauth: the authorization server does not support the flow")
	// ErrAuthorizationResponse: the authorization response failed a check: state, the
	// RFC 9207 iss, or a missing code. The code is never sent to a token endpoint then.
	ErrAuthorizationResponse = errors.New("oauth: authorization response refused")
	// ErrStepUpLimit: the server asked for the same scopes again after MaxStepUps
	// re-authorizations (403 insufficient_scope).
	ErrStepUpLimit = errors.New("oauth: step-up limit reached")
	// ErrForbidden: a 403 that is not insufficient_scope, which no new token can fix.
	ErrForbidden = errors.New("oauth: forbidden")
	// ErrInsecureURL: an authorization URL (metadata, endpoint, redirect) is neither https
	// nor on loopback.
	ErrInsecureURL = errors.New("oauth: URL is neither https nor loopback")
	// ErrBadToken: a token response's access token is not a well-formed RFC 6750 token.
	ErrBadToken = errors.New("oauth: malformed access token")
)

// AuthorizationError is an error the authorization server answered the authorization
// request with (RFC 6749 §4.1.2.1), after the response passed the state and iss checks.
type AuthorizationError struct {
	Code        string // error, e.g. access_denied
	Description string // error_description, as the server sent it
}

func (e *AuthorizationError) Error() string {
	if e.Description == "" {
		return "oauth: authorization refused: " + e.Code
	}
	return fmt.Sprintf("oauth: authorization refused: %s: %q", e.Code, e.Description)
}

// TokenError is a token endpoint's refusal (RFC 6749 §5.2), or a response it could not read.
type TokenError struct {
	Status      int    // the HTTP status, 0 when the request failed before one
	Code        string // error, e.g. invalid_grant
	Description string // error_description, as the server sent it
}

func (e *TokenError) Error() string {
	s := fmt.Sprintf("oauth: token request refused: HTTP %d", e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Description != "" {
		s += fmt.Sprintf(": %q", e.Description)
	}
	return s
}
