package oauth

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// BenchmarkGate measures the gate's admission of a valid token: verified each time
// (cache=off) per key type, and remembered (cache=on).
func BenchmarkGate(b *testing.B) {
	iss, c := newIssuer(b), newClock()
	for _, kid := range []string{oauthtest.KeyRSA, oauthtest.KeyEC, oauthtest.KeyEd25519} {
		for _, cache := range []string{"off", "on"} {
			b.Run("key="+kid+"/cache="+cache, func(b *testing.B) {
				v := newJWT(b, iss, testResource, c, nil)
				cfg := Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, RequiredScopes: []string{"mcp:tools"}, Verifier: v, Logger: quiet}
				if cache == "off" {
					cfg.MaxCachedTokens = NoTokenCache
				}
				rs, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				rs.now = c.Now
				r := gateRequest("POST", "/mcp", "Authorization", "Bearer "+goodToken(b, iss, c, testResource, kid, "mcp:tools"))
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if d, _ := rs.Gate(ctx, r); d.Identity == nil {
						b.Fatal("refused")
					}
				}
			})
		}
	}
}

// BenchmarkGatedCall measures a tools/call over one keep-alive connection to the native
// listener: without a gate, behind the gate with the token cached, and verified each time.
func BenchmarkGatedCall(b *testing.B) {
	iss, c := newIssuer(b), newClock()
	tok := goodToken(b, iss, c, testResource, oauthtest.KeyEd25519, "mcp:tools")
	for _, mode := range []string{"none", "cached", "verified"} {
		b.Run("gate="+mode, func(b *testing.B) {
			cfg := streamable.ListenerConfig{}
			if mode != "none" {
				rsCfg := Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, RequiredScopes: []string{"mcp:tools"},
					Verifier: newJWT(b, iss, testResource, c, nil), Logger: quiet}
				if mode == "verified" {
					rsCfg.MaxCachedTokens = NoTokenCache
				}
				rs, err := New(rsCfg)
				if err != nil {
					b.Fatal(err)
				}
				rs.now = c.Now
				cfg.RequestGate = rs.Gate
			}
			addr := startStack(b, stackNative, testCore(b, nil), cfg)
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			raw := []byte(post(addr, "whoami", "Authorization: Bearer "+tok))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := conn.Write(raw); err != nil {
					b.Fatal(err)
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
