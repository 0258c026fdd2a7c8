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
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// dpopKey signs DPoP proofs (RFC 9449 §4) with one P-256 key: ES256, the key's public JWK
// in each proof's header.
type dpopKey struct {
	signer jose.Signer
	jkt    string // the key's JWK SHA-256 thumbprint (RFC 7638), which a bound token's cnf.jkt names
}

func newDPoPKey(k *ecdsa.PrivateKey) (*dpopKey, error) {
	if k == nil {
		var err error
		if k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, err
		}
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, opts)
	if err != nil {
		return nil, err
	}
	pub := jose.JSONWebKey{Key: &k.PublicKey}
	tp, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, err
	}
	return &dpopKey{signer: s, jkt: base64.RawURLEncoding.EncodeToString(tp)}, nil
}

// dpopClaims are a proof's claims; ath binds it to an access token, nonce to a server's
// challenge.
type dpopClaims struct {
	JTI   string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	ATH   string `json:"ath,omitempty"`
	Nonce string `json:"nonce,omitempty"`
}

// proof signs a fresh proof for one request: method, the URL without query or fragment, the
// access token's hash (ath, "" for a token request) and the server's nonce ("" for none).
func (d *dpopKey) proof(method, htu, ath, nonce string, now time.Time) (string, error) {
	payload, err := json.Marshal(dpopClaims{JTI: rand.Text(), HTM: method, HTU: htu, IAT: now.Unix(), ATH: ath, Nonce: nonce})
	if err != nil {
		return "", err
	}
	obj, err := d.signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("oauth: signing a DPoP proof: %w", err)
	}
	return obj.CompactSerialize()
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

// maxNonces bounds the servers whose DPoP-Nonce a Provider remembers.
const maxNonces = 64

// nonces holds the last DPoP-Nonce (RFC 9449 §8, §9) each server (by origin) gave.
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
