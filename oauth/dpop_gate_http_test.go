package oauth

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// The challenges of the DPoP fixture, as sent.
const (
	dpopChallenge   = `DPoP algs="ES256 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`
	bearerChallenge = `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`
)

// dpopError is the DPoP challenge with an error and its description, and the error body.
func dpopError(code, description string) (string, string) {
	return `DPoP error="` + code + `", error_description="` + description + `", algs="ES256 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
		`{"error":"` + code + `","error_description":"` + description + `"}`
}

func wantProofRefusal(description string) string {
	h, b := dpopError("invalid_dpop_proof", description)
	return wantRefusal("401 Unauthorized", h, b)
}

// wireCase is one request of a DPoP wire test: raw makes it for the listener's address.
type wireCase struct {
	name string
	raw  func(t *testing.T, addr string) string
	want string
}

// runWire sends every case as literal HTTP to the three stacks, with and without GateQuick.
func runWire(t *testing.T, f *dpopFixture, cases []wireCase) {
	for _, run := range gateRuns() {
		t.Run(run.name, func(t *testing.T) {
			addr := startStack(t, run.stack, testCore(t, testPolicy()), run.config(f.rs))
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					got := exchange(t, addr, tc.raw(t, addr))
					assert.Equal(t, tc.want, normalize(got))
				})
			}
		})
	}
}

// TestDPoPRequiredExchanges: with DPoP required, every refusal of RFC 9449 §4.3 and §7 as
// literal HTTP on the native listener, the net/http adapter and the mounted handler, and
// the admitted request reaching the tool with the token's identity.
func TestDPoPRequiredExchanges(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPRequired})
	bound := f.token(t, f.key.Thumbprint(), "mcp:tools")
	otherKey := f.token(t, f.other.Thumbprint(), "mcp:tools")
	unbound := f.token(t, "", "mcp:tools")
	call := func(tool string, lines ...string) func(*testing.T, string) string {
		return func(_ *testing.T, a string) string { return post(a, tool, lines...) }
	}
	// with makes a DPoP request with tok and a proof of key changed by tweak.
	with := func(tok string, key *oauthtest.DPoPKey, tweak func(*oauthtest.Proof)) func(*testing.T, string) string {
		return func(t *testing.T, a string) string {
			return post(a, "whoami", dpopHeaders(tok, f.proof(t, key, tok, tweak))...)
		}
	}
	bindingH, bindingB := dpopError("invalid_token", "The access token is not bound to the key of the DPoP proof")
	missing := wantRefusal("401 Unauthorized", dpopChallenge, "")
	cases := []wireCase{
		{"no credentials", call("whoami"), missing},
		{"Bearer is not accepted", call("whoami", "Authorization: Bearer "+bound), missing},
		{"DPoP without a proof", call("whoami", "Authorization: DPoP "+bound), wantProofRefusal("The request has no DPoP header")},
		{"two proofs", func(t *testing.T, a string) string {
			p := f.proof(t, f.key, bound, nil)
			return post(a, "whoami", "Authorization: DPoP "+bound, "DPoP: "+p, "DPoP: "+p)
		}, wantProofRefusal("The request has more than one DPoP header")},
		{"bad signature", func(t *testing.T, a string) string {
			p := f.proof(t, f.key, bound, nil)
			head, _, _ := strings.Cut(p, ".")
			other := f.proof(t, f.key, bound, func(p *oauthtest.Proof) { p.JTI = "forged" })
			_, rest, _ := strings.Cut(other, ".")
			payload, _, _ := strings.Cut(rest, ".")
			sig := p[strings.LastIndex(p, ".")+1:]
			return post(a, "whoami", dpopHeaders(bound, head+"."+payload+"."+sig)...)
		}, wantProofRefusal(describeProof[proofMalformed])},
		{"typ is not dpop+jwt", with(bound, f.key, func(p *oauthtest.Proof) { p.Type = "JWT" }), wantProofRefusal(describeProof[proofMalformed])},
		{"an algorithm not accepted", func(t *testing.T, a string) string {
			rsa, err := oauthtest.NewDPoPKey("PS256")
			require.NoError(t, err)
			tok := f.token(t, rsa.Thumbprint(), "mcp:tools")
			return post(a, "whoami", dpopHeaders(tok, f.proof(t, rsa, tok, nil))...)
		}, wantProofRefusal(describeProof[proofMalformed])},
		{"no jti", with(bound, f.key, func(p *oauthtest.Proof) {
			p.Claims = map[string]any{"htm": "POST", "htu": testResource, "iat": f.clock.Now().Unix(), "ath": oauthtest.AccessTokenHash(bound)}
		}), wantProofRefusal(describeProof[proofMalformed])},
		{"wrong htm", with(bound, f.key, func(p *oauthtest.Proof) { p.Method = "GET" }), wantProofRefusal("The htm of the DPoP proof is not the request's method")},
		{"wrong htu path", with(bound, f.key, func(p *oauthtest.Proof) { p.URL = "https://mcp.example.com/other" }), wantProofRefusal("The htu of the DPoP proof is not the request's URI")},
		{"wrong htu host", with(bound, f.key, func(p *oauthtest.Proof) { p.URL = "https://evil.example.com/mcp" }), wantProofRefusal("The htu of the DPoP proof is not the request's URI")},
		{"htu of the listener's own address, not the resource", func(t *testing.T, a string) string {
			return post(a, "whoami", dpopHeaders(bound, f.proof(t, f.key, bound, func(p *oauthtest.Proof) { p.URL = "http://" + a + "/mcp" }))...)
		}, wantProofRefusal("The htu of the DPoP proof is not the request's URI")},
		{"stale iat", with(bound, f.key, func(p *oauthtest.Proof) { p.IssuedAt = f.clock.Now().Add(-DefaultDPoPProofWindow - time.Second) }),
			wantProofRefusal("The iat of the DPoP proof is outside the accepted window")},
		{"iat in the future", with(bound, f.key, func(p *oauthtest.Proof) { p.IssuedAt = f.clock.Now().Add(DefaultDPoPProofWindow + time.Second) }),
			wantProofRefusal("The iat of the DPoP proof is outside the accepted window")},
		{"ath of another token", with(bound, f.key, func(p *oauthtest.Proof) { p.AccessToken = unbound }),
			wantProofRefusal("The ath of the DPoP proof is not the hash of the access token")},
		{"no ath", with(bound, f.key, func(p *oauthtest.Proof) { p.AccessToken = "" }),
			wantProofRefusal("The ath of the DPoP proof is not the hash of the access token")},
		{"token bound to another key", with(otherKey, f.key, nil), wantRefusal("401 Unauthorized", bindingH, bindingB)},
		{"unbound token with DPoP", with(unbound, f.key, nil), wantRefusal("401 Unauthorized", bindingH, bindingB)},
		{"admitted: the tool sees the identity", with(bound, f.key, nil), wantResult("alice via inspector [mcp:tools]")},
		{"admitted: htu with a query, default port and uppercase host", with(bound, f.key, func(p *oauthtest.Proof) { p.URL = "https://MCP.example.com:443/mcp?x=1#f" }),
			wantResult("alice via inspector [mcp:tools]")},
		{"admitted: the key of EdDSA", with(otherKey, f.other, nil), wantResult("alice via inspector [mcp:tools]")},
		{"lacks the tool's scope: 403 with the DPoP challenge", func(t *testing.T, a string) string {
			return post(a, "write", dpopHeaders(bound, f.proof(t, f.key, bound, nil))...)
		}, wantRefusal("403 Forbidden",
			`DPoP error="insufficient_scope", error_description="The access token lacks scopes this request needs", algs="ES256 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools files:write"`,
			`{"error":"insufficient_scope","error_description":"The access token lacks scopes this request needs"}`)},
	}
	runWire(t, f, cases)
}

// TestDPoPReplayExchanges: a proof is accepted once; sent again it is refused, on every
// stack, with and without GateQuick.
func TestDPoPReplayExchanges(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPRequired})
	bound := f.token(t, f.key.Thumbprint(), "mcp:tools")
	for _, run := range gateRuns() {
		t.Run(run.name, func(t *testing.T) {
			addr := startStack(t, run.stack, testCore(t, testPolicy()), run.config(f.rs))
			raw := post(addr, "whoami", dpopHeaders(bound, f.proof(t, f.key, bound, nil))...)
			assert.Equal(t, wantResult("alice via inspector [mcp:tools]"), normalize(exchange(t, addr, raw)))
			assert.Equal(t, wantProofRefusal("The DPoP proof has been used before"), normalize(exchange(t, addr, raw)))
		})
	}
}

// TestDPoPNonceExchanges: with RequireNonce, a proof without the server's nonce gets 401
// use_dpop_nonce with the nonce in DPoP-Nonce; the same request with a proof carrying it
// is admitted; a made-up nonce is answered like a missing one.
func TestDPoPNonceExchanges(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPRequired, RequireNonce: true})
	bound := f.token(t, f.key.Thumbprint(), "mcp:tools")
	nonceH, nonceB := dpopError("use_dpop_nonce", "Resource server requires nonce in DPoP proof")
	for _, run := range gateRuns() {
		t.Run(run.name, func(t *testing.T) {
			addr := startStack(t, run.stack, testCore(t, testPolicy()), run.config(f.rs))
			got := normalize(exchange(t, addr, post(addr, "whoami", dpopHeaders(bound, f.proof(t, f.key, bound, nil))...)))
			_, after, ok := strings.Cut(got, "dpop-nonce: ")
			require.True(t, ok, "a DPoP-Nonce header: %s", got)
			nonce, _, _ := strings.Cut(after, "\r\n")
			assert.Len(t, nonce, 22)
			assert.Equal(t, wantRefusal("401 Unauthorized", nonceH, nonceB, "dpop-nonce: "+nonce), got)

			again := f.proof(t, f.key, bound, func(p *oauthtest.Proof) { p.Nonce = nonce })
			assert.Equal(t, wantResult("alice via inspector [mcp:tools]"), normalize(exchange(t, addr, post(addr, "whoami", dpopHeaders(bound, again)...))))

			madeUp := f.proof(t, f.key, bound, func(p *oauthtest.Proof) { p.Nonce = "made-up-nonce" })
			assert.Equal(t, wantRefusal("401 Unauthorized", nonceH, nonceB, "dpop-nonce: "+nonce),
				normalize(exchange(t, addr, post(addr, "whoami", dpopHeaders(bound, madeUp)...))))
		})
	}
}

// TestDPoPAllowedExchanges: with DPoP allowed, challenges name both schemes (the request's
// first, with the error), unbound Bearer tokens and bound DPoP tokens are admitted, and a
// bound token sent as Bearer is refused (RFC 9449 §7.2).
func TestDPoPAllowedExchanges(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPAllowed})
	bound := f.token(t, f.key.Thumbprint(), "mcp:tools")
	unbound := f.token(t, "", "mcp:tools")
	call := func(lines ...string) func(*testing.T, string) string {
		return func(_ *testing.T, a string) string { return post(a, "whoami", lines...) }
	}
	proofH, proofB := dpopError("invalid_dpop_proof", "The request has no DPoP header")
	runWire(t, f, []wireCase{
		{"no credentials: both challenges", call(), wantRefusal("401 Unauthorized", bearerChallenge+", "+dpopChallenge, "")},
		{"a bound token as Bearer", call("Authorization: Bearer " + bound), wantRefusal("401 Unauthorized",
			`Bearer error="invalid_token", error_description="The access token is bound to a key: send it with the DPoP scheme and a proof", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools", `+dpopChallenge,
			`{"error":"invalid_token","error_description":"The access token is bound to a key: send it with the DPoP scheme and a proof"}`)},
		{"a bound token as Bearer, with a proof", func(t *testing.T, a string) string {
			return post(a, "whoami", "Authorization: Bearer "+bound, "DPoP: "+f.proof(t, f.key, bound, nil))
		}, wantRefusal("401 Unauthorized",
			`Bearer error="invalid_token", error_description="The access token is bound to a key: send it with the DPoP scheme and a proof", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools", `+dpopChallenge,
			`{"error":"invalid_token","error_description":"The access token is bound to a key: send it with the DPoP scheme and a proof"}`)},
		{"DPoP without a proof", call("Authorization: DPoP " + bound), wantRefusal("401 Unauthorized", proofH+", "+bearerChallenge, proofB)},
		{"DPoP alone", call("Authorization: DPoP"), wantRefusal("400 Bad Request",
			`DPoP error="invalid_request", error_description="The Authorization header is not a DPoP token", algs="ES256 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools", `+bearerChallenge,
			`{"error":"invalid_request","error_description":"The Authorization header is not a DPoP token"}`)},
		{"an unbound Bearer token", call("Authorization: Bearer " + unbound), wantResult("alice via inspector [mcp:tools]")},
		{"a bound DPoP token", func(t *testing.T, a string) string {
			return post(a, "whoami", dpopHeaders(bound, f.proof(t, f.key, bound, nil))...)
		}, wantResult("alice via inspector [mcp:tools]")},
	})
}

