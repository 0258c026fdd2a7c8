package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// ByIssuer is a [Verifier] for several authorization servers' JWTs: it reads a token's iss
// claim, unverified and only to choose, and hands the token to that issuer's verifier, which
// checks everything (iss included). A token of an issuer not listed, or that is no JWT, is
// refused with [ErrInvalidToken]. With several authorization servers the gate makes the
// Principal the issuer, a space and the subject, so that equal subjects of different issuers
// stay apart.
type ByIssuer map[string]Verifier

// Verify implements [Verifier].
func (b ByIssuer) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	iss, ok := peekIssuer(token)
	if !ok {
		return nil, invalid("not a JWT naming its issuer")
	}
	v := b[iss]
	if v == nil {
		return nil, invalid("issuer not trusted")
	}
	info, err := v.Verify(ctx, token)
	if err == nil && info != nil && info.Issuer != iss {
		return nil, invalid("iss is not the issuer") // a verifier that did not check iss
	}
	return info, err
}

// peekIssuer reads the iss claim of a compact JWS without verifying anything.
func peekIssuer(token string) (string, bool) {
	_, rest, ok := strings.Cut(token, ".")
	if !ok {
		return "", false
	}
	payload, _, ok := strings.Cut(rest, ".")
	if !ok {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return "", false
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if json.Unmarshal(raw, &claims) != nil || claims.Issuer == "" {
		return "", false
	}
	return claims.Issuer, true
}
