package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/fastmcp-go/fastmcp/client"
)

// Provider is an OAuth 2.1 client for one MCP server, as the MCP authorization spec asks of
// clients: set it as client.Config.Authorizer. It holds its tokens in memory only. It is safe
// for concurrent use: concurrent refusals share one authorization.
type Provider struct {
	cfg             Config
	server          *url.URL
	hc              *http.Client
	dpop            *dpopKey // nil with DPoPNever
	assertionSigner jose.Signer
	now             func() time.Time
	nonces          nonces
	cur             atomic.Pointer[credential] // what Authorize sends; nil: nothing yet
	sem             chan struct{}              // one authorization at a time; guards the fields below

	origin    string                     // ServerURL's scheme and host: the only one tokens go to
	servers   map[string]*serverMetadata // by issuer
	issuer    string                     // the authorization server the state below belongs to
	preIssuer string                     // the one the pre-registered client was first used with
	reg       *registration
	grant     *grantState
	stepUps   map[string]int // re-authorizations per challenged scope set
	stats     counters
}

var _ client.Authorizer = (*Provider)(nil)

type counters struct {
	authorizations, tokenRequests, refreshes, registrations atomic.Int64
}

// Stats counts what a Provider did.
type Stats struct {
	Authorizations int64 // user steps of the authorization code flow
	TokenRequests  int64 // requests to token endpoints (code exchanges, refreshes, client credentials)
	Refreshes      int64 // tokens renewed with a refresh token
	Registrations  int64 // dynamic client registrations
}

// Stats returns the Provider's counts so far.
func (p *Provider) Stats() Stats {
	return Stats{Authorizations: p.stats.authorizations.Load(), TokenRequests: p.stats.tokenRequests.Load(),
		Refreshes: p.stats.refreshes.Load(), Registrations: p.stats.registrations.Load()}
}

// New returns a Provider for cfg; an invalid cfg is an error wrapping ErrInvalidConfig.
func New(cfg Config) (*Provider, error) {
	cfg, server, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Provider{cfg: cfg, server: server, origin: origin(cfg.ServerURL), now: time.Now, sem: make(chan struct{}, 1),
		servers: map[string]*serverMetadata{}, stepUps: map[string]int{}}
	hc := http.Client{}
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	hc.CheckRedirect = noRedirects
	if hc.Timeout == 0 || hc.Timeout > cfg.RequestTimeout {
		hc.Timeout = cfg.RequestTimeout
	}
	p.hc = &hc
	if cfg.DPoP != DPoPNever {
		if p.dpop, err = newDPoPKey(cfg.DPoPKey); err != nil {
			return nil, fmt.Errorf("%w: DPoP key: %v", ErrInvalidConfig, err)
		}
	}
	if cfg.PrivateKey != nil {
		if p.assertionSigner, err = newAssertionSigner(cfg.PrivateKey, cfg.SigningAlgorithm); err != nil {
			return nil, fmt.Errorf("%w: PrivateKey with %s: %v", ErrInvalidConfig, cfg.SigningAlgorithm, err)
		}
	}
	return p, nil
}

