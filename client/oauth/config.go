package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Defaults for the zero values of [Config].
const (
	DefaultRequestTimeout   = 10 * time.Second // one metadata, registration or token request
	DefaultAuthorizeTimeout = 5 * time.Minute  // the user's step of the authorization code flow
	DefaultMaxDocumentBytes = 256 << 10        // one metadata document or registration response
	DefaultMaxStepUps       = 2                // re-authorizations for the same challenged scopes
	DefaultClientName       = "fastmcp-client"
)

// Grant is how a Provider gets its tokens.
type Grant uint8

const (
	// GrantAuthorizationCode acts for a user: the authorization code flow with PKCE, whose
	// user step is Config.AuthorizeUser. The default.
	GrantAuthorizationCode Grant = iota
	// GrantClientCredentials acts for the client itself (client_credentials): a
	// pre-registered client with a secret or a private key (private_key_jwt).
	GrantClientCredentials
)

// DPoPMode says when tokens are bound to the Provider's key with DPoP (RFC 9449).
type DPoPMode uint8

const (
	// DPoPAuto binds tokens when the resource asks for DPoP (a DPoP challenge, or DPoP in
	// its protected resource metadata) and the authorization server supports ES256
	// proofs. The default.
	DPoPAuto DPoPMode = iota
	// DPoPAlways binds every token with ES256 proofs.
	DPoPAlways
	// DPoPNever never sends a proof: bearer tokens only.
	DPoPNever
)

// UserStep is the user's part of the authorization code flow: show authURL to the user (a
// browser), wait for the authorization server to redirect to Config.RedirectURL, and return
// that redirect's query parameters (code, state and iss, or error). [Loopback.AuthorizeUser]
// is one for command-line programs (RFC 8252); [FetchRedirect] one for a server that
// consents without a user. It runs under a context bounded by AuthorizeTimeout.
type UserStep func(ctx context.Context, authURL string) (url.Values, error)

// Config configures [New]. Only ServerURL is required; the zero value of every other field
// has the default its comment names. Durations and counts must not be negative.
type Config struct {
	// ServerURL is the MCP endpoint's URL, as given to client.Connect: its protected
	// resource metadata must name it (or a prefix of it), and tokens are requested for it
	// (RFC 8707). It must be https, or http on loopback.
	ServerURL string

	// Grant is the authorization code flow (default) or client credentials.
	Grant Grant

	// ClientID, with ClientSecret or PrivateKey, is a pre-registered client, used before
	// any other registration. Issuer, when set, is the authorization server it is
	// registered with; when empty the first one the resource names is bound, and a
	// different one later fails with ErrIssuerChanged (the spec's "surface an error").
	ClientID     string
	ClientSecret string
	Issuer       string
	// PrivateKey authenticates the client with private_key_jwt (RFC 7523): an ECDSA,
	// RSA or Ed25519 key; SigningAlgorithm defaults to ES256/ES384/ES512 by curve, RS256
	// or EdDSA.
	PrivateKey       crypto.Signer
	SigningAlgorithm string
	// TokenEndpointAuthMethod overrides the pre-registered client's method
	// (client_secret_basic, client_secret_post, private_key_jwt or none); by default it
	// follows the credentials and what the authorization server lists.
	TokenEndpointAuthMethod string

	// ClientMetadataURL is the https URL of the client's metadata document (a client ID
	// metadata document): the client id wherever the authorization server supports them.
	// ClientMetadataDocument returns the document to host there.
	ClientMetadataURL string
	// ClientName (default "fastmcp-client") and ApplicationType ("native", the default, or
	// "web") describe the client in dynamic registration (RFC 7591), the last resort.
	ClientName      string
	ApplicationType string

	// RedirectURL and AuthorizeUser are the authorization code flow's redirect URI and
	// user step; both are required for it.
	RedirectURL   string
	AuthorizeUser UserStep
	// NoOfflineAccess stops the Provider from asking for offline_access (a refresh token)
	// where the authorization server lists it.
	NoOfflineAccess bool

	// DPoP says when tokens are DPoP-bound (default DPoPAuto); DPoPKey is the P-256 key
	// proofs are signed with (default: one New makes).
	DPoP    DPoPMode
	DPoPKey *ecdsa.PrivateKey

	// HTTPClient makes the metadata, registration and token requests (default: the
	// standard library's transport). Redirects are never followed, whatever it says.
	HTTPClient *http.Client
	// RequestTimeout bounds each of those requests (default 10 s).
	RequestTimeout time.Duration
	// AuthorizeTimeout bounds the user step (default 5 min): an error wrapping
	// context.DeadlineExceeded.
	AuthorizeTimeout time.Duration
	// MaxDocumentBytes bounds a metadata document or registration response (default
	// 256 KiB); a larger one is not used.
	MaxDocumentBytes int
	// MaxStepUps bounds the re-authorizations for one set of scopes a 403
	// insufficient_scope asks for (default 2), over the Provider's life: then
	// ErrStepUpLimit.
	MaxStepUps int
}

