package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiscoverAuthorizationServer(t *testing.T) {
	iss := newIssuer(t)
	md, err := DiscoverAuthorizationServer(context.Background(), iss.URL, testClient())
	require.NoError(t, err)
	assert.Equal(t, AuthorizationServerMetadata{Issuer: iss.URL, JWKSURI: iss.JWKSURL(), IntrospectionEndpoint: iss.IntrospectionURL()}, md)

	_, err = DiscoverAuthorizationServer(context.Background(), iss.URL+"/", testClient())
	require.ErrorContains(t, err, "names issuer", "the issuer is compared exactly: a trailing slash differs")

	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server/tenant1":
			http.NotFound(w, r)
		case "/tenant1/.well-known/openid-configuration":
			_, _ = w.Write([]byte(`{"issuer":"` + srv.URL + `/tenant1","jwks_uri":"` + srv.URL + `/tenant1/jwks"}`))
		case "/.well-known/oauth-authorization-server/big":
			_, _ = w.Write([]byte(`{"issuer":"x"}` + strings.Repeat(" ", DefaultMaxMetadataBytes)))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	md, err = DiscoverAuthorizationServer(context.Background(), srv.URL+"/tenant1", testClient())
	require.NoError(t, err, "OpenID Connect discovery, appended to the issuer's path")
	assert.Equal(t, srv.URL+"/tenant1/jwks", md.JWKSURI)
	_, err = DiscoverAuthorizationServer(context.Background(), srv.URL+"/big", testClient())
	require.ErrorContains(t, err, "over 262144 bytes")
	_, err = DiscoverAuthorizationServer(context.Background(), "http://as.example", nil)
	require.ErrorIs(t, err, ErrInvalidConfig, "https only, except loopback")
}
