package streamable

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// A tools/call over TLS: the same literal exchange as over plaintext, on a connection that
// negotiated http/1.1 and TLS 1.2 or later, and an https URL.
func TestTLSToolsCall(t *testing.T) {
	ca := newTestCA(t)
	s := startServer(t, newCore(t), ListenerConfig{TLS: ca.serverTLS(t, 2)})
	assert.True(t, strings.HasPrefix(s.URL(), "https://127.0.0.1:"), s.URL())
	assert.True(t, strings.HasSuffix(s.URL(), "/mcp"), s.URL())

	c := dialTLS(t, s, ca.clientTLS())
	st := c.ConnectionState()
	assert.Equal(t, "http/1.1", st.NegotiatedProtocol)
	assert.GreaterOrEqual(t, st.Version, uint16(tls.VersionTLS12))
	br := bufio.NewReader(c)
	for _, text := range []string{"hi", "again"} { // keep-alive over one TLS connection
		_, err := io.WriteString(c, postTo(addrOf(s), call("1", "echo", `{"text":"`+text+`"}`), callHeaders("echo")...))
		require.NoError(t, err)
		resp, body := readResponse(t, br)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"`+text+`"}],`+serverInfo+`}}`, body)
		wireschema.RequireValid(t, "CallToolResultResponse", []byte(body))
	}
}

// A listen stream over TLS: its head and events go through the TLS connection, not under it.
func TestTLSListenStream(t *testing.T) {
	ca := newTestCA(t)
	core := newCore(t)
	s := startServer(t, core, ListenerConfig{TLS: ca.serverTLS(t, 2)})
	c := dialTLS(t, s, ca.clientTLS())
	_, err := io.WriteString(c, postTo(addrOf(s), listenBody("7", `{"toolsListChanged":true}`), "Mcp-Method: subscriptions/listen"))
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	ev := events(resp.Body)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true}}}`, next(t, ev))
	core.RemoveTools("sleep")
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`, next(t, ev))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, s.Shutdown(ctx))
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"},"io.modelcontextprotocol/subscriptionId":7}}}`, next(t, ev))
	_, open := <-ev
	assert.False(t, open, "the stream ends after the completion response")
}

// The listener refuses what it cannot serve safely: TLS below 1.2, and a client that offers
// only h2 (it speaks HTTP/1.1); a client offering both gets http/1.1.
func TestTLSProtocolFloor(t *testing.T) {
	ca := newTestCA(t)
	s := startServer(t, newCore(t), ListenerConfig{TLS: ca.serverTLS(t, 2)})
	for name, tc := range map[string]struct {
		mutate func(*tls.Config)
		fail   string // the alert the client gets, when the handshake must fail
		proto  string // negotiated by ALPN
	}{
		"tls1.1":        {mutate: func(c *tls.Config) { c.MinVersion, c.MaxVersion = tls.VersionTLS10, tls.VersionTLS11 }, fail: "protocol version not supported"},
		"h2 only":       {mutate: func(c *tls.Config) { c.NextProtos = []string{"h2"} }, fail: "no application protocol"},
		"h2 and http/1": {mutate: func(c *tls.Config) { c.NextProtos = []string{"h2", "http/1.1"} }, proto: "http/1.1"},
		"no alpn":       {mutate: func(c *tls.Config) { c.NextProtos = nil }},
		"tls1.2":        {mutate: func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 }, proto: "http/1.1"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := ca.clientTLS()
			tc.mutate(cfg)
			c, err := tls.Dial("tcp", addrOf(s), cfg)
			if tc.fail != "" {
				require.ErrorContains(t, err, tc.fail)
				return
			}
			require.NoError(t, err)
			defer c.Close()
			assert.Equal(t, tc.proto, c.ConnectionState().NegotiatedProtocol)
		})
	}
}

