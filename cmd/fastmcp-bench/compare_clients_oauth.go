package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/oauth"
	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// startProtectedServer starts the OAuth line's server: fastmcp serve with the demo fixtures
// as an OAuth resource server (JWTs checked against the key set of a test issuer this
// process runs), on cpu when not negative. It returns the endpoint's URL and what stops both.
func startProtectedServer(ctx context.Context, bin string, cpu int) (string, func(), error) {
	iss, err := oauthtest.NewIssuer()
	if err != nil {
		return "", nil, err
	}
	// The resource URL is a flag, so the port is chosen before serve listens on it.
	port, err := freePort()
	if err != nil {
		iss.Close()
		return "", nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	resource := "http://" + addr + "/mcp"
	srv, err := startChild(ctx, nameOAuth+" server", cpu, bin, "serve", "--addr", addr, "--fixtures", "demo", "--tasks-store", "off",
		"--oauth-resource", resource, "--oauth-issuer", iss.URL)
	if err != nil {
		iss.Close()
		return "", nil, err
	}
	stop := func() { srv.stop(); iss.Close() }
	if srv.url != resource {
		stop()
		return "", nil, fmt.Errorf("the protected server announced %s, not %s", srv.url, resource)
	}
	return resource, stop, nil
}

// oauthAuthorizer is the OAuth line's token provider: client/oauth discovering the test
// issuer from the server's challenge and authorizing as its pre-registered public client
// (the user step is the issuer's immediate consent, fetched). The first call pays for the
// flow; the measured ones use the cached token.
func oauthAuthorizer(url string) (client.Authorizer, error) {
	return oauth.New(oauth.Config{ServerURL: url, ClientID: oauthtest.PublicClient,
		RedirectURL: "http://127.0.0.1:1/callback", AuthorizeUser: oauth.FetchRedirect(nil)})
}
