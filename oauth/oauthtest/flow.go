package oauthtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// PublicClient is the client id the authorization endpoint knows: a public client
// (token_endpoint_auth_method none) that must use PKCE S256.
const PublicClient = "mcp-client"

// grant is an authorization code not yet exchanged.
type grant struct {
	challenge, resource, scope, redirect string
}

// Authorization is one authorization the endpoint granted: the scope and resource the
// client asked for.
type Authorization struct {
	Scope, Resource string
}

// Authorizations lists the authorizations granted so far, in order.
func (i *Issuer) Authorizations() []Authorization {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]Authorization(nil), i.granted...)
}

// serveAuthorize is the authorization endpoint: it consents at once for the user alice
// (there is no user in a test) and redirects with the code, the state and iss (RFC 9207).
func (i *Issuer) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch {
	case q.Get("response_type") != "code" || q.Get("client_id") != PublicClient:
		http.Error(w, "unknown client or response type", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	case q.Get("resource") == "":
		http.Error(w, "resource indicator (RFC 8707) required", http.StatusBadRequest)
		return
	}
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Scheme == "" {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	i.mu.Lock()
	i.codes[code] = grant{challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope"), redirect: q.Get("redirect_uri")}
	i.granted = append(i.granted, Authorization{Scope: q.Get("scope"), Resource: q.Get("resource")})
	i.mu.Unlock()
	v := redirect.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	v.Set("iss", i.URL)
	redirect.RawQuery = v.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// serveToken is the token endpoint: an authorization code, once, for the verifier of its
// challenge, becomes a JWT access token for the resource the code was granted for; with a
// valid DPoP proof, a DPoP-bound one (cnf.jkt, token_type DPoP).
func (i *Issuer) serveToken(w http.ResponseWriter, r *http.Request) {
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"` + code + `"}`))
	}
	if r.PostFormValue("grant_type") != "authorization_code" {
		fail("unsupported_grant_type")
		return
	}
	i.mu.Lock()
	g, ok := i.codes[r.PostFormValue("code")]
	delete(i.codes, r.PostFormValue("code"))
	i.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	switch {
	case !ok || r.PostFormValue("redirect_uri") != g.redirect:
		fail("invalid_grant")
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		fail("invalid_grant")
		return
	case r.PostFormValue("resource") != "" && r.PostFormValue("resource") != g.resource:
		fail("invalid_target")
		return
	}
	extra, tokenType := map[string]any{"client_id": PublicClient}, "Bearer"
	if proof := r.Header.Get("DPoP"); proof != "" { // a DPoP-bound token (RFC 9449 §5)
		jkt, err := checkDPoPProof(proof, i.URL+"/token")
		if err != nil {
			fail("invalid_dpop_proof")
			return
		}
		extra["cnf"], tokenType = map[string]any{"jkt": jkt}, "DPoP"
	}
	tok, err := i.Mint(Token{Subject: "alice", Audience: g.resource, Scope: g.scope, Expiry: time.Now().Add(time.Hour),
		IssuedAt: time.Now(), Extra: extra})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": tokenType, "expires_in": 3600, "scope": g.scope})
}
