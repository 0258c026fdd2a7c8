package oauth

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFetchRedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/authorize":
			http.Redirect(w, r, "http://127.0.0.1:1/callback?code=c1&state=s1&iss=x", http.StatusFound)
		default:
			http.Error(w, "login page", http.StatusOK)
		}
	}))
	defer srv.Close()
	step := FetchRedirect(nil)
	q, err := step(context.Background(), srv.URL+"/authorize?client_id=x")
	require.NoError(t, err)
	assert.Equal(t, url.Values{"code": {"c1"}, "state": {"s1"}, "iss": {"x"}}, q, "the callback is read, never requested")
	_, err = step(context.Background(), srv.URL+"/login")
	assert.EqualError(t, err, "oauth: the authorization endpoint answered HTTP 200 without a redirect")
}

// TestLoopback: the authorization URL is opened, the browser's callback on the loopback
// redirect URI answers the waiting step (and only it), and Close stops the listener.
func TestLoopback(t *testing.T) {
	var l *Loopback
	browse := func(authURL string) error { // the user's browser: the server redirects at once
		go func() {
			resp, err := http.Get(l.RedirectURL() + "?code=c&state=" + url.QueryEscape(authURL))
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		return nil
	}
	l, err := ListenLoopback(browse)
	require.NoError(t, err)
	u, err := url.Parse(l.RedirectURL())
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", u.Hostname())
	assert.Equal(t, "/callback", u.Path)

	q, err := l.AuthorizeUser(context.Background(), "https://as.example.com/authorize?x=1")
	require.NoError(t, err)
	assert.Equal(t, url.Values{"code": {"c"}, "state": {"https://as.example.com/authorize?x=1"}}, q)

	// A callback nobody waits for is refused.
	resp, err := http.Get(l.RedirectURL() + "?code=late")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	// A step gives up with its context.
	quiet, err := ListenLoopback(func(string) error { return nil })
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = quiet.AuthorizeUser(ctx, "https://as.example.com/authorize")
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, quiet.Close())
	require.NoError(t, l.Close())
}
