package gateway

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/oauth"
)

// Credentials are a backend's own credentials, sent over HTTP only: a static Authorization
// header, or OAuth client credentials. The zero value sends none (the backend then gets
// what Config.Client.Authorizer gives, if anything). A caller's credentials are never
// among them.
type Credentials struct {
	// Authorization is the Authorization header of every request to the backend, whole
	// (e.g. "Bearer …"). A refusal of it (401) fails the request: the Gateway has nothing
	// else to offer, and fetches nothing the backend names.
	Authorization Secret
	// OAuth gets the backend's tokens with the client credentials grant.
	OAuth *OAuthClient
	// Headers are further static headers of every request to the backend, by name: an API
	// key ("X-API-Key"), a tenant. Beside Authorization or OAuth, or alone. A name must be
	// an HTTP token and none the client writes itself (client.AuthCredentials.Headers).
	Headers map[string]Secret
}

// OAuthClient is a client pre-registered with a backend's authorization server, which gets
// its own tokens (client_credentials) when the backend first refuses a request, and again
// when it refuses the token. Only the backend's origin, the Issuer's and AllowedOrigins are
// fetched for it (see the package doc's Credentials).
type OAuthClient struct {
	// Issuer is the authorization server the client is registered with (required),
	// exactly as its metadata names itself.
	Issuer   string
	ClientID string
	// ClientSecret (client_secret_basic or client_secret_post) or PrivateKey
	// (private_key_jwt, SigningAlgorithm by default from the key) authenticates the client.
	ClientSecret     Secret
	PrivateKey       crypto.Signer
	SigningAlgorithm string
	// AuthMethod is client_secret_basic, client_secret_post or private_key_jwt; by default
	// it follows the credentials and what the authorization server lists.
	AuthMethod string
	// AllowedOrigins are further origins (scheme://host[:port]) the Gateway may fetch for
	// this backend's authorization, beside the backend's own and the Issuer's: a token
	// endpoint the Issuer's metadata puts on another host.
	AllowedOrigins []string
}

// String names the client without its secret or key; GoString, LogValue and MarshalJSON
// say the same, so that a Backend can be printed, logged or marshalled whole.
func (o *OAuthClient) String() string {
	return fmt.Sprintf("oauth client %q of %s", o.ClientID, o.Issuer)
}

func (o *OAuthClient) GoString() string     { return o.String() }
func (o *OAuthClient) LogValue() slog.Value { return slog.StringValue(o.String()) }
func (o *OAuthClient) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%q", o.String())), nil
}

// Secret is a credential read from the environment or a file: it prints, logs and marshals
// as "[redacted]".
type Secret string

const redacted = "[redacted]"

func (Secret) String() string               { return redacted }
func (Secret) GoString() string             { return redacted }
func (Secret) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

func (c Credentials) empty() bool {
	return c.Authorization == "" && c.OAuth == nil && len(c.Headers) == 0
}

// Errors of a backend's authorization, in Status.Err and the log; the backend's callers get
// the unavailable error (see the package doc's Credentials).
var (
	// ErrNoCredentials: the backend asked for authorization (401, or 403 with a challenge)
	// and has no credentials. Nothing is fetched.
	ErrNoCredentials = errors.New("gateway: the backend asks for authorization and has no credentials")
	// ErrCredentialsRefused: the backend refused its static Authorization header.
	ErrCredentialsRefused = errors.New("gateway: the backend refused its static Authorization header")
	// ErrFetchRefused: the backend's authorization named a URL outside its own origin, its
	// Issuer's and its AllowedOrigins; it was not fetched.
	ErrFetchRefused = errors.New("gateway: refused to fetch a URL a backend's authorization named")
)

func badCredentials(b *Backend, format string, a ...any) error {
	return fmt.Errorf("%w: backend %q: "+format, append([]any{ErrInvalidConfig, b.Name}, a...)...)
}

// checkCredentials validates b's credentials.
func (b *Backend) checkCredentials() error {
	c := b.Credentials
	switch {
	case c.empty():
		return nil
	case b.Command != "":
		return badCredentials(b, "credentials are sent over HTTP only; a stdio backend takes its own from Env")
	case c.Authorization != "" && c.OAuth != nil:
		return badCredentials(b, "both a static Authorization header and OAuth client credentials")
	}
	for _, h := range c.headerList() {
		if !client.HeaderValueSafe(h.Value) {
			return badCredentials(b, "the %s header holds a control character", h.Name)
		}
		if !client.CredentialHeaderName(h.Name) {
			return badCredentials(b, "%q cannot be a credential header (not a token, or a header the client writes itself)", h.Name)
		}
	}
	switch {
	case c.OAuth == nil && c.Authorization == "":
		return nil
	case c.Authorization != "":
		if !client.HeaderValueSafe(string(c.Authorization)) {
			return badCredentials(b, "the Authorization header holds a control character")
		}
		return nil
	}
	o := c.OAuth
	switch {
	case o.Issuer == "":
		return badCredentials(b, "OAuth client credentials need the Issuer they are registered with")
	case o.ClientID == "":
		return badCredentials(b, "OAuth client credentials need a ClientID")
	case o.ClientSecret == "" && o.PrivateKey == nil:
		return badCredentials(b, "OAuth client %q has neither a ClientSecret nor a PrivateKey", o.ClientID)
	case o.ClientSecret != "" && o.PrivateKey != nil:
		return badCredentials(b, "OAuth client %q has both a ClientSecret and a PrivateKey", o.ClientID)
	}
	if _, err := origin(o.Issuer); err != nil {
		return badCredentials(b, "OAuth Issuer: %v", err)
	}
	for _, a := range o.AllowedOrigins {
		if got, err := origin(a); err != nil || got != strings.ToLower(strings.TrimSuffix(a, "/")) {
			return badCredentials(b, "OAuth AllowedOrigins: %q is not an origin (scheme://host[:port])", a)
		}
	}
	return nil
}

