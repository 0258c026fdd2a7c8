package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// TestAuthorizationCodeFlow: one 401 costs discovery, a dynamic registration, the
// authorization request and the code exchange, each with the parameters the MCP spec asks
// for; then the token is sent.
func TestAuthorizationCodeFlow(t *testing.T) {
	f := newFakeAS(t)
	f.prm["scopes_supported"] = []string{"mcp:tools"}
	p := newProvider(t, f)
	assert.Empty(t, header(t, p), "nothing before the first challenge")
	require.NoError(t, p.Challenge(context.Background(), refusal(f, "", `Bearer resource_metadata="`+f.URL+`/.well-known/oauth-protected-resource/mcp", scope="files:read"`)))
	assert.Equal(t, "Bearer tok-1", header(t, p))
	assert.Equal(t, []string{
		"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server", "POST /register",
	}, f.log()[:3])

	require.Len(t, f.registrations, 1)
	assert.Equal(t, map[string]any{"client_name": "fastmcp-client", "redirect_uris": []any{testRedirect},
		"grant_types": []any{"authorization_code", "refresh_token"}, "response_types": []any{"code"},
		"token_endpoint_auth_method": "none", "application_type": "native"}, f.registrations[0])

	require.Len(t, f.authorizeQs, 1)
	q := f.authorizeQs[0]
	verifier := f.tokenForms[0].Get("code_verifier")
	sum := sha256.Sum256([]byte(verifier))
	assert.Equal(t, url.Values{
		"response_type": {"code"}, "client_id": {"dyn-client"}, "redirect_uri": {testRedirect},
		"scope": {"files:read"}, "state": {q.Get("state")}, "resource": {f.resource()},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
	}, q, "the challenge's scope, not scopes_supported")
	assert.Len(t, q.Get("state"), 26)
	assert.GreaterOrEqual(t, len(verifier), 43)

	require.Len(t, f.tokenForms, 1)
	assert.Equal(t, url.Values{"grant_type": {"authorization_code"}, "code": {"code-1"}, "code_verifier": {verifier},
		"redirect_uri": {testRedirect}, "client_id": {"dyn-client"}, "resource": {f.resource()}}, f.tokenForms[0])
	assert.Empty(t, f.tokenHeaders[0].Get("Authorization"), "a public client")
	assert.Empty(t, f.tokenHeaders[0].Get("DPoP"), "the resource did not ask for DPoP")
	assert.Equal(t, Stats{Authorizations: 1, TokenRequests: 1, Registrations: 1}, p.Stats())
}

// TestScopeSelection: the challenge's scope, else scopes_supported, else none; offline_access
// added only where the authorization server lists it, and not with NoOfflineAccess.
func TestScopeSelection(t *testing.T) {
	for name, tc := range map[string]struct {
		challenge string
		prm, as   []string
		noOffline bool
		want      string
		has       bool
	}{
		"challenge":         {`Bearer scope="a b"`, []string{"c"}, nil, false, "a b", true},
		"scopes_supported":  {`Bearer`, []string{"c", "d"}, nil, false, "c d", true},
		"none":              {`Bearer`, nil, nil, false, "", false},
		"offline_access":    {`Bearer scope="a"`, nil, []string{"a", "offline_access"}, false, "a offline_access", true},
		"not listed":        {`Bearer scope="a"`, nil, []string{"a", "b"}, false, "a", true},
		"NoOfflineAccess":   {`Bearer scope="a"`, nil, []string{"offline_access"}, true, "a", true},
		"none, not offline": {`Bearer`, nil, []string{"offline_access"}, false, "", false},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAS(t)
			if tc.prm != nil {
				f.prm["scopes_supported"] = tc.prm
			}
			if tc.as != nil {
				f.as["scopes_supported"] = tc.as
			}
			p := newProvider(t, f, func(c *Config) { c.NoOfflineAccess = tc.noOffline })
			require.NoError(t, p.Challenge(context.Background(), refusal(f, "", tc.challenge)))
			require.Len(t, f.authorizeQs, 1)
			assert.Equal(t, tc.has, f.authorizeQs[0].Has("scope"))
			assert.Equal(t, tc.want, f.authorizeQs[0].Get("scope"))
		})
	}
}

