package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/oauth"
)

// authScenarios are the client authorization scenarios conformance-client passes: the 25
// scored by --requirements 2026-07-28 (of which 14 by 2025-11-25) and the unscored
// extensions client credentials (secret and private_key_jwt) and DPoP (with and without
// nonces).
var authScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/resource-mismatch", "auth/offline-access-scope",
	"auth/offline-access-not-supported", "auth/authorization-server-migration",
	"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer",
	"auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch",
	"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/dpop", "auth/dpop-nonce",
}

func init() {
	for _, name := range authScenarios {
		clientScenarios[name] = scenarioAuth
	}
}

// The suite's fixed values: the client ID metadata document URL its mock authorization
// server accepts without fetching it (auth/basic-cimd), and a redirect URI nobody serves:
// the mock redirects at once, and oauth.FetchRedirect reads the code from the redirect.
const (
	conformanceCIMD     = "https://conformance-test.local/client-metadata.json"
	conformanceRedirect = "http://localhost:3000/callback"
)

// conformanceAuthorizer is the OAuth provider for an auth/* scenario at url: the
// authorization code flow with the suite's redirect, a client ID metadata document, dynamic
// registration, or the pre-registered client the context gives; client credentials for
// the auth/client-credentials-* scenarios.
func conformanceAuthorizer(url string, cc conformanceContext) (client.Authorizer, error) {
	cfg := oauth.Config{
		ServerURL:         url,
		ClientName:        "fastmcp-bench",
		ClientMetadataURL: conformanceCIMD,
		RedirectURL:       conformanceRedirect,
		AuthorizeUser:     oauth.FetchRedirect(nil),
		ClientID:          cc.ClientID,
		ClientSecret:      cc.ClientSecret,
	}
	switch cc.Name {
	case "auth/client-credentials-basic":
		cfg.Grant = oauth.GrantClientCredentials
	case "auth/client-credentials-jwt":
		cfg.Grant = oauth.GrantClientCredentials
		key, err := parsePrivateKey(cc.PrivateKeyPEM)
		if err != nil {
			return nil, err
		}
		cfg.PrivateKey, cfg.SigningAlgorithm = key, cc.SigningAlgorithm
	}
	return oauth.New(cfg)
}

// parsePrivateKey reads a PKCS #8 PEM private key.
func parsePrivateKey(p string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(p))
	if block == nil {
		return nil, errors.New("private_key_pem: no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("private_key_pem: %w", err)
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private_key_pem: a %T cannot sign", k)
	}
	return s, nil
}

// scenarioAuth lists the tools and calls the mock's test-tool: a 401 starts the
// authorization, the call may step up (403 insufficient_scope), and the second request sees
// the resource's authorization server migrate.
func scenarioAuth(ctx context.Context, c *client.Client, _ conformanceContext) error {
	if _, err := c.ListTools(ctx); err != nil {
		return wrap("tools/list", err)
	}
	return callTool(ctx, c, "test-tool", nil)
}
