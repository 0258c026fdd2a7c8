package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Verifier checks an access token and returns what it proves. [JWTVerifier] checks signed
// JWTs against the issuer's key set; [IntrospectionVerifier] asks the authorization server
// (RFC 7662) about opaque tokens. It may be called concurrently.
type Verifier interface {
	// Verify returns the token's verified claims, or an error wrapping [ErrInvalidToken] when
	// the token is bad; any other error means it could not check the token (the gate then
	// answers 503 with Retry-After). ctx bounds the work: its deadline is the gate's
	// verification budget, which ends before the gate's RequestGateTimeout, and a Verify
	// that honours it is answered 503, never 504. The token must never appear in a returned
	// error or a log line.
	Verify(ctx context.Context, token string) (*TokenInfo, error)
}

// TokenInfo is what a verified access token says about its bearer. It becomes
// [fastmcp.Identity.Claims]; the identity's Principal is Subject.
type TokenInfo struct {
	// Subject is the principal: the token's sub, or for an introspected token without one
	// its client_id.
	Subject string
	// ClientID is the OAuth client the token was issued to, when the token says.
	ClientID string
	// Issuer is the authorization server that issued the token.
	Issuer string
	// Audience lists the resources the token was issued for (ours among them).
	Audience []string
	// Scopes are the granted scopes.
	Scopes []string
	// Expiry is when the token expires.
	Expiry time.Time
	// DPoPThumbprint is the key the token is bound to (its cnf.jkt, RFC 9449 §6: the
	// base64url SHA-256 JWK thumbprint of RFC 7638), empty for a token bound to none. A
	// bound token is admitted only with the DPoP scheme and a proof signed by that key; a
	// [Verifier] of your own must set it for the tokens it knows to be bound.
	DPoPThumbprint string
}

// TokenInfoFrom returns the token information the gate attached to a request's context, or
// nil when the request carries none (no gate, another authentication). It is shared by the
// requests of the same token (the gate's cache): read it, never modify it.
func TokenInfoFrom(ctx context.Context) *TokenInfo {
	if id := fastmcp.IdentityFrom(ctx); id != nil {
		info, _ := id.Claims.(*TokenInfo)
		return info
	}
	return nil
}

// TokenHash is how logs name a token: the first 12 hex digits of its SHA-256, enough to tell
// tokens apart in an investigation, never enough to use one.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:6])
}