// TestAuthorizationResponseChecks: RFC 9207 iss as the spec's table says (exact compare),
// state, error: a refused response never reaches the token endpoint.
func TestAuthorizationResponseChecks(t *testing.T) {
	for name, tc := range map[string]struct {
		advertised bool
		resp       func(f *fakeAS, q url.Values) url.Values
		err        error
	}{
		"iss advertised, right": {true, func(f *fakeAS, q url.Values) url.Values {
			return url.Values{"code": {"c"}, "state": {q.Get("state")}, "iss": {f.URL}}
		}, nil},
		"iss advertised, absent": {true, func(_ *fakeAS, q url.Values) url.Values { return url.Values{"code": {"c"}, "state": {q.Get("state")}} }, ErrAuthorizationResponse},
		"iss advertised, wrong": {true, func(_ *fakeAS, q url.Values) url.Values {
			return url.Values{"code": {"c"}, "state": {q.Get("state")}, "iss": {"https://evil.example.com"}}
		}, ErrAuthorizationResponse},
		"iss with a slash": {true, func(f *fakeAS, q url.Values) url.Values {
			return url.Values{"code": {"c"}, "state": {q.Get("state")}, "iss": {f.URL + "/"}}
		}, ErrAuthorizationResponse},
		"iss in upper case": {true, func(f *fakeAS, q url.Values) url.Values {
			return url.Values{"code": {"c"}, "state": {q.Get("state")}, "iss": {strings.ToUpper(f.URL)}}
		}, ErrAuthorizationResponse},
		"not advertised, absent": {false, func(_ *fakeAS, q url.Values) url.Values { return url.Values{"code": {"c"}, "state": {q.Get("state")}} }, nil},
		"not advertised, wrong": {false, func(_ *fakeAS, q url.Values) url.Values {
			return url.Values{"code": {"c"}, "state": {q.Get("state")}, "iss": {"https://evil.example.com"}}
		}, ErrAuthorizationResponse},
		"state mismatch": {true, func(f *fakeAS, _ url.Values) url.Values {
			return url.Values{"code": {"c"}, "state": {"other"}, "iss": {f.URL}}
		}, ErrAuthorizationResponse},
		"no code": {true, func(f *fakeAS, q url.Values) url.Values { return url.Values{"state": {q.Get("state")}, "iss": {f.URL}} }, ErrAuthorizationResponse},
		"wrong iss hides the error": {true, func(_ *fakeAS, q url.Values) url.Values {
			return url.Values{"error": {"access_denied"}, "state": {q.Get("state")}, "iss": {"https://evil.example.com"}}
		}, ErrAuthorizationResponse},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAS(t)
			f.as["authorization_response_iss_parameter_supported"] = tc.advertised
			f.redirect = func(q url.Values) url.Values { return tc.resp(f, q) }
			p := newProvider(t, f)
			err := p.Challenge(context.Background(), refusal(f, ""))
			if tc.err == nil {
				require.NoError(t, err)
				assert.Len(t, f.tokenForms, 1)
				return
			}
			require.ErrorIs(t, err, tc.err)
			assert.Empty(t, f.tokenForms, "the code went nowhere")
			assert.Empty(t, header(t, p))
		})
	}
	t.Run("access_denied", func(t *testing.T) {
		f := newFakeAS(t)
		f.redirect = func(q url.Values) url.Values {
			return url.Values{"error": {"access_denied"}, "error_description": {"the user said no"}, "state": {q.Get("state")}, "iss": {f.URL}}
		}
		err := newProvider(t, f).Challenge(context.Background(), refusal(f, ""))
		var ae *AuthorizationError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, &AuthorizationError{Code: "access_denied", Description: "the user said no"}, ae)
		assert.EqualError(t, err, `oauth: authorization refused: access_denied: "the user said no"`)
		assert.Empty(t, f.tokenForms)
	})
	t.Run("no PKCE", func(t *testing.T) {
		f := newFakeAS(t)
		delete(f.as, "code_challenge_methods_supported")
		err := newProvider(t, f).Challenge(context.Background(), refusal(f, ""))
		require.ErrorIs(t, err, ErrUnsupported)
		assert.Empty(t, f.authorizeQs, "refused before any authorization request")
	})
}

