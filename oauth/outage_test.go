package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// unavailableBody is the body of the answer to a token the server could not check.
const unavailableBody = `{"error":"temporarily_unavailable","error_description":"The access token could not be checked now; retry later"}`

// wantUnavailable is that answer on the wire (normalized): 503 with Retry-After, the
// default 5 s, and no challenge (it is no refusal of the token).
var wantUnavailable = "HTTP/1.1 503 Service Unavailable\r\ncache-control: no-store\r\ncontent-length: " + itoa(len(unavailableBody)) +
	"\r\ncontent-type: application/json\r\nretry-after: 5\r\n\r\n" + unavailableBody

// closedURL is the URL of a loopback server that no longer listens.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// TestGateOutage: when the key set or the introspection endpoint is down, unreachable,
// answers garbage or does not answer within the verifier's budget, every stack answers 503
// with Retry-After, never 401 invalid_token (which makes RFC 6750 clients drop a good token
// and authorize again); once the authorization server is back, the same token is admitted.
func TestGateOutage(t *testing.T) {
	iss := newIssuer(t)
	exp := itoa(int(time.Now().Add(time.Hour).Unix()))
	iss.Register("opaque-ok", `{"active":true,"sub":"alice","client_id":"inspector","aud":"`+testResource+`","scope":"mcp:tools","exp":`+exp+`}`)
	unreachable := closedURL(t)
	type verifierCase struct {
		name  string
		fault oauthtest.Fault
		make  func(t *testing.T, c *clock) (Verifier, string)
	}
	jwt := func(tweak func(*JWTConfig)) func(t *testing.T, c *clock) (Verifier, string) {
		return func(t *testing.T, c *clock) (Verifier, string) {
			return newJWT(t, iss, testResource, c, tweak), goodToken(t, iss, c, testResource, oauthtest.KeyEC, "mcp:tools")
		}
	}
	introspection := func(tweak func(*IntrospectionConfig)) func(t *testing.T, c *clock) (Verifier, string) {
		return func(t *testing.T, c *clock) (Verifier, string) {
			return newIntrospection(t, iss, c, tweak), "opaque-ok"
		}
	}
	short := func(cfg *JWTConfig) { cfg.JWKS.FetchTimeout = 50 * time.Millisecond }
	cases := []verifierCase{
		{"key set down", oauthtest.FaultDown, jwt(nil)},
		{"key set garbage", oauthtest.FaultGarbage, jwt(nil)},
		{"key set hangs past FetchTimeout", oauthtest.FaultHang, jwt(short)},
		{"key set unreachable", oauthtest.NoFault, jwt(func(cfg *JWTConfig) { cfg.JWKS.URL = unreachable })},
		{"introspection down", oauthtest.FaultDown, introspection(nil)},
		{"introspection garbage", oauthtest.FaultGarbage, introspection(nil)},
		{"introspection hangs past Timeout", oauthtest.FaultHang, introspection(func(cfg *IntrospectionConfig) { cfg.Timeout = 50 * time.Millisecond })},
		{"introspection unreachable", oauthtest.NoFault, introspection(func(cfg *IntrospectionConfig) { cfg.Endpoint = unreachable })},
	}
	for _, stack := range allStacks {
		t.Run(stack, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					c := newClock()
					v, tok := tc.make(t, c)
					rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, RequiredScopes: []string{"mcp:tools"}, Verifier: v, Logger: quiet})
					require.NoError(t, err)
					rs.now = c.Now
					addr := startStack(t, stack, testCore(t, nil), streamable.ListenerConfig{Config: streamable.Config{RequestGate: rs.Gate}})
					iss.SetFault(tc.fault)
					defer iss.SetFault(oauthtest.NoFault)
					got := exchange(t, addr, post(addr, "whoami", "Authorization: Bearer "+tok))
					assert.Equal(t, closing(wantUnavailable), normalize(got))
					assert.NotContains(t, got, tok)
					if tc.fault == oauthtest.NoFault {
						return // nothing to bring back
					}
					iss.SetFault(oauthtest.NoFault)
					c.Advance(DefaultMinRefreshInterval) // a failed key set fetch is retried after it
					assert.Equal(t, wantResult("alice via inspector [mcp:tools]"), normalize(exchange(t, addr, post(addr, "whoami", "Authorization: Bearer "+tok))),
						"the outage was not remembered against the token")
				})
			}
		})
	}
}

