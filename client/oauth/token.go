package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// credential is what Authorize sends, ready-made: the header, and what a proof needs.
type credential struct {
	header string    // "Bearer <token>" or "DPoP <token>"
	dpop   bool      // DPoP-bound: each request carries a proof with ath
	ath    string    // the token's hash, for proofs
	expiry time.Time // zero when the server gave no expires_in
	// refreshed marks a token a refresh obtained after a 401: when it is refused too, the
	// next challenge authorizes afresh instead of refreshing again.
	refreshed bool
}

// grantState is the token behind the credential, with what renewing it needs. p.mu guards it.
type grantState struct {
	issuer    string
	resource  string
	refresh   string   // "" when none was issued
	requested []string // the scopes asked for, the base of a step-up's union
	dpop      bool
}

// expirySkew renews a token this long before its expiry, so that it does not expire in
// flight.
const expirySkew = 30 * time.Second

// tokenTransport completes every request to a token endpoint: the resource indicator
// (RFC 8707, also on refreshes, which x/oauth2 sends without it), the client assertion of
// private_key_jwt (RFC 7523), and a DPoP proof (RFC 9449 §5), sent again once with the
// server's nonce when it asks for one (use_dpop_nonce, §8).
type tokenTransport struct {
	p        *Provider
	base     http.RoundTripper
	resource string
	reg      *registration
	audience string // the authorization server's issuer, the assertion's aud
	dpop     bool
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	raw, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, err
	}
	if t.resource != "" && form.Get("resource") == "" {
		form.Set("resource", t.resource)
	}
	if t.reg.method == authPrivateKeyJWT {
		a, err := t.p.clientAssertion(t.reg.clientID, t.audience)
		if err != nil {
			return nil, err
		}
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", a)
	}
	body := form.Encode()
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(strings.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
		if t.dpop {
			proof, err := t.p.dpop.proof(http.MethodPost, htu(req.URL), "", t.p.nonces.get(tokenNonces+req.URL.String()), t.p.now())
			if err != nil {
				return nil, err
			}
			r.Header.Set("DPoP", proof)
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		nonce := resp.Header.Get("DPoP-Nonce")
		t.p.nonces.set(tokenNonces+req.URL.String(), nonce)
		if !t.dpop || attempt > 0 || nonce == "" || resp.StatusCode != http.StatusBadRequest {
			return resp, nil
		}
		// A 400 with a nonce: again with it, if the error is use_dpop_nonce.
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(b))
			return resp, nil
		}
	}
}

// tokenContext carries the HTTP client x/oauth2 uses for one flow's token requests.
func (p *Provider) tokenContext(ctx context.Context, as *serverMetadata, reg *registration, resource string, dpop bool) context.Context {
	base := p.hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc := &http.Client{
		Transport:     &tokenTransport{p: p, base: base, resource: resource, reg: reg, audience: as.Issuer, dpop: dpop},
		CheckRedirect: noRedirects,
		Timeout:       p.cfg.RequestTimeout,
	}
	return context.WithValue(ctx, oauth2.HTTPClient, hc)
}

// oauth2Config is x/oauth2's view of the client at as.
func (p *Provider) oauth2Config(as *serverMetadata, reg *registration, scopes []string) *oauth2.Config {
	c := &oauth2.Config{
		ClientID:    reg.clientID,
		Endpoint:    oauth2.Endpoint{AuthURL: as.AuthorizationEndpoint, TokenURL: as.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: p.cfg.RedirectURL,
		Scopes:      scopes,
	}
	switch reg.method {
	case authBasic:
		c.ClientSecret, c.Endpoint.AuthStyle = reg.secret, oauth2.AuthStyleInHeader
	case authPost:
		c.ClientSecret = reg.secret
	}
	return c
}

// clientAssertion signs a private_key_jwt assertion (RFC 7523 §3): the client as issuer and
// subject, the authorization server's issuer as audience, valid for a minute.
func (p *Provider) clientAssertion(clientID, audience string) (string, error) {
	now := p.now()
	claims := jwt.Claims{Issuer: clientID, Subject: clientID, Audience: jwt.Audience{audience}, ID: newRandom(),
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Minute))}
	s, err := jwt.Signed(p.assertionSigner).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("oauth: signing the client assertion: %w", err)
	}
	return s, nil
}

