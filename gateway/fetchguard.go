package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/client"
)

// fetchGuard is the HTTP transport of one backend's OAuth client: it fetches only from the
// backend's origin, the Issuer's and the AllowedOrigins. The resource_metadata of a 401,
// the authorization_servers of that metadata and the endpoints of an authorization
// server's metadata all come from the backend or whoever it names: without the guard a
// backend could make the Gateway request any URL it reaches (its internal network, cloud
// metadata endpoints), with the Gateway's network position.
type fetchGuard struct {
	backend string
	allowed map[string]bool // origins
	base    http.RoundTripper
	log     *slog.Logger
}

func newFetchGuard(b Backend, log *slog.Logger) (*fetchGuard, error) {
	g := &fetchGuard{backend: b.Name, allowed: map[string]bool{}, base: http.DefaultTransport, log: log}
	for _, raw := range append([]string{b.URL, b.Credentials.OAuth.Issuer}, b.Credentials.OAuth.AllowedOrigins...) {
		o, err := origin(raw)
		if err != nil {
			return nil, badCredentials(&b, "%v", err)
		}
		g.allowed[o] = true
	}
	return g, nil
}

// client is the http.Client the OAuth client fetches with.
func (g *fetchGuard) client() *http.Client { return &http.Client{Transport: g} }

// RoundTrip sends req when its origin is allowed; otherwise it logs and refuses it, with
// nothing sent. Within a challenge (guardedAuthorizer) a refusal refuses the rest of it.
func (g *fetchGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	trip, _ := req.Context().Value(tripKey{}).(*atomic.Bool)
	where := req.URL.Scheme + "://" + req.URL.Host + req.URL.EscapedPath() // not the query
	switch {
	case trip != nil && trip.Load():
		return refuse(req, fmt.Errorf("%w: %s (backend %q), after an earlier refusal in this authorization", ErrFetchRefused, where, g.backend))
	case g.allowed[originOf(req.URL)]:
		return g.base.RoundTrip(req)
	}
	if trip != nil {
		trip.Store(true)
	}
	g.log.Error("gateway: refused to fetch a URL the backend's authorization named: not the backend's origin, its issuer's or an allowed origin",
		"url", where)
	return refuse(req, fmt.Errorf("%w: %s (backend %q)", ErrFetchRefused, where, g.backend))
}

func refuse(req *http.Request, err error) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return nil, err
}

// tripKey marks the context of one challenge with the flag its first refused fetch sets.
type tripKey struct{}

// guardedAuthorizer fails a challenge during which its guard refused a fetch, and refuses
// every fetch of that challenge after the first refused one: a backend that names another
// origin is refused, not worked around (the OAuth client would go on to the well-known URLs
// on the backend's origin), and its next challenge is judged afresh.
type guardedAuthorizer struct {
	client.Authorizer
	guard *fetchGuard
}

func (a guardedAuthorizer) Challenge(ctx context.Context, c *client.AuthChallenge) error {
	trip := new(atomic.Bool)
	err := a.Authorizer.Challenge(context.WithValue(ctx, tripKey{}, trip), c)
	if trip.Load() {
		return fmt.Errorf("%w (backend %q)", ErrFetchRefused, a.guard.backend)
	}
	return err
}

// origin returns raw's origin, scheme://host[:port] in lower case without a default port.
func origin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	return originOf(u), nil
}

func originOf(u *url.URL) string {
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	return scheme + "://" + host
}
