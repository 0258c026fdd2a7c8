package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultMaxMetadataBytes bounds an authorization server's metadata document.
const DefaultMaxMetadataBytes = 256 << 10

// AuthorizationServerMetadata is what the resource server reads of an authorization
// server's metadata (RFC 8414 §2, OpenID Connect Discovery).
type AuthorizationServerMetadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// DiscoverAuthorizationServer fetches the metadata of the authorization server whose issuer
// identifier is issuer: RFC 8414's /.well-known/oauth-authorization-server (inserted before
// the issuer's path, §3.1), else OpenID Connect's /.well-known/openid-configuration
// (appended to it). The document must name issuer exactly (RFC 8414 §3.3), be at most
// [DefaultMaxMetadataBytes], and come over https (http only on a loopback host), without a
// redirect. client nil means a client of its own; ctx bounds the fetches.
func DiscoverAuthorizationServer(ctx context.Context, issuer string, client *http.Client) (AuthorizationServerMetadata, error) {
	if err := fetchURL("issuer", issuer); err != nil {
		return AuthorizationServerMetadata{}, err
	}
	u, err := url.Parse(issuer)
	if err != nil || u.RawQuery != "" || u.Fragment != "" {
		return AuthorizationServerMetadata{}, fmt.Errorf("%w: issuer %q must have no query or fragment", ErrInvalidConfig, issuer)
	}
	c := http.Client{}
	if client != nil {
		c = *client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	origin := u.Scheme + "://" + u.Host
	var errs []string
	for _, where := range []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + path + "/.well-known/openid-configuration",
	} {
		md, err := getMetadata(ctx, &c, where)
		switch {
		case err != nil:
			errs = append(errs, err.Error())
			continue
		case md.Issuer != issuer:
			return md, fmt.Errorf("oauth: the metadata at %s names issuer %q, not %q", where, md.Issuer, issuer)
		case md.JWKSURI == "" && md.IntrospectionEndpoint == "":
			return md, fmt.Errorf("oauth: the metadata at %s has neither jwks_uri nor introspection_endpoint", where)
		}
		return md, nil
	}
	return AuthorizationServerMetadata{}, fmt.Errorf("oauth: no metadata for issuer %q: %s", issuer, strings.Join(errs, "; "))
}

func getMetadata(ctx context.Context, c *http.Client, where string) (AuthorizationServerMetadata, error) {
	var md AuthorizationServerMetadata
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return md, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return md, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return md, fmt.Errorf("%s: status %d", where, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, DefaultMaxMetadataBytes+1))
	if err != nil {
		return md, err
	}
	if len(body) > DefaultMaxMetadataBytes {
		return md, fmt.Errorf("%s: over %d bytes", where, DefaultMaxMetadataBytes)
	}
	if err := json.Unmarshal(body, &md); err != nil {
		return md, fmt.Errorf("%s: not JSON metadata", where)
	}
	return md, nil
}