// Invalid TLS configurations are refused by New with ErrInvalidConfig.
func TestTLSConfigInvalid(t *testing.T) {
	ca := newTestCA(t)
	certPEM, keyPEM, _ := ca.issue(t, 2)
	dir := t.TempDir()
	certFile, keyFile := writePair(t, dir, certPEM, keyPEM)
	withCert := func(mut func(*tls.Config)) *tls.Config {
		c := ca.serverTLS(t, 2)
		mut(c)
		return c
	}
	for name, cfg := range map[string]ListenerConfig{
		"no certificate":          {TLS: &tls.Config{}},
		"TLS 1.0 floor":           {TLS: withCert(func(c *tls.Config) { c.MinVersion = tls.VersionTLS10 })},
		"TLS 1.1 ceiling":         {TLS: withCert(func(c *tls.Config) { c.MaxVersion = tls.VersionTLS11 })},
		"h2 in NextProtos":        {TLS: withCert(func(c *tls.Config) { c.NextProtos = []string{"h2", "http/1.1"} })},
		"cert file without key":   {TLSCertFile: certFile},
		"key file without cert":   {TLSKeyFile: keyFile},
		"certificate twice":       {TLS: ca.serverTLS(t, 3), TLSCertFile: certFile, TLSKeyFile: keyFile},
		"missing cert file":       {TLSCertFile: dir + "/none.pem", TLSKeyFile: keyFile},
		"key of another cert":     {TLSCertFile: certFile, TLSKeyFile: mustWrite(t, dir, "other.key", otherKey(t, ca))},
		"negative reload":         {TLSCertFile: certFile, TLSKeyFile: keyFile, TLSReloadInterval: -time.Second},
		"reload without files":    {TLSReloadInterval: time.Second},
		"health path is the path": {ServeHealth: true, Config: Config{Path: "/readyz"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(newCore(t), cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
		})
	}
	t.Run("caller's config untouched", func(t *testing.T) {
		c := ca.serverTLS(t, 2)
		s, err := New(newCore(t), ListenerConfig{TLS: c})
		require.NoError(t, err)
		require.NoError(t, s.Shutdown(context.Background())) // its executor
		assert.Zero(t, c.MinVersion)
		assert.Nil(t, c.NextProtos)
	})
}

func otherKey(t testing.TB, ca *testCA) []byte {
	_, key, _ := ca.issue(t, 9)
	return key
}

// A per-client configuration from GetConfigForClient gets the listener's floor and ALPN.
func TestTLSConfigForClientEnforced(t *testing.T) {
	ca := newTestCA(t)
	inner := ca.serverTLS(t, 2)
	s := startServer(t, newCore(t), ListenerConfig{
		TLS: &tls.Config{
			GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { return inner, nil },
		},
	})
	old := ca.clientTLS()
	old.MinVersion, old.MaxVersion = tls.VersionTLS10, tls.VersionTLS11
	_, err := tls.Dial("tcp", addrOf(s), old)
	require.Error(t, err, "TLS 1.1 refused under a per-client configuration too")
	c := dialTLS(t, s, ca.clientTLS())
	assert.Equal(t, "http/1.1", c.ConnectionState().NegotiatedProtocol)
	assert.Nil(t, inner.NextProtos, "the per-client configuration is cloned, not modified")
}

// A slow handshake is a slow loris: a client that opens TCP and never completes the
// handshake is closed by HeadTimeout (timed from the accept, so a ClientHello trickled a
// byte at a time, each read well within ReadTimeout, is cut too), and it holds a
// MaxConnections slot only while open.
func TestTLSHandshakeHeadTimeout(t *testing.T) {
	ca := newTestCA(t)
	const head = 300 * time.Millisecond
	s := startServer(t, newCore(t), ListenerConfig{TLS: ca.serverTLS(t, 2), MaxConnections: 1, HeadTimeout: head, ReadTimeout: 5 * time.Second})

	t.Run("silent", func(t *testing.T) {
		start := time.Now()
		silent := dial(t, s) // TCP only: no ClientHello
		// At the cap, another connection is closed unread.
		extra := dial(t, s)
		_, err := extra.Read(make([]byte, 1))
		require.Error(t, err, "the connection over the cap is closed")
		// The silent one is closed at its head deadline, with nothing written (the
		// handshake never began, so no HTTP error can be sent).
		n, err := io.Copy(io.Discard, silent)
		elapsed := time.Since(start)
		assert.NoError(t, ignoreReset(err))
		assert.Zero(t, n)
		assert.GreaterOrEqual(t, elapsed, head, "never early")
		assert.Less(t, elapsed, 5*time.Second, "HeadTimeout, not ReadTimeout")
		assert.Equal(t, int64(1), s.Stats().HeadTimeouts)
		// The slot is back: a real client is served. It asks for the connection to close
		// and reads to its end, so the slot is free again for the next subtest.
		c := dialTLS(t, s, ca.clientTLS())
		_, err = io.WriteString(c, postTo(addrOf(s), call("1", "echo", `{"text":"hi"}`), append(callHeaders("echo"), "Connection: close")...))
		require.NoError(t, err)
		br := bufio.NewReader(c)
		resp, body := readResponse(t, br)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, body, `"text":"hi"`)
		assert.Empty(t, readToClose(t, br))
	})

	t.Run("trickled", func(t *testing.T) {
		// The previous subtest's connection closes on the server after its client read the
		// end: wait for its slot before taking it (MaxConnections is 1).
		require.Eventually(t, func() bool { return s.Stats().OpenConnections == 0 }, 10*time.Second, time.Millisecond,
			"the earlier connections' slots come back")
		hello := clientHello(t, ca.clientTLS())
		c := dial(t, s)
		start := time.Now()
		tick := time.NewTicker(20 * time.Millisecond) // paces the trickle; asserts nothing
		defer tick.Stop()
		closed := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, c)
			closed <- err
		}()
		sent := 0
	trickle:
		for {
			select {
			case err := <-closed:
				assert.NoError(t, ignoreReset(err))
				break trickle
			case <-tick.C:
				require.Less(t, sent, len(hello), "the whole ClientHello went out before the head deadline")
				if _, err := c.Write(hello[sent : sent+1]); err != nil {
					break trickle // closed by the server between two bytes
				}
				sent++
			}
		}
		elapsed := time.Since(start)
		assert.GreaterOrEqual(t, elapsed, head)
		assert.Less(t, elapsed, 5*time.Second)
		assert.Greater(t, sent, 1, "bytes kept arriving")
	})
}

