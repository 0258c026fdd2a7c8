package client

import (
	"bufio"
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeAuthorizer hands out cred and records the challenges; answer decides each.
type fakeAuthorizer struct {
	mu         sync.Mutex
	cred       AuthCredentials
	requests   []AuthRequest
	challenges []AuthChallenge
	answer     func(c *AuthChallenge, a *fakeAuthorizer) error
	authErr    error
}

func (a *fakeAuthorizer) Authorize(_ context.Context, req AuthRequest) (AuthCredentials, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, req)
	return a.cred, a.authErr
}

func (a *fakeAuthorizer) Challenge(_ context.Context, c *AuthChallenge) error {
	a.mu.Lock()
	a.challenges = append(a.challenges, *c)
	a.mu.Unlock()
	return a.answer(c, a)
}

func writeOK(r *fakeReq, w *bufio.Writer) {
	jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}`)
}

// refusal is a 401 as the MCP authorization spec has it, with a JSON body (which the client
// must not take for a JSON-RPC response) and two challenges in two headers.
const refusal = "HTTP/1.1 401 Unauthorized\r\n" +
	"WWW-Authenticate: Bearer resource_metadata=\"http://rs.example/.well-known/oauth-protected-resource/mcp\", scope=\"files:read\"\r\n" +
	"WWW-Authenticate: DPoP algs=\"ES256\"\r\n" +
	"DPoP-Nonce: n-1\r\n" +
	"Content-Type: application/json\r\nContent-Length: 25\r\n\r\n" +
	`{"error":"invalid_token"}`

// TestAuthorizerChallengeThenRetry: a 401 goes to Challenge with its headers, and the request
// is sent again, byte for byte the same body, with the credentials Authorize now returns.
func TestAuthorizerChallengeThenRetry(t *testing.T) {
	var mu sync.Mutex
	var seen []*fakeReq
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		mu.Lock()
		seen = append(seen, r)
		mu.Unlock()
		if r.header("Authorization") == "" {
			w.WriteString(refusal)
			return true
		}
		writeOK(r, w)
		return true
	})
	a := &fakeAuthorizer{answer: func(_ *AuthChallenge, a *fakeAuthorizer) error {
		a.mu.Lock()
		a.cred = AuthCredentials{Authorization: "DPoP tok-1", DPoP: "proof.jwt.sig"}
		a.mu.Unlock()
		return nil
	}}
	c := connect(t, f.url(), Config{Era: EraModern, Authorizer: a})
	res, err := c.CallTool(context.Background(), "echo", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"ok"}]`, string(res.Content))

	require.Len(t, seen, 2)
	assert.Equal(t, string(seen[0].body), string(seen[1].body), "the same request, again")
	assert.Empty(t, seen[0].header("Authorization"))
	assert.Empty(t, seen[0].header("DPoP"))
	assert.Equal(t, "DPoP tok-1", seen[1].header("Authorization"))
	assert.Equal(t, "proof.jwt.sig", seen[1].header("DPoP"))

	require.Len(t, a.challenges, 1)
	ch := a.challenges[0]
	assert.Equal(t, AuthRequest{Method: "POST", URL: f.url()}, ch.Request)
	assert.Equal(t, 401, ch.Status)
	assert.Equal(t, []string{
		`Bearer resource_metadata="http://rs.example/.well-known/oauth-protected-resource/mcp", scope="files:read"`,
		`DPoP algs="ES256"`,
	}, ch.WWWAuthenticate)
	assert.Equal(t, "n-1", ch.DPoPNonce)
	assert.Equal(t, AuthCredentials{}, ch.Sent)
	assert.Equal(t, []AuthRequest{{"POST", f.url()}, {"POST", f.url()}}, a.requests)
	assert.Equal(t, PoolStats{Dials: 1, Reuses: 1}, c.Stats(), "the refusal's connection is reused: its body was read")
}

// TestAuthorizerChallengeLimit: a server that refuses forever costs MaxAuthChallenges
// challenges, then the request fails with the refusal as *HTTPError.
func TestAuthorizerChallengeLimit(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	f := newFake(t, func(_ *fakeReq, w *bufio.Writer) bool {
		mu.Lock()
		requests++
		mu.Unlock()
		w.WriteString(refusal)
		return true
	})
	a := &fakeAuthorizer{cred: AuthCredentials{Authorization: "Bearer stale"}, answer: func(*AuthChallenge, *fakeAuthorizer) error { return nil }}
	c := connect(t, f.url(), Config{Era: EraModern, Authorizer: a})
	_, err := c.CallTool(context.Background(), "echo", nil)
	var he *HTTPError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 401, he.Status)
	assert.Len(t, a.challenges, MaxAuthChallenges)
	assert.Equal(t, MaxAuthChallenges+1, requests)
	assert.Equal(t, AuthCredentials{Authorization: "Bearer stale"}, a.challenges[0].Sent)
}

