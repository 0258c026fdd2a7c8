package oauth

import (
	"crypto"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// proofFault is what is wrong with a request's DPoP proof; each has its answer.
type proofFault uint8

const (
	proofOK proofFault = iota
	// proofMissing: the DPoP scheme without a DPoP header.
	proofMissing
	// proofRepeated: more than one DPoP header (RFC 9449 §4.3 check 1).
	proofRepeated
	// proofMalformed: over MaxProofBytes, not a compact JWS, typ not dpop+jwt, crit, alg not
	// allowed, no public jwk fitting alg (RSA under MinRSABits), a signature that does not
	// verify with it, or claims missing or of the wrong type (checks 2 to 7).
	proofMalformed
	// proofMethod: htm is not the request's method (check 8).
	proofMethod
	// proofURI: htu is not the request's URI (check 9).
	proofURI
	// proofNonce: no nonce, or not a current one, when nonces are required (check 10).
	proofNonce
	// proofTime: iat outside the window (check 11).
	proofTime
	// proofHash: ath is not the hash of the access token (check 12).
	proofHash
	// proofReplayed: a proof accepted before.
	proofReplayed
	numProofFaults
)

// dpopProof is what a DPoP proof says once its signature verified (RFC 9449 §4.2).
type dpopProof struct {
	jkt   string // RFC 7638 SHA-256 thumbprint of the proof's key, base64url
	jti   string
	htm   string
	htu   string
	iat   float64 // seconds since the epoch, as sent
	ath   string
	nonce string
}

// proofClaims are the claims of a proof, as sent; a member of another JSON type fails the
// parse.
type proofClaims struct {
	JTI   string   `json:"jti"`
	HTM   string   `json:"htm"`
	HTU   string   `json:"htu"`
	IAT   *float64 `json:"iat"`
	ATH   string   `json:"ath"`
	Nonce string   `json:"nonce"`
}

// parseProof verifies a DPoP proof on its own (RFC 9449 §4.3 checks 2 to 7): a compact JWS
// whose protected header has typ dpop+jwt, no crit, an alg of algs and a public jwk
// fitting it, the signature made with that key, and the claims jti, htm, htu and iat
// present. It checks
// nothing against the request: that is [ResourceServer.checkProof]'s work.
func parseProof(proof string, algs []jose.SignatureAlgorithm) (dpopProof, bool) {
	jws, err := jose.ParseSignedCompact(proof, algs)
	if err != nil || len(jws.Signatures) != 1 {
		return dpopProof{}, false
	}
	h := jws.Signatures[0].Protected
	typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
	if !strings.EqualFold(typ, "dpop+jwt") && !strings.EqualFold(typ, "application/dpop+jwt") {
		return dpopProof{}, false
	}
	if _, crit := h.ExtraHeaders["crit"]; crit {
		return dpopProof{}, false // a JWT knows no critical header (b64 false included)
	}
	jwk := h.JSONWebKey // go-jose refuses a private or invalid one
	if jwk == nil || !keyFits(*jwk, h.Algorithm) {
		return dpopProof{}, false
	}
	if pub, ok := jwk.Key.(*rsa.PublicKey); ok && pub.N.BitLen() < MinRSABits {
		return dpopProof{}, false
	}
	payload, err := jws.Verify(jwk)
	if err != nil {
		return dpopProof{}, false
	}
	var c proofClaims
	if json.Unmarshal(payload, &c) != nil || c.JTI == "" || c.HTM == "" || c.HTU == "" || c.IAT == nil {
		return dpopProof{}, false
	}
	thumb, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return dpopProof{}, false
	}
	return dpopProof{
		jkt: base64.RawURLEncoding.EncodeToString(thumb),
		jti: c.JTI, htm: c.HTM, htu: c.HTU, iat: *c.IAT, ath: c.ATH, nonce: c.Nonce,
	}, true
}