// useCredentials makes the backend's Authorizer, which lives as long as the Gateway so that
// a token outlives a reconnection: its credentials', else (an HTTP backend, and no
// Authorizer in Config.Client) one that answers a challenge with ErrNoCredentials. Its
// refusals carry the challenge's status (refusedError).
func (b *backend) useCredentials() error {
	err := b.useAuthorization()
	if extra := b.spec.Credentials.headerList(); err == nil && len(extra) > 0 && b.spec.Command == "" {
		inner := b.authz
		if inner == nil { // the template's Authorizer, or none
			inner = b.g.cfg.Client.Authorizer
		}
		b.authz = withHeaders{inner: inner, extra: extra}
	}
	if b.authz != nil {
		b.authz = statusOfRefusals{b.authz}
	}
	return err
}

// refusedError is the backend's refusal of the Gateway's authorization for one request,
// with the status of its challenge: 401 (the credential itself) or 403 (a credential that
// lacks what this request needs, such as a scope of one tool).
type refusedError struct {
	status int
	err    error
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// statusOfRefusals makes inner's refusals refusedErrors.
type statusOfRefusals struct{ client.Authorizer }

func (s statusOfRefusals) Challenge(ctx context.Context, c *client.AuthChallenge) error {
	if err := s.Authorizer.Challenge(ctx, c); err != nil {
		return &refusedError{status: c.Status, err: err}
	}
	return nil
}

// useAuthorization makes the Authorizer of the backend's Authorization (static or OAuth).
func (b *backend) useAuthorization() error {
	c := b.spec.Credentials
	switch {
	case b.spec.Command != "":
		return nil
	case c.Authorization != "":
		b.authz = staticAuthorizer{header: string(c.Authorization)}
		return nil
	case c.OAuth == nil:
		if b.g.cfg.Client.Authorizer == nil {
			b.authz = noCredentials{}
		}
		return nil
	}
	o := c.OAuth
	guard, err := newFetchGuard(b.spec, b.log)
	if err != nil {
		return err
	}
	p, err := oauth.New(oauth.Config{
		ServerURL: b.spec.URL, Grant: oauth.GrantClientCredentials,
		Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: string(o.ClientSecret),
		PrivateKey: o.PrivateKey, SigningAlgorithm: o.SigningAlgorithm, TokenEndpointAuthMethod: o.AuthMethod,
		HTTPClient: guard.client(),
	})
	if err != nil {
		return badCredentials(&b.spec, "%v", err)
	}
	b.authz = guardedAuthorizer{Authorizer: p, guard: guard}
	return nil
}

// staticAuthorizer sends one Authorization header.
type staticAuthorizer struct{ header string }

func (s staticAuthorizer) Authorize(context.Context, client.AuthRequest) (client.AuthCredentials, error) {
	return client.AuthCredentials{Authorization: s.header}, nil
}

func (staticAuthorizer) Challenge(_ context.Context, c *client.AuthChallenge) error {
	return fmt.Errorf("%w (HTTP %d)", ErrCredentialsRefused, c.Status)
}

// noCredentials sends none, and answers a challenge with ErrNoCredentials rather than an
// HTTP error that reads like any other.
type noCredentials struct{}

func (noCredentials) Authorize(context.Context, client.AuthRequest) (client.AuthCredentials, error) {
	return client.AuthCredentials{}, nil
}

func (noCredentials) Challenge(_ context.Context, c *client.AuthChallenge) error {
	return fmt.Errorf("%w (HTTP %d): give it Credentials", ErrNoCredentials, c.Status)
}

// headerList is Headers as the client sends them, in name order.
func (c Credentials) headerList() []client.AuthHeader {
	out := make([]client.AuthHeader, 0, len(c.Headers))
	for name, v := range c.Headers {
		out = append(out, client.AuthHeader{Name: name, Value: string(v)})
	}
	slices.SortFunc(out, func(a, b client.AuthHeader) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// withHeaders adds static headers to what inner (nil: none) gives each request.
type withHeaders struct {
	inner client.Authorizer
	extra []client.AuthHeader
}

func (w withHeaders) Authorize(ctx context.Context, req client.AuthRequest) (client.AuthCredentials, error) {
	var cred client.AuthCredentials
	if w.inner != nil {
		var err error
		if cred, err = w.inner.Authorize(ctx, req); err != nil {
			return cred, err
		}
	}
	cred.Headers = append(cred.Headers[:len(cred.Headers):len(cred.Headers)], w.extra...)
	return cred, nil
}

func (w withHeaders) Challenge(ctx context.Context, c *client.AuthChallenge) error {
	if w.inner == nil {
		return noCredentials{}.Challenge(ctx, c)
	}
	return w.inner.Challenge(ctx, c)
}