// TestClientRegistration: pre-registered first, then a metadata document, then dynamic
// registration; and the token endpoint authentication each one gets.
func TestClientRegistration(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("pre:s3cret"))
	for name, tc := range map[string]struct {
		cfg        func(*Config)
		as         func(map[string]any)
		register   func(map[string]any) (int, map[string]any)
		clientID   string
		authHeader string
		secretForm string
		registered int
	}{
		"pre-registered, basic by default": {cfg: func(c *Config) { c.ClientID, c.ClientSecret = "pre", "s3cret" }, clientID: "pre", authHeader: basic},
		"pre-registered, post when only post": {cfg: func(c *Config) { c.ClientID, c.ClientSecret = "pre", "s3cret" },
			as: func(m map[string]any) { m["token_endpoint_auth_methods_supported"] = []string{"client_secret_post"} }, clientID: "pre", secretForm: "s3cret"},
		"pre-registered public":    {cfg: func(c *Config) { c.ClientID = "pre" }, clientID: "pre"},
		"pre-registered over CIMD": {cfg: func(c *Config) { c.ClientID, c.ClientMetadataURL = "pre", "https://app.example.com/client.json" }, as: func(m map[string]any) { m["client_id_metadata_document_supported"] = true }, clientID: "pre"},
		"CIMD over DCR":            {cfg: func(c *Config) { c.ClientMetadataURL = "https://app.example.com/client.json" }, as: func(m map[string]any) { m["client_id_metadata_document_supported"] = true }, clientID: "https://app.example.com/client.json"},
		"CIMD unsupported: DCR":    {cfg: func(c *Config) { c.ClientMetadataURL = "https://app.example.com/client.json" }, clientID: "dyn-client", registered: 1},
		"DCR, the server's method": {as: func(m map[string]any) { m["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic"} },
			register: func(map[string]any) (int, map[string]any) {
				return 201, map[string]any{"client_id": "dyn", "client_secret": "dsecret", "token_endpoint_auth_method": "client_secret_post"}
			}, clientID: "dyn", secretForm: "dsecret", registered: 1},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAS(t)
			if tc.as != nil {
				tc.as(f.as)
			}
			f.register = tc.register
			fns := []func(*Config){}
			if tc.cfg != nil {
				fns = append(fns, tc.cfg)
			}
			p := newProvider(t, f, fns...)
			require.NoError(t, p.Challenge(context.Background(), refusal(f, "")))
			assert.Len(t, f.registrations, tc.registered)
			assert.Equal(t, tc.clientID, f.authorizeQs[0].Get("client_id"))
			assert.Equal(t, tc.authHeader, f.tokenHeaders[0].Get("Authorization"))
			assert.Equal(t, tc.secretForm, f.tokenForms[0].Get("client_secret"))
			if tc.authHeader == "" {
				assert.Equal(t, tc.clientID, f.tokenForms[0].Get("client_id"))
			}
		})
	}
	t.Run("no way to register", func(t *testing.T) {
		f := newFakeAS(t)
		delete(f.as, "registration_endpoint")
		require.ErrorIs(t, newProvider(t, f).Challenge(context.Background(), refusal(f, "")), ErrUnsupported)
	})
	t.Run("registration refused", func(t *testing.T) {
		f := newFakeAS(t)
		f.register = func(map[string]any) (int, map[string]any) {
			return 400, map[string]any{"error": "invalid_redirect_uri", "error_description": "loopback only"}
		}
		err := newProvider(t, f).Challenge(context.Background(), refusal(f, ""))
		assert.EqualError(t, err, `oauth: client registration refused: HTTP 400 invalid_redirect_uri: "loopback only"`)
	})
}

