package oauth

import (
	"bufio"
	"context"
	"io"
	"math"
	"net"
	"net/http"
	"testing"
	"time"

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
// listener: without a gate, behind the gate (GateQuick in front of Gate) with the token
// cached, verified each time, and with DPoP (the token cached, a new ES256 proof each call:
// a pool of proofs made beforehand, reused after forgetting the replay cache).
func BenchmarkGatedCall(b *testing.B) {
	iss, c := newIssuer(b), newClock()
	tok := goodToken(b, iss, c, testResource, oauthtest.KeyEd25519, "mcp:tools")
	key, err := oauthtest.NewDPoPKey("ES256")
	if err != nil {
		b.Fatal(err)
	}
	bound := mint(b, iss, oauthtest.Token{Subject: "alice", Audience: testResource, Scope: "mcp:tools", Expiry: c.Now().Add(time.Hour), JKT: key.Thumbprint()})
	for _, mode := range []string{"none", "cached", "verified", "dpop"} {
		b.Run("gate="+mode, func(b *testing.B) {
			// One keep-alive connection for the whole run: past DefaultMaxRequestsPerConn the
			// listener would close it under the client.
			cfg := streamable.ListenerConfig{MaxRequestsPerConn: math.MaxInt32}
			var rs *ResourceServer
			if mode != "none" {
				rsCfg := Config{Resource: testResource, AuthorizationServers: []string{iss.URL}, RequiredScopes: []string{"mcp:tools"},
					Verifier: newJWT(b, iss, testResource, c, nil), Logger: quiet}
				switch mode {
				case "verified":
					rsCfg.MaxCachedTokens = NoTokenCache
				case "dpop":
					rsCfg.DPoP.Mode = DPoPRequired
				}
				var err error
				if rs, err = New(rsCfg); err != nil {
					b.Fatal(err)
				}
				rs.now = c.Now
				cfg.RequestGate, cfg.RequestGateQuick = rs.Gate, rs.GateQuick
			}
			addr := startStack(b, stackNative, testCore(b, nil), cfg)
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			raws := [][]byte{[]byte(post(addr, "whoami", "Authorization: Bearer "+tok))}
			if mode == "dpop" {
				raws = raws[:0]
				for range 2000 {
					proof, err := key.Sign(oauthtest.Proof{Method: "POST", URL: testResource, AccessToken: bound, IssuedAt: c.Now()})
					if err != nil {
						b.Fatal(err)
					}
					raws = append(raws, []byte(post(addr, "whoami", dpopHeaders(bound, proof)...)))
				}
			}
			next := 0
			b.ReportAllocs()
			for b.Loop() {
				if next == len(raws) {
					b.StopTimer()
					rs.proofs.replay = newReplayCache(rs.cfg.DPoP.ProofWindow, rs.cfg.DPoP.MaxProofs)
					next = 0
					b.StartTimer()
				}
				if _, err := conn.Write(raws[next]); err != nil {
					b.Fatal(err)
				}
				if mode == "dpop" {
					next++
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

// BenchmarkGateDPoP measures the gate's admission of a DPoP request whose token is cached:
// a new proof each time (ES256 or EdDSA), its checks and the replay cache. The proofs are
// made beforehand, a pool of them reused after forgetting the replay cache.
func BenchmarkGateDPoP(b *testing.B) {
	for _, alg := range []string{"ES256", "EdDSA"} {
		b.Run("alg="+alg, func(b *testing.B) {
			f := newDPoPFixture(b, DPoPConfig{Mode: DPoPRequired})
			key, err := oauthtest.NewDPoPKey(alg)
			if err != nil {
				b.Fatal(err)
			}
			tok := f.token(b, key.Thumbprint(), "mcp:tools")
			proofs := make([][]byte, 2000)
			for i := range proofs {
				proofs[i] = []byte(f.proof(b, key, tok, nil))
			}
			h := &listHeaders{names: []string{"Authorization", HeaderDPoP}, values: [][]byte{[]byte("DPoP " + tok), nil}}
			r := streamable.GateRequest{Method: []byte("POST"), Path: []byte("/mcp"), Header: h}
			ctx := context.Background()
			next := 0
			b.ReportAllocs()
			for b.Loop() {
				if next == len(proofs) {
					b.StopTimer()
					f.rs.proofs.replay = newReplayCache(f.rs.cfg.DPoP.ProofWindow, f.rs.cfg.DPoP.MaxProofs)
					next = 0
					b.StartTimer()
				}
				h.values[1] = proofs[next]
				next++
				if d, _ := f.rs.Gate(ctx, r); d.Identity == nil {
					b.Fatal("refused")
				}
			}
		})
	}
}