// noRedirects stops every redirect: metadata and tokens come from the URLs named, never from
// where a server sends the client (SSRF, mix-up).
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Authorize implements client.Authorizer: the current token (none before the server's
// first 401, and none for a request to another origin than ServerURL's), and with a
// DPoP-bound one a fresh proof for the request. A token about to
// expire is refreshed first when a refresh token allows.
func (p *Provider) Authorize(ctx context.Context, req client.AuthRequest) (client.AuthCredentials, error) {
	c := p.cur.Load()
	if c == nil || !p.sameOrigin(req.URL) {
		return client.AuthCredentials{}, nil // never a token for another server
	}
	now := p.now()
	if !c.expiry.IsZero() && now.Add(expirySkew).After(c.expiry) {
		c = p.renew(ctx, c)
	}
	out := client.AuthCredentials{Authorization: c.header}
	if c.dpop {
		proof, err := p.dpop.proof(req.Method, req.URL, c.ath, p.nonces.get(req.URL), now)
		if err != nil {
			return client.AuthCredentials{}, err
		}
		out.DPoP = proof
	}
	return out, nil
}

// sameOrigin reports whether u is on ServerURL's origin; the common case, u starting with
// it as written, costs a comparison.
func (p *Provider) sameOrigin(u string) bool {
	if n := len(p.origin); len(u) > n && u[:n] == p.origin && u[n] == '/' {
		return true
	}
	return origin(u) == p.origin
}

// renew refreshes an expiring credential; it returns the credential to send, the old one
// when nothing better came (the server's refusal then starts an authorization).
func (p *Provider) renew(ctx context.Context, c *credential) *credential {
	if p.lock(ctx) != nil {
		return c
	}
	defer p.unlock()
	if cur := p.cur.Load(); cur != c {
		return cur
	}
	if p.grant == nil || p.grant.refresh == "" || p.servers[p.grant.issuer] == nil {
		return c
	}
	if p.refreshLocked(ctx, p.servers[p.grant.issuer], false) != nil {
		return c
	}
	return p.cur.Load()
}

func (p *Provider) lock(ctx context.Context) error {
	select {
	case p.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Provider) unlock() { <-p.sem }

// Challenge implements client.Authorizer: a DPoP nonce is kept and the request sent again;
// a 401 renews the token (refresh, else a new authorization: discovery, registration, the
// grant); a 403 insufficient_scope re-authorizes with the union of the scopes asked for so
// far and the challenge's, at most MaxStepUps times per scope set.
func (p *Provider) Challenge(ctx context.Context, c *client.AuthChallenge) error {
	if !p.sameOrigin(c.Request.URL) {
		return fmt.Errorf("%w: %s is not the Provider's server %s", ErrInvalidConfig, origin(c.Request.URL), p.origin)
	}
	ch := readChallenge(c.WWWAuthenticate)
	p.nonces.set(c.Request.URL, c.DPoPNonce)
	if ch.err == "use_dpop_nonce" {
		if c.DPoPNonce == "" {
			return fmt.Errorf("%w: use_dpop_nonce without a DPoP-Nonce header", ErrForbidden)
		}
		return nil
	}
	if c.Status == http.StatusForbidden && ch.err != "insufficient_scope" {
		return fmt.Errorf("%w: %q", ErrForbidden, ch.err)
	}
	if err := p.lock(ctx); err != nil {
		return err
	}
	defer p.unlock()
	cur := p.cur.Load()
	if cur != nil && cur.header != c.Sent.Authorization {
		return nil // renewed since the request was sent: try the new token
	}
	if c.Status == http.StatusForbidden {
		key := strings.Join(slices.Sorted(slices.Values(ch.scope)), " ")
		if p.stepUps[key] >= p.cfg.MaxStepUps {
			return fmt.Errorf("%w: %d re-authorizations for scope %q (MaxStepUps)", ErrStepUpLimit, p.stepUps[key], key)
		}
		p.stepUps[key]++
		return p.authorizeLocked(ctx, ch, true, cur)
	}
	return p.authorizeLocked(ctx, ch, false, cur)
}

// authorizeLocked gets a new token for a refusal. p.mu must be held.
func (p *Provider) authorizeLocked(ctx context.Context, ch authChallenge, stepUp bool, cur *credential) error {
	md, err := p.discoverResource(ctx, ch.resourceMetadata)
	if err != nil {
		return err
	}
	issuer := md.AuthorizationServers[0]
	if p.cfg.Issuer != "" && contains(md.AuthorizationServers, p.cfg.Issuer) {
		issuer = p.cfg.Issuer
	}
	p.bind(issuer)
	as, err := p.serverMetadata(ctx, issuer)
	if err != nil {
		return err
	}
	if !stepUp && p.grant != nil && p.grant.refresh != "" && (cur == nil || !cur.refreshed) {
		err := p.refreshLocked(ctx, as, true)
		if err == nil || ctx.Err() != nil {
			return err
		}
		p.grant.refresh = "" // refused: authorize afresh
	}
	g := grantState{issuer: issuer, resource: md.Resource, requested: p.scopes(ch, md, as), dpop: p.wantDPoP(ch, md, as)}
	reg, err := p.clientFor(ctx, as)
	if err != nil {
		return err
	}
	if p.cfg.Grant == GrantClientCredentials {
		return p.clientCredentialsLocked(ctx, as, reg, g)
	}
	return p.authorizationCodeLocked(ctx, as, reg, g)
}

// bind makes issuer the authorization server of the Provider's state: when the resource
// names another one than before, the tokens and the dynamic registration of the old one are
// dropped (credentials belong to the server that issued them); a metadata document's client
// id is kept, and a pre-registered client fails in clientFor. p.mu must be held.
func (p *Provider) bind(issuer string) {
	if p.issuer == issuer {
		return
	}
	if p.issuer != "" {
		p.grant = nil
		p.cur.Store(nil)
		clear(p.stepUps)
		if p.reg != nil && p.reg.issuer != "" && !p.reg.pre {
			p.reg = nil
		}
	}
	p.issuer = issuer
}

// scopes selects the scopes to ask for: the challenge's, else the resource's
// scopes_supported, else none; united with those asked for before (the spec's step-up
// union), and offline_access where the authorization server lists it (a refresh token).
func (p *Provider) scopes(ch authChallenge, md *resourceMetadata, as *serverMetadata) []string {
	base := ch.scope
	if len(base) == 0 {
		base = md.ScopesSupported
	}
	var s []string
	if p.grant != nil {
		s = slices.Clone(p.grant.requested)
	}
	s = union(s, base)
	if p.cfg.Grant == GrantAuthorizationCode && !p.cfg.NoOfflineAccess && len(s) > 0 && contains(as.ScopesSupported, "offline_access") {
		s = union(s, []string{"offline_access"})
	}
	return s
}

// wantDPoP decides whether this grant's tokens are DPoP-bound.
func (p *Provider) wantDPoP(ch authChallenge, md *resourceMetadata, as *serverMetadata) bool {
	switch p.cfg.DPoP {
	case DPoPNever:
		return false
	case DPoPAlways:
		return true
	}
	asked := ch.dpop || md.DPoPRequired || len(md.DPoPAlgs) > 0
	return asked && (len(as.DPoPAlgs) == 0 || contains(as.DPoPAlgs, "ES256"))
}

func contains(list []string, v string) bool { return slices.Contains(list, v) }

// union appends to a the elements of b it lacks, in order.
func union(a, b []string) []string {
	for _, v := range b {
		if !slices.Contains(a, v) {
			a = append(a, v)
		}
	}
	return a
}