// ignoreReset treats a reset as the server's close: it closed with the client's bytes unread.
func ignoreReset(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && strings.Contains(op.Err.Error(), "reset") {
		return nil
	}
	return err
}

// The warning for a listener beyond loopback: without TLS or a gate it says so; with a gate
// it still warns (credentials travel in plaintext); with TLS it is silent.
func TestExposedWarning(t *testing.T) {
	ca := newTestCA(t)
	gate := func(context.Context, GateRequest) (GateDecision, error) { return GateDecision{}, nil }
	for name, tc := range map[string]struct {
		cfg  ListenerConfig
		want string
	}{
		"plaintext":      {want: "listening beyond loopback without TLS or a request gate"},
		"plaintext gate": {cfg: ListenerConfig{Config: Config{RequestGate: gate}}, want: "listening beyond loopback without TLS: requests and their credentials travel in plaintext"},
		"tls":            {cfg: ListenerConfig{TLS: ca.serverTLS(t, 2)}},
		"tls and gate":   {cfg: ListenerConfig{TLS: ca.serverTLS(t, 2), Config: Config{RequestGate: gate}}},
	} {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			tc.cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			s, err := New(newCore(t), tc.cfg)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
			s.warnExposed("0.0.0.0:8080")
			if tc.want == "" {
				assert.Empty(t, logs.String())
				return
			}
			assert.Contains(t, logs.String(), "level=WARN")
			assert.Contains(t, logs.String(), tc.want)
			assert.Contains(t, logs.String(), "addr=0.0.0.0:8080")
			logs.Reset()
			s.warnExposed("127.0.0.1:8080")
			assert.Empty(t, logs.String(), "loopback is never warned about")
		})
	}
}

// Plain HTTP sent to the TLS listener is answered in plaintext, as net/http answers it, and
// the connection closed; bytes that are neither TLS nor HTTP are closed on without a word.
func TestTLSPlaintextRequest(t *testing.T) {
	ca := newTestCA(t)
	s := startServer(t, newCore(t), ListenerConfig{TLS: ca.serverTLS(t, 2)})
	got := rawExchange(t, dial(t, s), postTo(addrOf(s), call("1", "echo", `{"text":"hi"}`), callHeaders("echo")...))
	assert.Equal(t, "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"+
		"Client sent an HTTP request to an HTTPS server.\n", got)
	assert.Empty(t, rawExchange(t, dial(t, s), "\x00\x01garbage that is no record\r\n\r\n"))
	c := dialTLS(t, s, ca.clientTLS()) // and TLS clients are still served
	assert.Equal(t, "http/1.1", c.ConnectionState().NegotiatedProtocol)
}