func TestClientMetadataDocument(t *testing.T) {
	f := newFakeAS(t)
	p := newProvider(t, f, func(c *Config) { c.ClientMetadataURL = "https://app.example.com/client.json" })
	doc, err := p.ClientMetadataDocument()
	require.NoError(t, err)
	assert.JSONEq(t, `{"client_id":"https://app.example.com/client.json","client_name":"fastmcp-client","redirect_uris":["`+testRedirect+`"],
		"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}`, string(doc))
	_, err = newProvider(t, f).ClientMetadataDocument()
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// TestStepUp: a 403 insufficient_scope re-authorizes with the union of the scopes asked for
// and the challenge's, at most MaxStepUps times for one scope set.
func TestStepUp(t *testing.T) {
	f := newFakeAS(t)
	p := newProvider(t, f)
	ctx := context.Background()
	require.NoError(t, p.Challenge(ctx, refusal(f, "", `Bearer scope="mcp:basic"`)))
	forbid := func(sent string) *client.AuthChallenge {
		c := refusal(f, sent, `Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="`+f.URL+`/.well-known/oauth-protected-resource/mcp"`)
		c.Status = 403
		return c
	}
	require.NoError(t, p.Challenge(ctx, forbid("Bearer tok-1")))
	assert.Equal(t, "Bearer tok-2", header(t, p))
	require.Len(t, f.authorizeQs, 2)
	assert.Equal(t, "mcp:basic mcp:write", f.authorizeQs[1].Get("scope"), "the union (SEP-2350)")

	require.NoError(t, p.Challenge(ctx, forbid("Bearer tok-2")))
	err := p.Challenge(ctx, forbid("Bearer tok-3"))
	require.ErrorIs(t, err, ErrStepUpLimit)
	assert.EqualError(t, err, `oauth: step-up limit reached: 2 re-authorizations for scope "mcp:write" (MaxStepUps)`)
	assert.Len(t, f.authorizeQs, 3, "1 + MaxStepUps (2) authorizations")

	t.Run("MaxStepUps 1", func(t *testing.T) {
		f := newFakeAS(t)
		p := newProvider(t, f, func(c *Config) { c.MaxStepUps = 1 })
		require.NoError(t, p.Challenge(ctx, refusal(f, "")))
		c := refusal(f, "Bearer tok-1", `Bearer error="insufficient_scope", scope="x"`)
		c.Status = 403
		require.NoError(t, p.Challenge(ctx, c))
		c.Sent.Authorization = "Bearer tok-2"
		require.ErrorIs(t, p.Challenge(ctx, c), ErrStepUpLimit)
	})
	t.Run("other 403", func(t *testing.T) {
		c := refusal(f, "Bearer tok-3", `Bearer error="invalid_token"`)
		c.Status = 403
		require.ErrorIs(t, p.Challenge(ctx, c), ErrForbidden)
	})
}

// TestRefresh: a token about to expire is refreshed before it is sent; a 401 refreshes
// first; a refreshed token refused again, or a refused refresh, authorizes afresh.
func TestRefresh(t *testing.T) {
	ctx := context.Background()
	f := newFakeAS(t)
	f.as["scopes_supported"] = []string{"mcp", "offline_access"}
	expiresIn := 3600
	f.token = func(form url.Values, _ http.Header) (int, map[string]any, http.Header) {
		if form.Get("grant_type") == "refresh_token" && form.Get("refresh_token") == "revoked" {
			return 400, map[string]any{"error": "invalid_grant"}, nil
		}
		return 200, map[string]any{"access_token": "at-" + form.Get("grant_type")[:4] + strings.Repeat("x", len(f.tokenForms)),
			"token_type": "Bearer", "expires_in": expiresIn, "refresh_token": "rt-" + strings.Repeat("x", len(f.tokenForms))}, nil
	}
	p := newProvider(t, f)
	now := time.Now()
	p.now = func() time.Time { return now }
	require.NoError(t, p.Challenge(ctx, refusal(f, "", `Bearer scope="mcp"`)))
	assert.Equal(t, "mcp offline_access", f.authorizeQs[0].Get("scope"))
	assert.Equal(t, "Bearer at-authx", header(t, p))

	now = now.Add(time.Hour - 10*time.Second) // within expirySkew of the expiry
	assert.Equal(t, "Bearer at-refrxx", header(t, p))
	require.Len(t, f.tokenForms, 2)
	assert.Equal(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt-x"}, "client_id": {"dyn-client"},
		"resource": {f.resource()}}, f.tokenForms[1], "the resource indicator on the refresh too")
	now = time.Now() // x/oauth2 dates the new token by the real clock

	// A 401 for a valid-looking token: refresh first.
	require.NoError(t, p.Challenge(ctx, refusal(f, "Bearer at-refrxx")))
	assert.Equal(t, "Bearer at-refrxxx", header(t, p))
	assert.Len(t, f.authorizeQs, 1)
	// That refreshed token refused too: a new authorization, not another refresh.
	require.NoError(t, p.Challenge(ctx, refusal(f, "Bearer at-refrxxx")))
	assert.Len(t, f.authorizeQs, 2)
	assert.Equal(t, "authorization_code", f.tokenForms[len(f.tokenForms)-1].Get("grant_type"))

	// A refused refresh: a new authorization too.
	p.grant.refresh = "revoked"
	require.NoError(t, p.Challenge(ctx, refusal(f, header(t, p))))
	assert.Len(t, f.authorizeQs, 3)
	assert.Equal(t, Stats{Authorizations: 3, TokenRequests: 6, Refreshes: 2, Registrations: 1}, p.Stats())
}