// withDefaults validates c and fills its zero fields.
func (c Config) withDefaults() (Config, *url.URL, error) {
	bad := func(format string, a ...any) (Config, *url.URL, error) {
		return c, nil, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, a...)...)
	}
	server, err := url.Parse(c.ServerURL)
	if err != nil || server.Host == "" || server.Fragment != "" {
		return bad("ServerURL %q is not an absolute URL without a fragment", c.ServerURL)
	}
	if err := checkURL(server); err != nil {
		return bad("ServerURL: %v", err)
	}
	switch {
	case c.RequestTimeout < 0, c.AuthorizeTimeout < 0, c.MaxDocumentBytes < 0, c.MaxStepUps < 0:
		return bad("durations and counts must not be negative")
	case c.Grant > GrantClientCredentials:
		return bad("unknown Grant %d", c.Grant)
	case c.DPoP > DPoPNever:
		return bad("unknown DPoP mode %d", c.DPoP)
	case c.ApplicationType != "" && c.ApplicationType != "native" && c.ApplicationType != "web":
		return bad("ApplicationType %q is neither native nor web", c.ApplicationType)
	case c.Grant == GrantClientCredentials && c.ClientID == "":
		return bad("client credentials need a pre-registered ClientID")
	case c.Grant == GrantAuthorizationCode && (c.RedirectURL == "" || c.AuthorizeUser == nil):
		return bad("the authorization code flow needs RedirectURL and AuthorizeUser")
	case c.DPoPKey != nil && c.DPoPKey.Curve != elliptic.P256():
		return bad("DPoPKey must be a P-256 key (ES256)")
	}
	if c.RedirectURL != "" {
		u, err := url.Parse(c.RedirectURL)
		if err != nil || u.Host == "" {
			return bad("RedirectURL %q is not an absolute URL", c.RedirectURL)
		}
		if err := checkURL(u); err != nil {
			return bad("RedirectURL: %v", err)
		}
	}
	if c.ClientMetadataURL != "" {
		u, err := url.Parse(c.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || len(u.Path) < 2 {
			return bad("ClientMetadataURL %q must be an https URL with a path", c.ClientMetadataURL)
		}
	}
	if c.PrivateKey != nil && c.SigningAlgorithm == "" {
		if c.SigningAlgorithm = keyAlgorithm(c.PrivateKey); c.SigningAlgorithm == "" {
			return bad("PrivateKey is neither ECDSA, RSA nor Ed25519")
		}
	}
	switch c.TokenEndpointAuthMethod {
	case "", authBasic, authPost, authNone:
	case authPrivateKeyJWT:
		if c.PrivateKey == nil {
			return bad("private_key_jwt needs PrivateKey")
		}
	default:
		return bad("unknown TokenEndpointAuthMethod %q", c.TokenEndpointAuthMethod)
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.AuthorizeTimeout == 0 {
		c.AuthorizeTimeout = DefaultAuthorizeTimeout
	}
	if c.MaxDocumentBytes == 0 {
		c.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	if c.MaxStepUps == 0 {
		c.MaxStepUps = DefaultMaxStepUps
	}
	if c.ClientName == "" {
		c.ClientName = DefaultClientName
	}
	if c.ApplicationType == "" {
		c.ApplicationType = "native"
	}
	return c, server, nil
}

// keyAlgorithm is the JWS algorithm of a private key: "" for an unknown kind.
func keyAlgorithm(k crypto.Signer) string {
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256"
		case elliptic.P384():
			return "ES384"
		case elliptic.P521():
			return "ES512"
		}
	case *rsa.PrivateKey:
		return "RS256"
	case ed25519.PrivateKey:
		return "EdDSA"
	}
	return ""
}