// TestAuthorizerChallengeError: the Authorizer's error fails the request, wrapped, at once.
func TestAuthorizerChallengeError(t *testing.T) {
	errNo := errors.New("no consent")
	requests := 0
	f := newFake(t, func(_ *fakeReq, w *bufio.Writer) bool {
		requests++
		w.WriteString(refusal)
		return true
	})
	a := &fakeAuthorizer{answer: func(*AuthChallenge, *fakeAuthorizer) error { return errNo }}
	c := connect(t, f.url(), Config{Era: EraModern, Authorizer: a})
	_, err := c.CallTool(context.Background(), "echo", nil)
	require.ErrorIs(t, err, errNo)
	assert.EqualError(t, err, "client: authorization: no consent")
	assert.Equal(t, 1, requests)

	// The next request is served normally.
	a.answer = func(*AuthChallenge, *fakeAuthorizer) error { return nil }
	a.cred = AuthCredentials{Authorization: "Bearer t"}
	f2 := newFake(t, func(r *fakeReq, w *bufio.Writer) bool { writeOK(r, w); return true })
	c2 := connect(t, f2.url(), Config{Era: EraModern, Authorizer: a})
	_, err = c2.CallTool(context.Background(), "echo", nil)
	require.NoError(t, err)
}

// TestAuthorizer403: a 403 is a challenge only with WWW-Authenticate (insufficient_scope);
// one without (an Origin refusal, say) reaches the caller as before.
func TestAuthorizer403(t *testing.T) {
	for name, tc := range map[string]struct {
		resp       string
		challenges int
	}{
		"insufficient_scope": {"HTTP/1.1 403 Forbidden\r\nWWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"files:write\"\r\nContent-Length: 0\r\n\r\n", 1},
		"no challenge":       {"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nforbidden", 0},
	} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
				calls++
				if calls == 1 {
					w.WriteString(tc.resp)
					return true
				}
				writeOK(r, w)
				return true
			})
			a := &fakeAuthorizer{answer: func(*AuthChallenge, *fakeAuthorizer) error { return nil }}
			c := connect(t, f.url(), Config{Era: EraModern, Authorizer: a})
			_, err := c.CallTool(context.Background(), "echo", nil)
			assert.Len(t, a.challenges, tc.challenges)
			if tc.challenges == 0 {
				var he *HTTPError
				require.ErrorAs(t, err, &he)
				assert.Equal(t, &HTTPError{Status: 403, Body: []byte("forbidden")}, he)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 403, a.challenges[0].Status)
		})
	}
}

// TestAuthorizerUnsafeCredentials: a credential with a control character (header injection)
// fails the request before a byte is sent; so does an Authorize error.
func TestAuthorizerUnsafeCredentials(t *testing.T) {
	errDown := errors.New("token store down")
	for name, a := range map[string]*fakeAuthorizer{
		"CRLF in Authorization": {cred: AuthCredentials{Authorization: "Bearer x\r\nX-Evil: 1"}},
		"NUL in DPoP":           {cred: AuthCredentials{Authorization: "DPoP x", DPoP: "a\x00b"}},
		"Authorize error":       {authErr: errDown},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool { writeOK(r, w); return true })
			c := connect(t, f.url(), Config{Era: EraModern, Authorizer: a})
			_, err := c.CallTool(context.Background(), "echo", nil)
			if a.authErr != nil {
				require.ErrorIs(t, err, errDown)
			} else {
				require.ErrorIs(t, err, ErrMalformed)
			}
			assert.Zero(t, f.accepts.Load(), "nothing was sent")
		})
	}
}

// TestNoAuthorizer401: without an Authorizer a 401 reaches the caller as *HTTPError, as before.
func TestNoAuthorizer401(t *testing.T) {
	f := newFake(t, func(_ *fakeReq, w *bufio.Writer) bool {
		w.WriteString("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Type: text/plain\r\nContent-Length: " + strconv.Itoa(len("no")) + "\r\n\r\nno")
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern})
	_, err := c.CallTool(context.Background(), "echo", nil)
	var he *HTTPError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 401, he.Status)
}

// Further credential headers are sent as given on every request; a name the client writes
// itself, or one that is not a token, fails the request before it is sent.
func TestAuthorizerHeaders(t *testing.T) {
	seen := make(chan *fakeReq, 4)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		seen <- r
		writeOK(r, w)
		return true
	})
	a := &fakeAuthorizer{cred: AuthCredentials{Headers: []AuthHeader{{"X-API-Key", "k-1"}, {"X-Tenant", "t"}}}}
	c := connect(t, f.url(), Config{Era: EraModern, Authorizer: a})
	_, err := c.CallTool(context.Background(), "echo", nil)
	require.NoError(t, err)
	r := <-seen
	assert.Equal(t, "k-1", r.header("X-API-Key"))
	assert.Equal(t, "t", r.header("X-Tenant"))

	for _, h := range []AuthHeader{{"Mcp-Method", "x"}, {"content-length", "1"}, {"Authorization", "x"}, {"X Bad", "x"}, {"", "x"}, {"X-Key", "a\nb"}} {
		a.mu.Lock()
		a.cred = AuthCredentials{Headers: []AuthHeader{h}}
		a.mu.Unlock()
		_, err := c.CallTool(context.Background(), "echo", nil)
		require.ErrorIs(t, err, ErrMalformed, h.Name)
	}
	assert.Len(t, seen, 0, "a refused credential header sends nothing")
}
