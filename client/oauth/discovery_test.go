package oauth

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCovers(t *testing.T) {
	server, err := url.Parse("https://MCP.example.com/tenant/mcp")
	require.NoError(t, err)
	for resource, want := range map[string]bool{
		"https://mcp.example.com/tenant/mcp":      true,
		"https://mcp.example.com/tenant/mcp/":     true,
		"https://mcp.example.com/tenant":          true,
		"https://mcp.example.com":                 true,
		"https://mcp.example.com/":                true,
		"HTTPS://mcp.example.com:443/tenant/mcp":  true,
		"https://mcp.example.com/ten":             false, // not at a segment boundary
		"https://mcp.example.com/tenant/mcp/more": false,
		"https://mcp.example.com:8443/tenant/mcp": false,
		"http://mcp.example.com/tenant/mcp":       false,
		"https://evil.example.com/tenant/mcp":     false,
		"https://mcp.example.com/tenant/mcp#x":    false,
		"https://mcp.example.com/tenant/mcp?x=1":  false,
		"":                                        false,
		"%":                                       false,
	} {
		assert.Equal(t, want, covers(resource, server), resource)
	}
}

// TestDiscoveryOrder: the challenge's URL first; without one, the path-based well-known
// URL, then the root one; the authorization server metadata URLs in the spec's order for an
// issuer with and without a path.
func TestDiscoveryOrder(t *testing.T) {
	ctx := context.Background()
	t.Run("challenge URL", func(t *testing.T) {
		f := newFakeAS(t)
		f.prmPath = "/custom/metadata.json"
		p := newProvider(t, f)
		md, err := p.discoverResource(ctx, f.URL+"/custom/metadata.json")
		require.NoError(t, err)
		assert.Equal(t, f.resource(), md.Resource)
		assert.Equal(t, []string{"GET /custom/metadata.json"}, f.log())
	})
	t.Run("path-based then root", func(t *testing.T) {
		f := newFakeAS(t)
		f.prmPath = "/.well-known/oauth-protected-resource"
		f.prm["resource"] = f.URL
		p := newProvider(t, f)
		md, err := p.discoverResource(ctx, f.URL+"/gone")
		require.NoError(t, err)
		assert.Equal(t, f.URL, md.Resource, "the root document names the origin")
		assert.Equal(t, []string{"GET /gone", "GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-protected-resource"}, f.log())
	})
	t.Run("none", func(t *testing.T) {
		f := newFakeAS(t)
		f.prmPath = ""
		_, err := newProvider(t, f).discoverResource(ctx, "")
		require.ErrorIs(t, err, ErrNoMetadata)
		assert.Contains(t, err.Error(), "HTTP 404")
	})
	t.Run("no authorization servers", func(t *testing.T) {
		f := newFakeAS(t)
		delete(f.prm, "authorization_servers")
		_, err := newProvider(t, f).discoverResource(ctx, "")
		require.ErrorIs(t, err, ErrNoMetadata)
	})
	for name, tc := range map[string]struct {
		issuerPath, served string
		want               []string
	}{
		"no path, RFC 8414":    {"", "/.well-known/oauth-authorization-server", []string{"GET /.well-known/oauth-authorization-server"}},
		"no path, OpenID":      {"", "/.well-known/openid-configuration", []string{"GET /.well-known/oauth-authorization-server", "GET /.well-known/openid-configuration"}},
		"path, insertion":      {"/tenant1", "/.well-known/oauth-authorization-server/tenant1", []string{"GET /.well-known/oauth-authorization-server/tenant1"}},
		"path, OpenID insert":  {"/tenant1", "/.well-known/openid-configuration/tenant1", []string{"GET /.well-known/oauth-authorization-server/tenant1", "GET /.well-known/openid-configuration/tenant1"}},
		"path, OpenID append":  {"/tenant1", "/tenant1/.well-known/openid-configuration", []string{"GET /.well-known/oauth-authorization-server/tenant1", "GET /.well-known/openid-configuration/tenant1", "GET /tenant1/.well-known/openid-configuration"}},
		"path, trailing slash": {"/tenant1/", "/.well-known/oauth-authorization-server/tenant1", []string{"GET /.well-known/oauth-authorization-server/tenant1"}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAS(t)
			f.asPath = tc.served
			f.as["issuer"] = f.URL + tc.issuerPath
			p := newProvider(t, f)
			md, err := p.serverMetadata(ctx, f.URL+tc.issuerPath)
			require.NoError(t, err)
			assert.Equal(t, f.URL+tc.issuerPath, md.Issuer)
			assert.Equal(t, tc.want, f.log())
			_, err = p.serverMetadata(ctx, f.URL+tc.issuerPath)
			require.NoError(t, err)
			assert.Len(t, f.log(), len(tc.want), "fetched once per Provider")
		})
	}
}