func newAssertionSigner(key any, alg string) (jose.Signer, error) {
	return jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
}

// tokenError is a token request's failure, without the response body x/oauth2 keeps (an
// unreadable body may hold anything).
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		te := &TokenError{Code: re.ErrorCode, Description: re.ErrorDescription}
		if re.Response != nil {
			te.Status = re.Response.StatusCode
		}
		return te
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("oauth: token request: %w", err)
	}
	return &TokenError{Description: err.Error()}
}

// keep validates a token response and makes it the Provider's credential. p.mu must be held.
func (p *Provider) keep(tok *oauth2.Token, g grantState, refreshed bool) error {
	if !b64token(tok.AccessToken) {
		return ErrBadToken
	}
	bound := strings.EqualFold(tok.TokenType, "DPoP")
	switch {
	case bound && !g.dpop:
		return fmt.Errorf("%w: a DPoP token for a request without a proof", ErrBadToken)
	case !bound && tok.TokenType != "" && !strings.EqualFold(tok.TokenType, "Bearer"):
		return fmt.Errorf("%w: token_type %q", ErrBadToken, tok.TokenType)
	}
	g.dpop = bound // an authorization server may answer a proof with a Bearer token (RFC 9449 §5)
	if tok.RefreshToken != "" {
		g.refresh = tok.RefreshToken
	}
	c := &credential{header: "Bearer " + tok.AccessToken, dpop: bound, expiry: tok.Expiry, refreshed: refreshed}
	if bound {
		c.header = "DPoP " + tok.AccessToken
		c.ath = tokenHash(tok.AccessToken)
	}
	p.grant = &g
	p.cur.Store(c)
	return nil
}

// b64token reports whether s is an RFC 6750 b64token, safe in a header as it is.
func b64token(s string) bool {
	if s == "" || len(s) > 16<<10 {
		return false
	}
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			break
		}
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// refreshLocked renews the token with its refresh token. p.mu must be held.
func (p *Provider) refreshLocked(ctx context.Context, as *serverMetadata, afterRefusal bool) error {
	g := *p.grant
	reg, err := p.clientFor(ctx, as)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.RequestTimeout)
	defer cancel()
	conf := p.oauth2Config(as, reg, g.requested)
	src := conf.TokenSource(p.tokenContext(ctx, as, reg, g.resource, g.dpop), &oauth2.Token{RefreshToken: g.refresh})
	p.stats.tokenRequests.Add(1)
	tok, err := src.Token()
	if err != nil {
		return tokenError(err)
	}
	p.stats.refreshes.Add(1)
	return p.keep(tok, g, afterRefusal)
}

// clientCredentialsLocked gets a token for the client itself. p.mu must be held.
func (p *Provider) clientCredentialsLocked(ctx context.Context, as *serverMetadata, reg *registration, g grantState) error {
	if len(as.GrantTypes) > 0 && !contains(as.GrantTypes, "client_credentials") {
		return fmt.Errorf("%w: %s does not list the client_credentials grant", ErrUnsupported, as.Issuer)
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.RequestTimeout)
	defer cancel()
	cc := clientcredentials.Config{ClientID: reg.clientID, TokenURL: as.TokenEndpoint, Scopes: g.requested,
		EndpointParams: url.Values{"resource": {g.resource}}, AuthStyle: oauth2.AuthStyleInParams}
	switch reg.method {
	case authBasic:
		cc.ClientSecret, cc.AuthStyle = reg.secret, oauth2.AuthStyleInHeader
	case authPost:
		cc.ClientSecret = reg.secret
	}
	p.stats.tokenRequests.Add(1)
	tok, err := cc.Token(p.tokenContext(ctx, as, reg, g.resource, g.dpop))
	if err != nil {
		return tokenError(err)
	}
	return p.keep(tok, g, false)
}
