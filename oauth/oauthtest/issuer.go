// Package oauthtest is a test authorization server for the oauth package and the programs
// that use it: an issuer with RSA, EC and Ed25519 signing keys, its JSON Web Key Set and
// metadata served over loopback HTTP, tokens minted on demand, key rotation, outages
// ([Fault]: down, garbage, hanging), an RFC 7662 introspection endpoint, and an
// authorization code flow with PKCE and resource indicators for a pre-registered public
// client (DPoP-bound tokens for a client that presents a proof), so that real OAuth clients
// can authorize against it. It is for tests only: its
// keys are made per process and its endpoints trust anyone on loopback.
package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// The key ids of the issuer's keys, and the algorithm each signs with.
const (
	KeyRSA     = "rsa-1"   // RS256
	KeyRSANext = "rsa-2"   // RS256, published by Rotate
	KeyEC      = "ec-1"    // ES256
	KeyEd25519 = "ed-1"    // EdDSA
	KeyRSAPSS  = "rsa-pss" // PS256, with the RSA key of KeyRSA
)

// IntrospectionClient and IntrospectionSecret are the credentials the introspection endpoint
// accepts.
const (
	IntrospectionClient = "mcp-resource"
	IntrospectionSecret = "introspection-secret"
)

var (
	keysOnce sync.Once
	rsa1     *rsa.PrivateKey
	rsa2     *rsa.PrivateKey
	ec1      *ecdsa.PrivateKey
	ed1      ed25519.PrivateKey
	keysErr  error
)

// keys makes the signing keys once per process: RSA generation is slow under -race.
func keys() error {
	keysOnce.Do(func() {
		if rsa1, keysErr = rsa.GenerateKey(rand.Reader, 2048); keysErr != nil {
			return
		}
		if rsa2, keysErr = rsa.GenerateKey(rand.Reader, 2048); keysErr != nil {
			return
		}
		if ec1, keysErr = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); keysErr != nil {
			return
		}
		_, ed1, keysErr = ed25519.GenerateKey(rand.Reader)
	})
	return keysErr
}

// Issuer is a running test authorization server. Its methods are safe for concurrent use.
type Issuer struct {
	// URL is the issuer identifier (the server's origin, no trailing slash).
	URL string
	srv *httptest.Server

	mu        sync.Mutex
	published []string          // kids in the JWKS, in order
	opaque    map[string]string // opaque token -> introspection response JSON
	codes     map[string]grant  // authorization codes not yet exchanged
	granted   []Authorization
	extraKeys []json.RawMessage // raw JWKs appended to the set (garbage, private keys, …)
	header    http.Header       // extra response headers of the JWKS (Cache-Control)
	fault     Fault
	unhang    chan struct{} // closed when the fault changes, releasing hanging requests
	fetches   atomic.Int64
	calls     atomic.Int64 // introspection requests
}

// Fault is how the key set and the introspection endpoint fail, to test a resource server
// during an authorization server outage.
type Fault int

const (
	// NoFault serves normally.
	NoFault Fault = iota
	// FaultDown answers 503.
	FaultDown
	// FaultGarbage answers 200 with a body that is not JSON.
	FaultGarbage
	// FaultHang answers nothing until the fault changes or the request is cancelled.
	FaultHang
)

// NewIssuer starts an issuer publishing the RSA, EC and Ed25519 keys.
func NewIssuer() (*Issuer, error) {
	if err := keys(); err != nil {
		return nil, err
	}
	iss := &Issuer{published: []string{KeyRSA, KeyEC, KeyEd25519, KeyRSAPSS}, opaque: map[string]string{}, codes: map[string]grant{},
		header: http.Header{}, unhang: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jwks", iss.serveJWKS)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", iss.serveMetadata)
	mux.HandleFunc("POST /introspect", iss.serveIntrospect)
	mux.HandleFunc("GET /authorize", iss.serveAuthorize)
	mux.HandleFunc("POST /token", iss.serveToken)
	iss.srv = httptest.NewUnstartedServer(mux)
	iss.URL = "http://" + iss.srv.Listener.Addr().String() // before the handlers run, which read it
	iss.srv.Start()
	return iss, nil
}