// TestDiscoveryRefusals: a document naming another resource or another issuer, an insecure
// URL or a document over MaxDocumentBytes is not used, and nothing is sent on.
func TestDiscoveryRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("resource mismatch", func(t *testing.T) {
		f := newFakeAS(t)
		f.prm["resource"] = "https://evil.example.com/mcp"
		p := newProvider(t, f)
		err := p.Challenge(ctx, refusal(f, "", `Bearer resource_metadata="`+f.URL+`/.well-known/oauth-protected-resource/mcp"`))
		require.ErrorIs(t, err, ErrResourceMismatch)
		assert.Equal(t, []string{"GET /.well-known/oauth-protected-resource/mcp"}, f.log(), "no authorization server was asked")
	})
	t.Run("issuer mismatch", func(t *testing.T) {
		f := newFakeAS(t)
		f.as["issuer"] = "https://attacker.example.com"
		p := newProvider(t, f)
		err := p.Challenge(ctx, refusal(f, ""))
		require.ErrorIs(t, err, ErrIssuerMismatch)
		assert.Equal(t, []string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server"}, f.log(),
			"no registration, authorization or token request")
	})
	t.Run("issuer differs by a slash", func(t *testing.T) {
		f := newFakeAS(t)
		f.as["issuer"] = f.URL + "/"
		_, err := newProvider(t, f).serverMetadata(ctx, f.URL)
		require.ErrorIs(t, err, ErrIssuerMismatch)
	})
	t.Run("insecure endpoint", func(t *testing.T) {
		f := newFakeAS(t)
		f.as["token_endpoint"] = "http://as.example.com/token"
		_, err := newProvider(t, f).serverMetadata(ctx, f.URL)
		require.ErrorIs(t, err, ErrInsecureURL)
	})
	t.Run("insecure metadata URL", func(t *testing.T) {
		f := newFakeAS(t)
		_, err := newProvider(t, f).discoverResource(ctx, "http://rs.example.com/prm")
		require.NoError(t, err, "falls back to the well-known URLs")
		_, err = newProvider(t, f).serverMetadata(ctx, "http://as.example.com")
		require.ErrorIs(t, err, ErrNoAuthorizationServer)
		assert.ErrorIs(t, err, ErrInsecureURL)
	})
	t.Run("MaxDocumentBytes", func(t *testing.T) {
		f := newFakeAS(t)
		f.as["padding"] = strings.Repeat("x", 2000)
		_, err := newProvider(t, f, func(c *Config) { c.MaxDocumentBytes = 1024 }).serverMetadata(ctx, f.URL)
		require.ErrorIs(t, err, ErrNoAuthorizationServer)
		assert.Contains(t, err.Error(), "exceeds 1024 bytes (MaxDocumentBytes)")
		_, err = newProvider(t, f).serverMetadata(ctx, f.URL)
		require.NoError(t, err, "the default holds it")
	})
	t.Run("redirects are not followed", func(t *testing.T) {
		f := newFakeAS(t)
		f.prmPath = ""
		p := newProvider(t, f)
		_, err := p.discoverResource(ctx, f.URL+"/authorize?redirect_uri="+url.QueryEscape(f.URL+"/.well-known/oauth-protected-resource/mcp"))
		require.ErrorIs(t, err, ErrNoMetadata)
		assert.Contains(t, err.Error(), "HTTP 302")
	})
}
