package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// dpopKey signs DPoP proofs (RFC 9449 §4) with one P-256 key: ES256, the key's public JWK
// in each proof's header. The header never changes, so it is encoded once; a proof then
// costs its claims, one SHA-256 and one ECDSA signature (BenchmarkAuthorize: half of what a
// go-jose Signer costs, which re-encodes the key for every proof).
type dpopKey struct {
	key    *ecdsa.PrivateKey
	header string // base64url of {"alg":"ES256","typ":"dpop+jwt","jwk":{…}}
	jkt    string // the key's JWK SHA-256 thumbprint (RFC 7638), which a bound token's cnf.jkt names
}

func newDPoPKey(k *ecdsa.PrivateKey) (*dpopKey, error) {
	if k == nil {
		var err error
		if k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, err
		}
	}
	pub := jose.JSONWebKey{Key: &k.PublicKey}
	jwk, err := pub.MarshalJSON()
	if err != nil {
		return nil, err
	}
	header, err := json.Marshal(struct {
		Alg string          `json:"alg"`
		Typ string          `json:"typ"`
		JWK json.RawMessage `json:"jwk"`
	}{"ES256", "dpop+jwt", jwk})
	if err != nil {
		return nil, err
	}
	tp, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, err
	}
	return &dpopKey{key: k, header: base64.RawURLEncoding.EncodeToString(header), jkt: base64.RawURLEncoding.EncodeToString(tp)}, nil
}

// dpopClaims are a proof's claims; ath binds it to an access token, nonce to a server's
// challenge. (proof writes them by hand, in this order; tests decode them with this type.)
type dpopClaims struct {
	JTI   string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	ATH   string `json:"ath,omitempty"`
	Nonce string `json:"nonce,omitempty"`
}

// proof signs a fresh proof (a compact JWS) for one request: method, the URL without query
// or fragment, the access token's hash (ath, "" for a token request) and the server's nonce
// ("" for none).
func (d *dpopKey) proof(method, htu, ath, nonce string, now time.Time) (string, error) {
	var buf [512]byte
	claims := append(buf[:0], `{"jti":"`...)
	claims = append(claims, rand.Text()...)
	claims = append(claims, `","htm":`...)
	claims = appendJSONString(claims, method)
	claims = append(claims, `,"htu":`...)
	claims = appendJSONString(claims, htu)
	claims = append(claims, `,"iat":`...)
	claims = strconv.AppendInt(claims, now.Unix(), 10)
	if ath != "" {
		claims = append(claims, `,"ath":`...)
		claims = appendJSONString(claims, ath)
	}
	if nonce != "" {
		claims = append(claims, `,"nonce":`...)
		claims = appendJSONString(claims, nonce)
	}
	claims = append(claims, '}')

	enc := base64.RawURLEncoding
	out := make([]byte, 0, len(d.header)+1+enc.EncodedLen(len(claims))+1+enc.EncodedLen(64))
	out = append(out, d.header...)
	out = append(out, '.')
	out = enc.AppendEncode(out, claims)
	digest := sha256.Sum256(out)
	r, s, err := ecdsa.Sign(rand.Reader, d.key, digest[:])
	if err != nil {
		return "", fmt.Errorf("oauth: signing a DPoP proof: %w", err)
	}
	var sig [64]byte // JWS ES256: r and s, 32 bytes each (RFC 7518 §3.4)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	out = append(out, '.')
	out = enc.AppendEncode(out, sig[:])
	return string(out), nil
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// tokenHash is a proof's ath for an access token: base64url(SHA-256(token)).
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// htu is a proof's htu for u: scheme, host and path, without query or fragment.
func htu(u *url.URL) string {
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return u.Scheme + "://" + u.Host + path
}

// tokenNonces prefixes the URL of a token endpoint in nonces.
const tokenNonces = "token+"

// maxNonces bounds the servers whose DPoP-Nonce a Provider remembers.
const maxNonces = 64

// nonces holds the last DPoP-Nonce (RFC 9449 §8, §9) each server (by origin) gave; the
// token endpoints' are kept apart (keys prefixed with tokenNonces), as an authorization
// server and a resource on one origin have nonces of their own.
type nonces struct {
	mu sync.RWMutex
	m  map[string]string
}

// origin is the scheme and host of a URL (lowercase), or the URL itself when it has none.
// It allocates only for a URL with uppercase in them.
func origin(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	end := len(raw)
	if j := strings.IndexAny(raw[i+3:], "/?#"); j >= 0 {
		end = i + 3 + j
	}
	return strings.ToLower(raw[:end])
}

func (n *nonces) get(rawURL string) string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.m[origin(rawURL)]
}

// set records a nonce; one that is not a visible-ASCII NQCHAR string (RFC 9449 §8.1) is
// ignored.
func (n *nonces) set(rawURL, nonce string) {
	if nonce == "" || len(nonce) > 1024 {
		return
	}
	for i := 0; i < len(nonce); i++ {
		if c := nonce[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return
		}
	}
	o := origin(rawURL)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.m == nil {
		n.m = map[string]string{}
	}
	if _, ok := n.m[o]; !ok && len(n.m) >= maxNonces {
		clear(n.m) // a client talking to this many servers can afford to be challenged again
	}
	n.m[o] = nonce
}
