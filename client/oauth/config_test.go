package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfig(t *testing.T) {
	step := func(context.Context, string) (url.Values, error) { return nil, nil }
	ok := Config{ServerURL: "https://mcp.example.com/mcp", RedirectURL: "http://127.0.0.1:8976/callback", AuthorizeUser: step}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		mutate func(*Config)
		err    string // "" valid
	}{
		"valid":                   {func(*Config) {}, ""},
		"loopback http":           {func(c *Config) { c.ServerURL = "http://localhost:8080/mcp" }, ""},
		"no ServerURL":            {func(c *Config) { c.ServerURL = "" }, "ServerURL"},
		"fragment":                {func(c *Config) { c.ServerURL = "https://mcp.example.com/mcp#x" }, "ServerURL"},
		"plain http":              {func(c *Config) { c.ServerURL = "http://mcp.example.com/mcp" }, "neither https nor loopback"},
		"no user step":            {func(c *Config) { c.AuthorizeUser = nil }, "needs RedirectURL and AuthorizeUser"},
		"insecure redirect":       {func(c *Config) { c.RedirectURL = "http://app.example.com/cb" }, "RedirectURL"},
		"client credentials":      {func(c *Config) { c.Grant, c.ClientID, c.ClientSecret = GrantClientCredentials, "id", "s" }, ""},
		"cc without a client":     {func(c *Config) { c.Grant = GrantClientCredentials }, "pre-registered ClientID"},
		"unknown grant":           {func(c *Config) { c.Grant = 9 }, "unknown Grant"},
		"unknown DPoP":            {func(c *Config) { c.DPoP = 9 }, "unknown DPoP"},
		"P-384 DPoP key":          {func(c *Config) { c.DPoPKey = p384 }, "P-256"},
		"negative timeout":        {func(c *Config) { c.RequestTimeout = -1 }, "negative"},
		"negative step-ups":       {func(c *Config) { c.MaxStepUps = -1 }, "negative"},
		"CIMD over http":          {func(c *Config) { c.ClientMetadataURL = "http://app.example.com/c.json" }, "https URL with a path"},
		"CIMD without a path":     {func(c *Config) { c.ClientMetadataURL = "https://app.example.com" }, "https URL with a path"},
		"application type":        {func(c *Config) { c.ApplicationType = "desktop" }, "ApplicationType"},
		"unknown auth method":     {func(c *Config) { c.TokenEndpointAuthMethod = "tls_client_auth" }, "TokenEndpointAuthMethod"},
		"private_key_jwt, no key": {func(c *Config) { c.TokenEndpointAuthMethod = authPrivateKeyJWT }, "needs PrivateKey"},
		"P-384 client key":        {func(c *Config) { c.PrivateKey = p384 }, ""},
	} {
		t.Run(name, func(t *testing.T) {
			c := ok
			tc.mutate(&c)
			p, err := New(c)
			if tc.err == "" {
				require.NoError(t, err)
				assert.Equal(t, DefaultRequestTimeout, p.cfg.RequestTimeout)
				assert.Equal(t, DefaultAuthorizeTimeout, p.cfg.AuthorizeTimeout)
				assert.Equal(t, DefaultMaxDocumentBytes, p.cfg.MaxDocumentBytes)
				assert.Equal(t, DefaultMaxStepUps, p.cfg.MaxStepUps)
				assert.Equal(t, DefaultClientName, p.cfg.ClientName)
				assert.Equal(t, "native", p.cfg.ApplicationType)
				return
			}
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	assert.Equal(t, "RS256", keyAlgorithm(rk))
	assert.Equal(t, "ES384", keyAlgorithm(p384))
}
