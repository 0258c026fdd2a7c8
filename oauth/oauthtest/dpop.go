package oauthtest

import (
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// dpopAlgs are the proof algorithms the token endpoint accepts (and its metadata lists).
var dpopAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.PS256, jose.EdDSA}

// checkDPoPProof checks a DPoP proof presented at the token endpoint (RFC 9449 §4.3): typ
// dpop+jwt, an asymmetric algorithm, the public key in the header verifying the signature,
// htm POST, htu the endpoint's URL, iat within five minutes, a jti. It returns the key's
// JWK SHA-256 thumbprint, which the token then names in cnf.jkt.
func checkDPoPProof(proof, htu string) (string, error) {
	sig, err := jose.ParseSignedCompact(proof, dpopAlgs)
	if err != nil || len(sig.Signatures) != 1 {
		return "", errors.New("not a JWS")
	}
	h := sig.Signatures[0].Header
	if h.ExtraHeaders[jose.HeaderType] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return "", errors.New("not a DPoP proof header")
	}
	payload, err := sig.Verify(h.JSONWebKey)
	if err != nil {
		return "", errors.New("bad signature")
	}
	var c struct {
		JTI string `json:"jti"`
		HTM string `json:"htm"`
		HTU string `json:"htu"`
		IAT int64  `json:"iat"`
	}
	if json.Unmarshal(payload, &c) != nil || c.JTI == "" || c.HTM != "POST" || strings.TrimSuffix(c.HTU, "/") != htu {
		return "", errors.New("bad claims")
	}
	if d := time.Since(time.Unix(c.IAT, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "", errors.New("iat out of range")
	}
	tp, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(tp), nil
}