// Close stops the server, releasing hanging requests first.
func (i *Issuer) Close() {
	i.SetFault(NoFault)
	i.srv.Close()
}

// JWKSURL is the key set's URL.
func (i *Issuer) JWKSURL() string { return i.URL + "/jwks" }

// IntrospectionURL is the introspection endpoint's URL.
func (i *Issuer) IntrospectionURL() string { return i.URL + "/introspect" }

// Fetches counts the requests the key set got.
func (i *Issuer) Fetches() int64 { return i.fetches.Load() }

// Introspections counts the requests the introspection endpoint got (authenticated or not).
func (i *Issuer) Introspections() int64 { return i.calls.Load() }

// SetDown makes the key set and the introspection endpoint answer 503 (an outage) or serve
// again: SetFault(FaultDown) or SetFault(NoFault).
func (i *Issuer) SetDown(down bool) {
	if down {
		i.SetFault(FaultDown)
		return
	}
	i.SetFault(NoFault)
}

// SetFault makes the key set and the introspection endpoint fail as f says, from their next
// request on; requests hanging under FaultHang are released (and then answered as f says).
func (i *Issuer) SetFault(f Fault) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.fault = f
	close(i.unhang)
	i.unhang = make(chan struct{})
}

// failed answers r as the current fault says, reporting whether it did.
func (i *Issuer) failed(w http.ResponseWriter, r *http.Request) bool {
	for {
		i.mu.Lock()
		f, unhang := i.fault, i.unhang
		i.mu.Unlock()
		switch f {
		case NoFault:
			return false
		case FaultDown:
			http.Error(w, "down", http.StatusServiceUnavailable)
		case FaultGarbage:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("<html>502 Bad Gateway</html>"))
		case FaultHang:
			select {
			case <-unhang:
				continue
			case <-r.Context().Done():
			}
		}
		return true
	}
}

// Rotate publishes KeyRSANext and retires KeyRSA (its tokens stop verifying once the
// resource server fetches the new set).
func (i *Issuer) Rotate() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.published = []string{KeyRSANext, KeyEC, KeyEd25519}
}

// Publish sets the kids the key set lists.
func (i *Issuer) Publish(kids ...string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.published = kids
}

// AddRawKeys appends raw JWK objects to the published set, as they are.
func (i *Issuer) AddRawKeys(raw ...string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	for _, r := range raw {
		i.extraKeys = append(i.extraKeys, json.RawMessage(r))
	}
}

// SetJWKSHeader sets a response header of the key set (Cache-Control, for instance).
func (i *Issuer) SetJWKSHeader(name, value string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.header.Set(name, value)
}

func signer(kid string) (crypto.Signer, jose.SignatureAlgorithm, error) {
	switch kid {
	case KeyRSA:
		return rsa1, jose.RS256, nil
	case KeyRSANext:
		return rsa2, jose.RS256, nil
	case KeyRSAPSS:
		return rsa1, jose.PS256, nil
	case KeyEC:
		return ec1, jose.ES256, nil
	case KeyEd25519:
		return ed1, jose.EdDSA, nil
	}
	return nil, "", fmt.Errorf("oauthtest: unknown key %q", kid)
}

// PublicJWK is the public JWK of a key id, as the set publishes it.
func PublicJWK(kid string) (jose.JSONWebKey, error) {
	if err := keys(); err != nil {
		return jose.JSONWebKey{}, err
	}
	s, alg, err := signer(kid)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	return jose.JSONWebKey{Key: s.Public(), KeyID: kid, Algorithm: string(alg), Use: "sig"}, nil
}