// TestConcurrentRefusals: many requests refused at once with the same token cost one
// authorization; the others are sent again with its token.
func TestConcurrentRefusals(t *testing.T) {
	f := newFakeAS(t)
	p := newProvider(t, f)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { assert.NoError(t, p.Challenge(ctx, refusal(f, ""))) })
	}
	wg.Wait()
	assert.Equal(t, int64(1), p.Stats().Authorizations)
	assert.Equal(t, "Bearer tok-1", header(t, p))
}

// TestMigration: when the resource names another authorization server, the client
// registers there and never presents the old one's client id or token.
func TestMigration(t *testing.T) {
	as1, as2 := newFakeAS(t), newFakeAS(t)
	as1.register = func(map[string]any) (int, map[string]any) { return 201, map[string]any{"client_id": "as1-client"} }
	as2.register = func(map[string]any) (int, map[string]any) { return 201, map[string]any{"client_id": "as2-client"} }
	f := as1 // the resource's metadata is served by as1's origin
	p := newProvider(t, f)
	ctx := context.Background()
	require.NoError(t, p.Challenge(ctx, refusal(f, "")))
	assert.Equal(t, "Bearer tok-1", header(t, p))

	f.set(func(f *fakeAS) { f.prm["authorization_servers"] = []string{as2.URL} })
	require.NoError(t, p.Challenge(ctx, refusal(f, "Bearer tok-1")))
	assert.Len(t, as2.registrations, 1)
	assert.Equal(t, "as2-client", as2.authorizeQs[0].Get("client_id"))
	assert.Equal(t, "as2-client", as2.tokenForms[0].Get("client_id"))
	assert.Equal(t, "Bearer tok-1", header(t, p), "as2's first token (its own count)")
	assert.Len(t, as1.tokenForms, 1)

	t.Run("pre-registered", func(t *testing.T) {
		f := newFakeAS(t)
		other := newFakeAS(t)
		p := newProvider(t, f, func(c *Config) { c.ClientID = "pre" })
		require.NoError(t, p.Challenge(ctx, refusal(f, "")))
		f.set(func(f *fakeAS) { f.prm["authorization_servers"] = []string{other.URL} })
		err := p.Challenge(ctx, refusal(f, "Bearer tok-1"))
		require.ErrorIs(t, err, ErrIssuerChanged)
		assert.Empty(t, other.authorizeQs, "the credentials are not tried elsewhere")
	})
	t.Run("pre-registered with its issuer", func(t *testing.T) {
		f := newFakeAS(t)
		p := newProvider(t, f, func(c *Config) { c.ClientID, c.Issuer = "pre", "https://as.example.com" })
		require.ErrorIs(t, p.Challenge(ctx, refusal(f, "")), ErrIssuerChanged)
	})
}

