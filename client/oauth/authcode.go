package oauth

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"

	"golang.org/x/oauth2"
)

// newRandom is 128 random bits, base32: a state, a jti.
func newRandom() string { return rand.Text() }

// authorizationCodeLocked runs the authorization code flow: PKCE S256, the resource
// indicator, the user's step, the RFC 9207 and state checks, then the code exchange.
// p.mu must be held.
func (p *Provider) authorizationCodeLocked(ctx context.Context, as *serverMetadata, reg *registration, g grantState) error {
	switch {
	case !contains(as.CodeChallengeMethods, "S256"):
		// The MCP spec: without code_challenge_methods_supported listing S256, refuse.
		return fmt.Errorf("%w: %s does not list PKCE S256 in code_challenge_methods_supported", ErrUnsupported, as.Issuer)
	case as.AuthorizationEndpoint == "":
		return fmt.Errorf("%w: %s has no authorization_endpoint", ErrUnsupported, as.Issuer)
	case len(as.GrantTypes) > 0 && !contains(as.GrantTypes, "authorization_code"):
		return fmt.Errorf("%w: %s does not list the authorization_code grant", ErrUnsupported, as.Issuer)
	}
	conf := p.oauth2Config(as, reg, g.requested)
	verifier, state := oauth2.GenerateVerifier(), newRandom()
	resource := oauth2.SetAuthURLParam("resource", g.resource)
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), resource)

	uctx, cancel := context.WithTimeout(ctx, p.cfg.AuthorizeTimeout)
	p.stats.authorizations.Add(1)
	q, err := p.cfg.AuthorizeUser(uctx, authURL)
	cancel()
	if err != nil {
		return fmt.Errorf("oauth: the user step: %w", err)
	}
	code, err := checkResponse(q, as, state)
	if err != nil {
		return err
	}
	ctx, cancel = context.WithTimeout(ctx, p.cfg.RequestTimeout)
	defer cancel()
	p.stats.tokenRequests.Add(1)
	tok, err := conf.Exchange(p.tokenContext(ctx, as, reg, g.resource, g.dpop), code, oauth2.VerifierOption(verifier), resource)
	if err != nil {
		return tokenError(err)
	}
	return p.keep(tok, g, false)
}

// checkResponse validates an authorization response before its code goes anywhere: first
// iss as RFC 9207 §2.4 and the MCP spec's table say (compared byte for byte, never
// normalized; on a mismatch not even its error is read), then state, then error, and
// returns the code.
func checkResponse(q url.Values, as *serverMetadata, state string) (string, error) {
	iss, hasIss := q.Get("iss"), q.Has("iss")
	switch {
	case hasIss && iss != as.Issuer:
		return "", fmt.Errorf("%w: iss %q is not the authorization server's issuer %q (RFC 9207)", ErrAuthorizationResponse, iss, as.Issuer)
	case !hasIss && as.IssParameterSupported:
		return "", fmt.Errorf("%w: no iss from a server that advertises authorization_response_iss_parameter_supported (RFC 9207)", ErrAuthorizationResponse)
	case q.Get("state") != state:
		return "", fmt.Errorf("%w: the state does not match the request's", ErrAuthorizationResponse)
	case q.Get("error") != "":
		return "", &AuthorizationError{Code: q.Get("error"), Description: q.Get("error_description")}
	case q.Get("code") == "":
		return "", fmt.Errorf("%w: no code", ErrAuthorizationResponse)
	}
	return q.Get("code"), nil
}
