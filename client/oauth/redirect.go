package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"
)

// FetchRedirect is a user step for an authorization server that consents without a user (a
// test server, a conformance suite's mock): it requests the authorization URL itself, with hc
// (nil: a default client), without following the redirect, and returns the query of the
// redirect's Location.
func FetchRedirect(hc *http.Client) UserStep {
	c := http.Client{}
	if hc != nil {
		c = *hc
	}
	c.CheckRedirect = noRedirects
	return func(ctx context.Context, authURL string) (url.Values, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
			return nil, fmt.Errorf("oauth: the authorization endpoint answered HTTP %d without a redirect", resp.StatusCode)
		}
		u, err := url.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("oauth: the authorization endpoint's redirect is not a URL")
		}
		return u.Query(), nil
	}
}

// Loopback receives the authorization response of a command-line program on a loopback
// redirect URI (RFC 8252 §7.3): http://127.0.0.1:PORT/callback on a port of its own. Use
// RedirectURL as Config.RedirectURL and AuthorizeUser as Config.AuthorizeUser; Close stops
// it. It answers every callback, but only one started by AuthorizeUser is handed on.
type Loopback struct {
	ln   net.Listener
	srv  *http.Server
	open func(authURL string) error
	mu   sync.Mutex
	wait chan url.Values // the current AuthorizeUser's, nil between them
	done chan struct{}
}

// ListenLoopback starts a Loopback on 127.0.0.1 and a free port. open shows the
// authorization URL to the user: starts a browser, or prints it; nil prints it to standard
// error.
func ListenLoopback(open func(authURL string) error) (*Loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if open == nil {
		open = func(authURL string) error {
			_, err := fmt.Fprintf(os.Stderr, "Open this URL in a browser to authorize:\n\n  %s\n\n", authURL)
			return err
		}
	}
	l := &Loopback{ln: ln, open: open, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(l.done)
		_ = l.srv.Serve(ln)
	}()
	return l, nil
}

// RedirectURL is the redirect URI to register and send.
func (l *Loopback) RedirectURL() string { return "http://" + l.ln.Addr().String() + "/callback" }

// AuthorizeUser is the user step: it opens the authorization URL and waits for the
// browser's callback, or the context's end.
func (l *Loopback) AuthorizeUser(ctx context.Context, authURL string) (url.Values, error) {
	ch := make(chan url.Values, 1)
	l.mu.Lock()
	if l.wait != nil {
		l.mu.Unlock()
		return nil, errors.New("oauth: another authorization is waiting on this loopback redirect")
	}
	l.wait = ch
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.wait = nil
		l.mu.Unlock()
	}()
	if err := l.open(authURL); err != nil {
		return nil, fmt.Errorf("oauth: opening the authorization URL: %w", err)
	}
	select {
	case q := <-ch:
		return q, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth: waiting for the authorization response: %w", ctx.Err())
	}
}

func (l *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	ch := l.wait
	l.wait = nil // one response per authorization
	l.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if ch == nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "No authorization is waiting for this response.\n")
		return
	}
	ch <- r.URL.Query()
	_, _ = io.WriteString(w, "Authorization received: you can close this window.\n")
}

// Close stops the listener and waits for it to end.
func (l *Loopback) Close() error {
	err := l.srv.Close()
	<-l.done
	return err
}
