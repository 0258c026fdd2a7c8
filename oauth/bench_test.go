package oauth

import (
	"context"
	"testing"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
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
