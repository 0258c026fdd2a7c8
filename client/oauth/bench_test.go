package oauth

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/fastmcp-go/fastmcp/client"
)

// benchToken is a token of a realistic size (an RS256 JWT is about 800 bytes).
var benchToken = "eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCJ9." + string(bytes.Repeat([]byte("x"), 600)) + ".c2lnbmF0dXJl"

// cachedProvider is a Provider holding a valid token, bound with DPoP or not: the state
// every call after the first authorization is in.
func cachedProvider(tb testing.TB, serverURL string, dpop bool) *Provider {
	tb.Helper()
	p, err := New(Config{ServerURL: serverURL, RedirectURL: testRedirect, AuthorizeUser: FetchRedirect(nil)})
	require.NoError(tb, err)
	typ := "Bearer"
	if dpop {
		typ = "DPoP"
	}
	require.NoError(tb, p.keep(&oauth2.Token{AccessToken: benchToken, TokenType: typ, Expiry: time.Now().Add(time.Hour)}, grantState{dpop: dpop}, false))
	return p
}

// TestAuthorizeAllocs: with a cached bearer token, Authorize allocates nothing.
func TestAuthorizeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := cachedProvider(t, "https://mcp.example.com/mcp", false)
	req := client.AuthRequest{Method: "POST", URL: "https://mcp.example.com/mcp"}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		if c, err := p.Authorize(ctx, req); err != nil || c.Authorization == "" {
			t.Fatal(c, err)
		}
	})
	assert.Zero(t, allocs)
}

// BenchmarkAuthorize: the provider's cost per request with a cached token: a header for a
// bearer token, a signed ES256 proof for a DPoP-bound one.
func BenchmarkAuthorize(b *testing.B) {
	for _, dpop := range []bool{false, true} {
		b.Run("dpop="+strconv.FormatBool(dpop), func(b *testing.B) {
			p := cachedProvider(b, "https://mcp.example.com/mcp", dpop)
			req := client.AuthRequest{Method: "POST", URL: "https://mcp.example.com/mcp"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Authorize(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCall: one tools/call through the client over loopback, against a server that
// answers at once and checks nothing, without OAuth, with a cached bearer token and with a
// cached DPoP-bound one: the OAuth path's cost per call is the difference.
func BenchmarkCall(b *testing.B) {
	url := quietServer(b)
	for _, bc := range []struct {
		name string
		auth func() client.Authorizer
	}{
		{"auth=none", func() client.Authorizer { return nil }},
		{"auth=bearer", func() client.Authorizer { return cachedProvider(b, url, false) }},
		{"auth=dpop", func() client.Authorizer { return cachedProvider(b, url, true) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := client.Connect(context.Background(), url, client.Config{Authorizer: bc.auth()})
			require.NoError(b, err)
			defer c.Close()
			ctx := context.Background()
			args := []byte(`{"text":"x"}`)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(ctx, "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchmarkCall runs BenchmarkCall's body once, so that it stays working.
func TestBenchmarkCall(t *testing.T) {
	url := quietServer(t)
	for _, dpop := range []bool{false, true} {
		c, err := client.Connect(context.Background(), url, client.Config{Authorizer: cachedProvider(t, url, dpop)})
		require.NoError(t, err)
		_, err = c.CallTool(context.Background(), "echo", []byte(`{}`))
		require.NoError(t, err)
		require.NoError(t, c.Close())
	}
}

// quietServer answers every request with one fixed tools/call result echoing the id.
func quietServer(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, nc)
			mu.Unlock()
			wg.Go(func() { serveQuiet(nc) })
		}
	})
	tb.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

func serveQuiet(nc net.Conn) {
	br := bufio.NewReaderSize(nc, 8192)
	body := make([]byte, 0, 4096)
	out := make([]byte, 0, 4096)
	for {
		n := 0
		for {
			l, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(l) == 2 {
				break
			}
			if k := []byte("Content-Length: "); bytes.HasPrefix(l, k) {
				n, _ = strconv.Atoi(string(bytes.TrimSpace(l[len(k):])))
			}
		}
		body = body[:n]
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		id := []byte("0")
		if i := bytes.Index(body, []byte(`"id":`)); i >= 0 {
			rest := body[i+5:]
			j := bytes.IndexAny(rest, ",}")
			if j > 0 {
				id = rest[:j]
			}
		}
		const res = `,"result":{"resultType":"complete","content":[{"type":"text","text":"x"}]}}`
		out = append(out[:0], "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "...)
		out = strconv.AppendInt(out, int64(len(`{"jsonrpc":"2.0","id":`)+len(id)+len(res)), 10)
		out = append(out, "\r\n\r\n"+`{"jsonrpc":"2.0","id":`...)
		out = append(out, id...)
		out = append(out, res...)
		if _, err := nc.Write(out); err != nil {
			return
		}
	}
}
