package oauth

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// Defaults of [Config].
const (
	// DefaultMaxTokenBytes bounds a bearer token: a longer one is refused with 401
	// invalid_token without being parsed or verified.
	DefaultMaxTokenBytes = 16 << 10
	// DefaultRetryAfter is the Retry-After of the 503 answered when a token could not be
	// checked.
	DefaultRetryAfter = 5 * time.Second
)

// Config configures a [ResourceServer]. Every zero field means its default; New copies it.
type Config struct {
	// Resource is the canonical URL of the protected MCP endpoint (RFC 8707 §2), for example
	// "https://mcp.example.com/mcp": https (http only on a loopback host), lowercase scheme and
	// host, no query, fragment or trailing slash. It is the metadata's resource, the base of
	// the metadata URL in challenges, and what the verifier must find in a token's audience.
	// It is never taken from a request's Host header. Required. The root metadata document
	// names the origin instead (RFC 9728 §3.3); a client that discovers it asks for tokens
	// with the origin as their audience, so the resource server accepts the origin as an
	// audience too (with the verifiers of this package; see OmitRootMetadata).
	Resource string
	// AuthorizationServers are the issuer identifiers of the authorization servers whose
	// tokens are accepted, exactly as each publishes it (a trailing slash is significant:
	// clients compare issuers as strings). At least one.
	AuthorizationServers []string
	// ScopesSupported is the metadata's scopes_supported: what a client with no better idea
	// should ask for. offline_access is refused (2026-07-28: a resource server should not
	// advertise it).
	ScopesSupported []string
	// RequiredScopes are the scopes every request needs: the scope of every 401 challenge, and
	// a token without them gets 403 insufficient_scope. Empty: any valid token is admitted,
	// and challenges carry no scope (clients then use ScopesSupported).
	RequiredScopes []string
	// Policy, if set, adds to RequiredScopes those of the tool or prompt a 2026-07-28
	// tools/call or prompts/get names in its Mcp-Method and Mcp-Name headers, so that a
	// token lacking them gets its 403 step-up challenge before the body is read; its Implies
	// is the scope hierarchy of every check here. Install the same policy as the core's
	// Authorizer ([fastmcp.Config.Authorizer]): it enforces the scopes at the component
	// boundary whatever the headers said, and filters the lists.
	Policy *ScopePolicy
	// Verifier checks the tokens. Required.
	Verifier Verifier

	// PublicPaths are request paths (as routed: decoded, without the query) the gate admits
	// without a token and without an identity, for public routes served behind it, such as
	// a health check. The MCP endpoint's own path must not be among them.
	PublicPaths []string

	// ResourceName and ResourceDocumentation are optional metadata fields (a human-readable
	// name, a documentation URL).
	ResourceName, ResourceDocumentation string

	// OmitRootMetadata leaves out the root metadata document (WellKnownPath alone, whose
	// resource is the origin) and with it the origin as an accepted audience: tokens must
	// then name Resource (or another of the verifier's Audiences). Set it when the origin
	// serves more than one protected resource, so that a token for the origin does not
	// open them all. Without it, the verifiers of this package ([JWTVerifier],
	// [IntrospectionVerifier], [ByIssuer] of them) accept the origin besides their
	// Audiences; a Verifier of your own must accept it itself.
	OmitRootMetadata bool

	// RetryAfter is the Retry-After of the 503 answered when the verifier could not check a
	// token (its authorization server is down, slow or answers garbage), rounded up to whole
	// seconds. Zero means [DefaultRetryAfter], 5 s. Negative values are invalid.
	RetryAfter time.Duration

	// MaxTokenBytes bounds a bearer token (401 invalid_token past it, before any parsing).
	// Zero means [DefaultMaxTokenBytes], 16 KiB. Negative values are invalid.
	MaxTokenBytes int

	// MaxCachedTokens bounds the verified tokens remembered (by their SHA-256, never the
	// token) so that a client's next requests skip the verifier; a full cache forgets one at
	// random to admit another. Zero means [DefaultMaxCachedTokens], 10,000; [NoTokenCache]
	// verifies every request anew. Other negative values are invalid.
	MaxCachedTokens int
	// TokenCacheTTL bounds how long a verification is remembered (never past the token's
	// expiry): a token revoked at the authorization server, which only introspection would
	// notice, is admitted for at most this long. Zero means [DefaultTokenCacheTTL], 1 min.
	// Negative values are invalid.
	TokenCacheTTL time.Duration

	// DPoP makes the resource server accept DPoP-bound tokens (RFC 9449) or require them;
	// the zero value accepts Bearer tokens only. See [DPoPConfig].
	DPoP DPoPConfig

	// Logger receives refusals at debug level and verifier failures at warn, naming a token
	// only by [TokenHash]. Nil means slog.Default().
	Logger *slog.Logger
}

