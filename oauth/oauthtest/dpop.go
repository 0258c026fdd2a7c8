package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// DPoPKey is a client's DPoP key pair (RFC 9449): it signs proofs, and its thumbprint is
// what a bound token's cnf.jkt names.
type DPoPKey struct {
	signer crypto.Signer
	alg    jose.SignatureAlgorithm
}

// NewDPoPKey makes a key for alg: ES256, ES384, EdDSA, RS256 or PS256 (RSA 2048).
func NewDPoPKey(alg string) (*DPoPKey, error) {
	var s crypto.Signer
	var err error
	switch alg {
	case "ES256":
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ES384":
		s, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "EdDSA":
		_, s, err = ed25519.GenerateKey(rand.Reader)
	case "RS256", "PS256":
		if err = keys(); err == nil {
			s = rsa1 // RSA generation is slow under -race: the issuer's, made once
		}
	default:
		return nil, fmt.Errorf("oauthtest: DPoP algorithm %q not supported", alg)
	}
	if err != nil {
		return nil, err
	}
	return &DPoPKey{signer: s, alg: jose.SignatureAlgorithm(alg)}, nil
}

// DPoPKeyOf makes a key of a P-256 key (ES256), a P-384 key (ES384), an Ed25519 key
// (EdDSA) or an RSA key (PS256), for keys that must be the same in every process (fuzz
// workers).
func DPoPKeyOf(s crypto.Signer) (*DPoPKey, error) {
	switch k := s.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return &DPoPKey{signer: s, alg: jose.ES256}, nil
		case elliptic.P384():
			return &DPoPKey{signer: s, alg: jose.ES384}, nil
		}
	case ed25519.PrivateKey:
		return &DPoPKey{signer: s, alg: jose.EdDSA}, nil
	case *rsa.PrivateKey:
		return &DPoPKey{signer: s, alg: jose.PS256}, nil
	}
	return nil, fmt.Errorf("oauthtest: no DPoP algorithm for a %T", s)
}

// Public is the key's public JWK, as a proof's header carries it.
func (k *DPoPKey) Public() jose.JSONWebKey { return jose.JSONWebKey{Key: k.signer.Public()} }

// Thumbprint is the key's RFC 7638 SHA-256 thumbprint, base64url: a bound token's cnf.jkt.
func (k *DPoPKey) Thumbprint() string {
	jwk := k.Public()
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		panic(err) // a key made by NewDPoPKey always has one
	}
	return base64.RawURLEncoding.EncodeToString(sum)
}

// Proof describes a DPoP proof to sign. Zero fields are left out, except as noted.
type Proof struct {
	Method string // htm
	URL    string // htu
	// AccessToken, if set, is hashed into ath; ATH, if set, is sent as ath instead.
	AccessToken, ATH string
	Nonce            string
	IssuedAt         time.Time // iat; zero means now
	JTI              string    // "" means a random one
	Type             string    // the typ header; "" means dpop+jwt, "-" none
	// Claims replaces every claim when set (to send malformed ones).
	Claims map[string]any
}

// Sign signs p with k, the public key in the header (jwk).
func (k *DPoPKey) Sign(p Proof) (string, error) {
	opts := &jose.SignerOptions{EmbedJWK: true}
	switch p.Type {
	case "":
		opts.WithType("dpop+jwt")
	case "-":
	default:
		opts.WithType(jose.ContentType(p.Type))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.signer}, opts)
	if err != nil {
		return "", err
	}
	claims := p.Claims
	if claims == nil {
		claims = map[string]any{"htm": p.Method, "htu": p.URL}
		iat := p.IssuedAt
		if iat.IsZero() {
			iat = time.Now()
		}
		claims["iat"] = iat.Unix()
		claims["jti"] = p.JTI
		if p.JTI == "" {
			claims["jti"] = rand.Text()
		}
		if p.AccessToken != "" {
			claims["ath"] = AccessTokenHash(p.AccessToken)
		}
		if p.ATH != "" {
			claims["ath"] = p.ATH
		}
		if p.Nonce != "" {
			claims["nonce"] = p.Nonce
		}
	}
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

// AccessTokenHash is a proof's ath for token: base64url(SHA-256(token)).
func AccessTokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// checkTokenProof checks a DPoP proof sent to the token endpoint at url (RFC 9449 §4.3, in
// short: the resource server's checks are the oauth package's): typ dpop+jwt, an
// asymmetric alg, the signature by the public jwk of the header, htm POST, htu url, iat
// within 5 minutes, a jti. It returns the key's thumbprint.
func checkTokenProof(proof, url string) (string, error) {
	algs := []jose.SignatureAlgorithm{jose.RS256, jose.PS256, jose.ES256, jose.ES384, jose.EdDSA}
	jws, err := jose.ParseSignedCompact(proof, algs)
	if err != nil {
		return "", err
	}
	h := jws.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "dpop+jwt" || h.JSONWebKey == nil {
		return "", errors.New("not a dpop+jwt with a jwk")
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		return "", err
	}
	var c struct {
		JTI string  `json:"jti"`
		HTM string  `json:"htm"`
		HTU string  `json:"htu"`
		IAT float64 `json:"iat"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return "", err
	}
	if c.JTI == "" || c.HTM != http.MethodPost || c.HTU != url || math.Abs(float64(time.Now().Unix())-c.IAT) > 300 {
		return "", errors.New("claims do not fit the token request")
	}
	sum, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}
