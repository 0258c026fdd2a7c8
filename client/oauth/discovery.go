package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/fastmcp-go/fastmcp/internal/loopback"
)

// resourceMetadata is the part of an RFC 9728 protected resource metadata document a
// Provider reads.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
	DPoPAlgs             []string `json:"dpop_signing_alg_values_supported"`
	DPoPRequired         bool     `json:"dpop_bound_access_tokens_required"`
}

// serverMetadata is the part of an RFC 8414 (or OpenID discovery) document a Provider reads.
type serverMetadata struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	RegistrationEndpoint  string   `json:"registration_endpoint"`
	ScopesSupported       []string `json:"scopes_supported"`
	GrantTypes            []string `json:"grant_types_supported"`
	AuthMethods           []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
	DPoPAlgs              []string `json:"dpop_signing_alg_values_supported"`
	IssParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
	CIMDSupported         bool     `json:"client_id_metadata_document_supported"`
}

// checkURL admits https, and http on loopback only (tests, local servers).
func checkURL(u *url.URL) error {
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && loopback.Host(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%w: %s://%s", ErrInsecureURL, u.Scheme, u.Host)
}

// errNotFound marks a document that is not there (any non-200 answer), so discovery tries
// the next candidate URL.
var errNotFound = errors.New("oauth: no document")

// fetchJSON GETs raw (https or loopback http), without following redirects, and decodes a
// 200 response of at most MaxDocumentBytes into v.
func (p *Provider) fetchJSON(ctx context.Context, raw string, v any) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("oauth: %q is not an absolute URL", raw)
	}
	if err := checkURL(u); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.hc.Do(req)
	if err != nil {
		return fmt.Errorf("oauth: GET %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, int64(p.cfg.MaxDocumentBytes)))
		return fmt.Errorf("%w: GET %s: HTTP %d", errNotFound, u.Redacted(), resp.StatusCode)
	}
	return p.decode(resp.Body, v, "GET "+u.Redacted())
}

// decode reads at most MaxDocumentBytes of one JSON document into v.
func (p *Provider) decode(r io.Reader, v any, what string) error {
	body, err := io.ReadAll(io.LimitReader(r, int64(p.cfg.MaxDocumentBytes)+1))
	if err != nil {
		return fmt.Errorf("oauth: %s: %w", what, err)
	}
	if len(body) > p.cfg.MaxDocumentBytes {
		return fmt.Errorf("oauth: %s: the document exceeds %d bytes (MaxDocumentBytes)", what, p.cfg.MaxDocumentBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("oauth: %s: %w", what, err)
	}
	return nil
}

// discoverResource finds the server's protected resource metadata: at the challenge's
// resource_metadata URL when it gave one, else (or when that fails) at the path-based
// well-known URL, then at the root one (RFC 9728 §3.1, the MCP spec's order). The document
// must name the server, or a prefix of its URL (the root document names the origin).
func (p *Provider) discoverResource(ctx context.Context, fromChallenge string) (*resourceMetadata, error) {
	origin := p.server.Scheme + "://" + p.server.Host
	var candidates []string
	if fromChallenge != "" {
		candidates = append(candidates, fromChallenge)
	}
	if path := strings.TrimSuffix(p.server.EscapedPath(), "/"); path != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+path)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	var errs []error
	for _, c := range candidates {
		var md resourceMetadata
		if err := p.fetchJSON(ctx, c, &md); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			errs = append(errs, err)
			continue
		}
		if !covers(md.Resource, p.server) {
			return nil, fmt.Errorf("%w: %q does not name %s", ErrResourceMismatch, md.Resource, p.server.Redacted())
		}
		if len(md.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("%w: %s lists no authorization_servers", ErrNoMetadata, c)
		}
		return &md, nil
	}
	return nil, fmt.Errorf("%w: %w", ErrNoMetadata, errors.Join(errs...))
}

// covers reports whether resource (a metadata document's resource) names server: the same
// scheme and authority, and a path that is the server's or a parent of it (a root document
// names the origin).
func covers(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || r.RawQuery != "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, server.Scheme) || !strings.EqualFold(authority(r), authority(server)) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(server.EscapedPath(), "/")
	return rp == "" || rp == sp || strings.HasPrefix(sp, rp+"/")
}

// authority is u's host and port, the port left out when it is the scheme's default.
func authority(u *url.URL) string {
	port := u.Port()
	if port == "" || strings.EqualFold(u.Scheme, "https") && port == "443" || strings.EqualFold(u.Scheme, "http") && port == "80" {
		return u.Hostname()
	}
	return u.Hostname() + ":" + port
}

// serverMetadata returns the authorization server metadata of issuer, fetched once per
// Provider: the RFC 8414 and OpenID discovery URLs in the MCP spec's order, the first that
// answers. Its issuer must be issuer, byte for byte (RFC 8414 §3.3); p.mu must be held.
func (p *Provider) serverMetadata(ctx context.Context, issuer string) (*serverMetadata, error) {
	if md := p.servers[issuer]; md != nil {
		return md, nil
	}
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: issuer %q is not a URL without query or fragment", ErrNoAuthorizationServer, issuer)
	}
	origin := u.Scheme + "://" + u.Host
	var candidates []string
	if path := strings.TrimSuffix(u.EscapedPath(), "/"); path != "" {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server" + path,
			origin + "/.well-known/openid-configuration" + path,
			origin + path + "/.well-known/openid-configuration",
		}
	} else {
		candidates = []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	var errs []error
	for _, c := range candidates {
		var md serverMetadata
		if err := p.fetchJSON(ctx, c, &md); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			errs = append(errs, err)
			continue
		}
		if md.Issuer != issuer {
			return nil, fmt.Errorf("%w: %s says %q, not %q", ErrIssuerMismatch, c, md.Issuer, issuer)
		}
		for _, e := range []string{md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint} {
			if e == "" {
				continue
			}
			eu, err := url.Parse(e)
			if err != nil || eu.Host == "" {
				return nil, fmt.Errorf("%w: %s: endpoint %q is not an absolute URL", ErrNoAuthorizationServer, c, e)
			}
			if err := checkURL(eu); err != nil {
				return nil, err
			}
		}
		if md.TokenEndpoint == "" {
			return nil, fmt.Errorf("%w: %s has no token_endpoint", ErrNoAuthorizationServer, c)
		}
		p.servers[issuer] = &md
		return &md, nil
	}
	return nil, fmt.Errorf("%w: %w", ErrNoAuthorizationServer, errors.Join(errs...))
}