func (c Config) resolve() (Config, error) {
	u, err := canonicalResource(c.Resource)
	if err != nil {
		return c, err
	}
	if len(c.AuthorizationServers) == 0 {
		return c, fmt.Errorf("%w: AuthorizationServers is empty", ErrInvalidConfig)
	}
	for _, as := range c.AuthorizationServers {
		if err := fetchURL("authorization server", as); err != nil {
			return c, err
		}
	}
	if c.Verifier == nil {
		return c, fmt.Errorf("%w: Verifier is nil", ErrInvalidConfig)
	}
	if err := c.checkVerifier(); err != nil {
		return c, err
	}
	if err := checkScopes("ScopesSupported", c.ScopesSupported); err != nil {
		return c, err
	}
	if slices.Contains(c.ScopesSupported, "offline_access") {
		return c, fmt.Errorf("%w: ScopesSupported must not list offline_access", ErrInvalidConfig)
	}
	if err := checkScopes("RequiredScopes", c.RequiredScopes); err != nil {
		return c, err
	}
	if c.Policy != nil {
		if err := c.Policy.check(); err != nil {
			return c, err
		}
	}
	for _, p := range c.PublicPaths {
		if p == u.Path || p == "" || p[0] != '/' {
			return c, fmt.Errorf("%w: PublicPaths has %q: a path, and not the resource's own", ErrInvalidConfig, p)
		}
	}
	if err := defaults.Resolve(&c.MaxTokenBytes, DefaultMaxTokenBytes, "MaxTokenBytes", ErrInvalidConfig); err != nil {
		return c, err
	}
	switch {
	case c.MaxCachedTokens < NoTokenCache:
		return c, fmt.Errorf("%w: MaxCachedTokens %d is negative", ErrInvalidConfig, c.MaxCachedTokens)
	case c.MaxCachedTokens == 0:
		c.MaxCachedTokens = DefaultMaxCachedTokens
	}
	if err := cmp.Or(
		defaults.Resolve(&c.RetryAfter, DefaultRetryAfter, "RetryAfter", ErrInvalidConfig),
		defaults.Resolve(&c.TokenCacheTTL, DefaultTokenCacheTTL, "TokenCacheTTL", ErrInvalidConfig),
	); err != nil {
		return c, err
	}
	if c.DPoP, err = c.DPoP.resolve(); err != nil {
		return c, err
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.AuthorizationServers = slices.Clone(c.AuthorizationServers)
	c.ScopesSupported = slices.Clone(c.ScopesSupported)
	c.RequiredScopes = slices.Clone(c.RequiredScopes)
	c.PublicPaths = slices.Clone(c.PublicPaths)
	return c, nil
}

// checkVerifier catches a verifier of this package that could never admit a token of this
// configuration: one for another audience, or of an issuer the metadata does not list.
func (c Config) checkVerifier() error {
	var issuer string
	var audiences []string
	switch v := c.Verifier.(type) {
	case ByIssuer:
		for iss, each := range v {
			if !slices.Contains(c.AuthorizationServers, iss) {
				return fmt.Errorf("%w: ByIssuer has issuer %q, not among AuthorizationServers %q", ErrInvalidConfig, iss, c.AuthorizationServers)
			}
			sub := c
			sub.Verifier = each
			if err := sub.checkVerifier(); err != nil {
				return err
			}
		}
		return nil
	case *JWTVerifier:
		issuer, audiences = v.cfg.Issuer, v.cfg.Audiences
	case *IntrospectionVerifier:
		issuer, audiences = v.cfg.Issuer, v.cfg.Audiences
	default:
		return nil
	}
	if !slices.Contains(audiences, c.Resource) {
		return fmt.Errorf("%w: the verifier's Audiences %q do not include Resource %q", ErrInvalidConfig, audiences, c.Resource)
	}
	if issuer != "" && !slices.Contains(c.AuthorizationServers, issuer) {
		return fmt.Errorf("%w: the verifier's issuer %q is not among AuthorizationServers %q", ErrInvalidConfig, issuer, c.AuthorizationServers)
	}
	return nil
}