// TestDPoPOffExchanges: without DPoP, a request of the DPoP scheme is challenged as one
// without credentials, and a DPoP-bound token sent as Bearer is refused: its issuer bound
// it to a key this resource cannot check (RFC 9449 §7.2).
func TestDPoPOffExchanges(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	bound := f.token(t, f.key.Thumbprint(), "mcp:tools")
	runWire(t, f, []wireCase{
		{"DPoP scheme", func(t *testing.T, a string) string {
			return post(a, "whoami", dpopHeaders(bound, f.proof(t, f.key, bound, nil))...)
		}, closing(wantNoToken)},
		{"a bound token as Bearer", func(_ *testing.T, a string) string { return post(a, "whoami", "Authorization: Bearer "+bound) },
			wantRefusal("401 Unauthorized",
				`Bearer error="invalid_token", error_description="The access token is bound to a key, and this resource accepts bearer tokens only", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
				`{"error":"invalid_token","error_description":"The access token is bound to a key, and this resource accepts bearer tokens only"}`)},
	})
}

// TestDPoPMetadata: the metadata advertises the proof algorithms when DPoP is on, and
// dpop_bound_access_tokens_required when it is required.
func TestDPoPMetadata(t *testing.T) {
	for mode, want := range map[DPoPMode]string{
		DPoPOff:      `"bearer_methods_supported":["header"]}`,
		DPoPAllowed:  `"bearer_methods_supported":["header"],"dpop_signing_alg_values_supported":["ES256","EdDSA"]}`,
		DPoPRequired: `"bearer_methods_supported":["header"],"dpop_signing_alg_values_supported":["ES256","EdDSA"],"dpop_bound_access_tokens_required":true}`,
	} {
		t.Run(mode.String(), func(t *testing.T) {
			f := newDPoPFixture(t, DPoPConfig{Mode: mode})
			for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
				d, err := f.rs.Gate(t.Context(), gateRequest(http.MethodGet, path))
				require.NoError(t, err)
				assert.True(t, strings.HasSuffix(string(d.Response.Body), `"scopes_supported":["mcp:tools","files:write"],`+want), string(d.Response.Body))
			}
		})
	}
}