// TestJWKSOutageClassification: with the key set unreachable, a token that needs a key the
// server cannot get is answered "could not check"; a token bad on its face (expired, of
// another audience or issuer, without sub) is still invalid, and costs no fetch.
func TestJWKSOutageClassification(t *testing.T) {
	iss, c := newIssuer(t), newClock()
	v := newJWT(t, iss, testResource, c, nil)
	iss.SetFault(oauthtest.FaultDown)
	ctx := context.Background()
	_, err := v.Verify(ctx, goodToken(t, iss, c, testResource, oauthtest.KeyEC, ""))
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrInvalidToken, "no key set: the server could not check the token")
	c.Advance(DefaultMinRefreshInterval) // a fetch would be allowed again
	fetches := iss.Fetches()
	now := c.Now()
	for name, tok := range map[string]oauthtest.Token{
		"expired":         {Subject: "alice", Audience: testResource, Expiry: now.Add(-time.Hour)},
		"other audience":  {Subject: "alice", Audience: "https://other.example/mcp", Expiry: now.Add(time.Hour)},
		"other issuer":    {Issuer: "https://evil.example", Subject: "alice", Audience: testResource, Expiry: now.Add(time.Hour)},
		"no sub":          {Audience: testResource, Expiry: now.Add(time.Hour)},
		"not yet valid":   {Subject: "alice", Audience: testResource, Expiry: now.Add(2 * time.Hour), NotBefore: now.Add(time.Hour)},
		"issued too late": {Subject: "alice", Audience: testResource, Expiry: now.Add(2 * time.Hour), IssuedAt: now.Add(time.Hour)},
	} {
		tok.Kid = oauthtest.KeyEC // a key of the set, which cannot be fetched
		_, err = v.Verify(ctx, mint(t, iss, tok))
		require.ErrorIs(t, err, ErrInvalidToken, name)
	}
	assert.Equal(t, fetches, iss.Fetches(), "a token bad on its face never reaches the key set")
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestGateVerifyBudget: with an authorization server that never answers, the gate answers
// 503 before streamable's RequestGateTimeout ends, whatever the verifier's own timeout
// (shorter than the gate's, equal to it, longer): never the 504 of the gate's timeout, nor a
// 401 when the verifier's timeout and the gate's end together. In a synctest bubble, so the
// race of equal timers is played out exactly.
func TestGateVerifyBudget(t *testing.T) {
	iss := newIssuer(t) // its listener lives outside the bubble; only its signing keys are used
	gateTimeout := streamable.DefaultRequestGateTimeout
	for _, own := range []time.Duration{0, gateTimeout, time.Minute} {
		for _, kind := range []string{"jwt", "introspection"} {
			t.Run(kind+"/timeout="+own.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var calls atomic.Int32
					ended := make(chan struct{}, 1)
					defer func() {
						if calls.Load() > 0 {
							<-ended // a key set fetch outlives the request, up to its FetchTimeout
						}
					}()
					hang := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
						calls.Add(1)
						defer func() { ended <- struct{}{} }()
						<-r.Context().Done()
						return nil, r.Context().Err()
					})}
					c := newClock()
					var v Verifier
					var tok string
					if kind == "jwt" {
						v = newJWT(t, iss, testResource, c, func(cfg *JWTConfig) { cfg.JWKS.HTTPClient, cfg.JWKS.FetchTimeout = hang, own })
						tok = goodToken(t, iss, c, testResource, oauthtest.KeyEC, "")
					} else {
						v = newIntrospection(t, iss, c, func(cfg *IntrospectionConfig) { cfg.HTTPClient, cfg.Timeout = hang, own })
						tok = "opaque"
					}
					rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, Verifier: v, Logger: quiet})
					require.NoError(t, err)
					rs.now = c.Now
					// As streamable runs a gate: a context with RequestGateTimeout.
					ctx, cancel := context.WithTimeout(context.Background(), gateTimeout)
					defer cancel()
					start := time.Now()
					d, err := rs.Gate(ctx, gateRequest("POST", "/mcp", "Authorization", "Bearer "+tok))
					require.NoError(t, err, "a gate error is a 500")
					require.NoError(t, ctx.Err(), "the gate answered only after its timeout (504)")
					assert.Less(t, time.Since(start), gateTimeout)
					require.NotNil(t, d.Response)
					assert.Equal(t, http.StatusServiceUnavailable, d.Response.Status)
					assert.Equal(t, "5", d.Response.Header["Retry-After"])
					assert.Equal(t, int32(1), calls.Load())
				})
			})
		}
	}
}

// TestRetryAfter: the 503's Retry-After is RetryAfter in whole seconds, rounded up; a
// negative one is invalid; the verifiers' default timeouts end before the gate's.
func TestRetryAfter(t *testing.T) {
	down := verifierFunc(func(context.Context, string) (*TokenInfo, error) { return nil, errUnavailable })
	for _, tc := range []struct {
		set  time.Duration
		want string
	}{{0, "5"}, {1500 * time.Millisecond, "2"}, {time.Millisecond, "1"}, {time.Minute, "60"}} {
		rs, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: down, RetryAfter: tc.set, Logger: quiet})
		require.NoError(t, err)
		d, err := rs.Gate(context.Background(), gateRequest("POST", "/mcp", "Authorization", "Bearer abc"))
		require.NoError(t, err)
		require.NotNil(t, d.Response)
		assert.Equal(t, tc.want, d.Response.Header["Retry-After"], tc.set)
		assert.NotContains(t, d.Response.Header, "WWW-Authenticate", "no challenge: the token is not refused")
	}
	_, err := New(Config{Resource: testResource, AuthorizationServers: []string{"https://as.example"}, Verifier: down, RetryAfter: -time.Second})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Less(t, DefaultFetchTimeout, streamable.DefaultRequestGateTimeout)
	assert.Less(t, DefaultIntrospectionTimeout, streamable.DefaultRequestGateTimeout)
}