func (i *Issuer) serveJWKS(w http.ResponseWriter, r *http.Request) {
	i.fetches.Add(1)
	if i.failed(w, r) {
		return
	}
	i.mu.Lock()
	kids := slices.Clone(i.published)
	extra := slices.Clone(i.extraKeys)
	for k, v := range maps.All(i.header) {
		w.Header()[k] = v
	}
	i.mu.Unlock()
	set := struct {
		Keys []any `json:"keys"`
	}{}
	for _, kid := range kids {
		k, err := PublicJWK(kid)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		set.Keys = append(set.Keys, k)
	}
	for _, r := range extra {
		set.Keys = append(set.Keys, r)
	}
	w.Header().Set("Content-Type", "application/jwk-set+json")
	_ = json.NewEncoder(w).Encode(set)
}

func (i *Issuer) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"issuer": i.URL, "jwks_uri": i.JWKSURL(), "introspection_endpoint": i.IntrospectionURL(),
		"authorization_endpoint": i.URL + "/authorize", "token_endpoint": i.URL + "/token",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		"grant_types_supported": []string{"authorization_code"}, "token_endpoint_auth_methods_supported": []string{"none"},
		"authorization_response_iss_parameter_supported": true, "dpop_signing_alg_values_supported": dpopAlgs,
	})
}

// Token describes a token to mint. Zero fields are left out of the token, except as noted.
type Token struct {
	Kid       string // the signing key (KeyRSA by default)
	Type      string // the typ header; "" means at+jwt, "-" none
	Issuer    string // "" means the issuer's URL
	Subject   string
	Audience  any // a string or []string
	Scope     string
	Expiry    time.Time // zero: no exp
	NotBefore time.Time
	IssuedAt  time.Time
	Extra     map[string]any // more claims (client_id, scp, …)
	NoKid     bool           // leave kid out of the header
}

// Mint signs t.
func (i *Issuer) Mint(t Token) (string, error) {
	if t.Kid == "" {
		t.Kid = KeyRSA
	}
	key, alg, err := signer(t.Kid)
	if err != nil {
		return "", err
	}
	opts := &jose.SignerOptions{}
	switch t.Type {
	case "":
		opts.WithType("at+jwt")
	case "-":
	default:
		opts.WithType(jose.ContentType(t.Type))
	}
	jwk := jose.JSONWebKey{Key: key}
	if !t.NoKid {
		jwk.KeyID = t.Kid
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jwk}, opts)
	if err != nil {
		return "", err
	}
	claims := map[string]any{}
	maps.Copy(claims, t.Extra)
	iss := t.Issuer
	if iss == "" {
		iss = i.URL
	}
	claims["iss"] = iss
	set := func(name string, v any, ok bool) {
		if ok {
			claims[name] = v
		}
	}
	set("sub", t.Subject, t.Subject != "")
	set("aud", t.Audience, t.Audience != nil)
	set("scope", t.Scope, t.Scope != "")
	set("exp", t.Expiry.Unix(), !t.Expiry.IsZero())
	set("nbf", t.NotBefore.Unix(), !t.NotBefore.IsZero())
	set("iat", t.IssuedAt.Unix(), !t.IssuedAt.IsZero())
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	obj, err := s.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

// Register makes the introspection endpoint answer response (a JSON object) for an opaque
// token.
func (i *Issuer) Register(token, response string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.opaque[token] = response
}

func (i *Issuer) serveIntrospect(w http.ResponseWriter, r *http.Request) {
	i.calls.Add(1)
	if id, secret, ok := r.BasicAuth(); !ok || id != IntrospectionClient || secret != IntrospectionSecret {
		w.Header().Set("WWW-Authenticate", `Basic realm="introspection"`)
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	if i.failed(w, r) {
		return
	}
	i.mu.Lock()
	resp, ok := i.opaque[r.PostFormValue("token")]
	i.mu.Unlock()
	if !ok {
		resp = `{"active":false}`
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(resp))
}