// TestClientCredentials: the client's own token, with a secret (client_secret_basic) or a
// private_key_jwt assertion, for the resource, with the challenge's scope.
func TestClientCredentials(t *testing.T) {
	ctx := context.Background()
	f := newFakeAS(t)
	p := newProvider(t, f, func(c *Config) {
		c.Grant, c.ClientID, c.ClientSecret, c.AuthorizeUser, c.RedirectURL = GrantClientCredentials, "svc", "s3cret", nil, ""
	})
	require.NoError(t, p.Challenge(ctx, refusal(f, "", `Bearer scope="jobs"`)))
	assert.Equal(t, "Bearer tok-1", header(t, p))
	assert.Empty(t, f.authorizeQs)
	assert.Equal(t, url.Values{"grant_type": {"client_credentials"}, "scope": {"jobs"}, "resource": {f.resource()}}, f.tokenForms[0])
	assert.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("svc:s3cret")), f.tokenHeaders[0].Get("Authorization"))

	f.set(func(f *fakeAS) { f.as["grant_types_supported"] = []string{"authorization_code"} })
	p = newProvider(t, f, func(c *Config) {
		c.Grant, c.ClientID, c.ClientSecret, c.AuthorizeUser = GrantClientCredentials, "svc", "s", nil
	})
	require.ErrorIs(t, p.Challenge(ctx, refusal(f, "")), ErrUnsupported)
}

// TestTokenRefusals: the token endpoint's refusal is a *TokenError with its code and
// description only; an access token that is not an RFC 6750 token (a header injection) is
// refused; neither a token, a secret nor a code ever appears in an error.
func TestTokenRefusals(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		status int
		resp   map[string]any
		check  func(t *testing.T, err error)
	}{
		"invalid_grant": {400, map[string]any{"error": "invalid_grant", "error_description": "code reused", "access_token": "leaked-token"}, func(t *testing.T, err error) {
			var te *TokenError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, &TokenError{Status: 400, Code: "invalid_grant", Description: "code reused"}, te)
			assert.EqualError(t, err, `oauth: token request refused: HTTP 400 invalid_grant: "code reused"`)
		}},
		"header injection": {200, map[string]any{"access_token": "abc\r\nX-Evil: 1", "token_type": "Bearer"}, func(t *testing.T, err error) {
			require.ErrorIs(t, err, ErrBadToken)
		}},
		"unknown type": {200, map[string]any{"access_token": "abc", "token_type": "MAC"}, func(t *testing.T, err error) {
			require.ErrorIs(t, err, ErrBadToken)
		}},
		"unbound DPoP": {200, map[string]any{"access_token": "abc", "token_type": "DPoP"}, func(t *testing.T, err error) {
			require.ErrorIs(t, err, ErrBadToken)
		}},
		"not JSON, 500": {500, nil, func(t *testing.T, err error) {
			var te *TokenError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, 500, te.Status)
		}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAS(t)
			f.register = func(map[string]any) (int, map[string]any) {
				return 201, map[string]any{"client_id": "c", "client_secret": "client-secret-value", "token_endpoint_auth_method": "client_secret_post"}
			}
			f.redirect = func(q url.Values) url.Values {
				return url.Values{"code": {"secret-code-value"}, "state": {q.Get("state")}, "iss": {f.URL}}
			}
			f.token = func(url.Values, http.Header) (int, map[string]any, http.Header) { return tc.status, tc.resp, nil }
			p := newProvider(t, f)
			err := p.Challenge(ctx, refusal(f, ""))
			tc.check(t, err)
			for _, secret := range []string{"leaked-token", "client-secret-value", "secret-code-value", "X-Evil"} {
				assert.NotContains(t, err.Error(), secret)
			}
			assert.Empty(t, header(t, p))
		})
	}
}

// TestAuthorizeTimeout: the user step is bounded.
func TestAuthorizeTimeout(t *testing.T) {
	f := newFakeAS(t)
	p := newProvider(t, f, func(c *Config) {
		c.AuthorizeTimeout = time.Millisecond
		c.AuthorizeUser = func(ctx context.Context, _ string) (url.Values, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
	})
	err := p.Challenge(context.Background(), refusal(f, ""))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Empty(t, f.tokenForms)
}

// TestChallengeContext: a refusal waiting for another's authorization gives up with its
// own context.
func TestChallengeContext(t *testing.T) {
	f := newFakeAS(t)
	release, entered := make(chan struct{}), make(chan struct{})
	p := newProvider(t, f, func(c *Config) {
		next := FetchRedirect(nil)
		c.AuthorizeUser = func(ctx context.Context, u string) (url.Values, error) {
			close(entered)
			<-release
			return next(ctx, u)
		}
	})
	done := make(chan error, 1)
	go func() { done <- p.Challenge(context.Background(), refusal(f, "")) }()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, p.Challenge(ctx, refusal(f, "")), context.Canceled)
	close(release)
	require.NoError(t, <-done)
}

// TestPrivateKeyJWT: client credentials with a private_key_jwt assertion (RFC 7523): iss and
// sub the client, aud the issuer, a jti, a short life, signed with the key; no secret.
func TestPrivateKeyJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	f := newFakeAS(t)
	f.as["token_endpoint_auth_methods_supported"] = []string{"private_key_jwt"}
	now := time.Now()
	p := newProvider(t, f, func(c *Config) {
		c.Grant, c.ClientID, c.PrivateKey, c.AuthorizeUser = GrantClientCredentials, "svc", key, nil
	})
	p.now = func() time.Time { return now }
	require.NoError(t, p.Challenge(context.Background(), refusal(f, "")))
	form := f.tokenForms[0]
	assert.Equal(t, "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", form.Get("client_assertion_type"))
	assert.Empty(t, f.tokenHeaders[0].Get("Authorization"))
	assert.Empty(t, form.Get("client_secret"))
	tok, err := jwt.ParseSigned(form.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
	require.NoError(t, err)
	var claims jwt.Claims
	require.NoError(t, tok.Claims(&key.PublicKey, &claims))
	require.NoError(t, claims.ValidateWithLeeway(jwt.Expected{Issuer: "svc", Subject: "svc", AnyAudience: jwt.Audience{f.URL}, Time: now}, 0))
	assert.Len(t, claims.ID, 26)
	assert.Equal(t, time.Minute, claims.Expiry.Time().Sub(claims.IssuedAt.Time()))
}

// TestOtherServer: a Provider sends its token to its server's origin only, and answers no
// other server's challenge.
func TestOtherServer(t *testing.T) {
	f := newFakeAS(t)
	p := newProvider(t, f)
	ctx := context.Background()
	require.NoError(t, p.Challenge(ctx, refusal(f, "")))
	other := client.AuthRequest{Method: "POST", URL: "http://127.0.0.1:1/mcp"}
	cred, err := p.Authorize(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, client.AuthCredentials{}, cred)
	require.ErrorIs(t, p.Challenge(ctx, &client.AuthChallenge{Request: other, Status: 401}), ErrInvalidConfig)
	assert.Equal(t, "Bearer tok-1", header(t, p), "its own server still gets it")
}
