package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// Defaults of [JWTConfig].
const (
	// DefaultLeeway is the clock skew tolerated on exp, nbf and iat.
	DefaultLeeway = 30 * time.Second
)

// asymmetric are the signature algorithms a verifier may allow: RSA (PKCS#1 v1.5 and PSS),
// ECDSA and EdDSA. HMAC and none never.
var asymmetric = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// DefaultAlgorithms returns the signature algorithms accepted when [JWTConfig.Algorithms] is
// nil: every asymmetric one, RS256 … ES512 and EdDSA.
func DefaultAlgorithms() []string { return slices.Clone(asymmetric) }

// JWTConfig configures a [JWTVerifier].
type JWTConfig struct {
	// Issuer is the authorization server's issuer identifier; a token's iss must equal it
	// exactly (RFC 9068 §4). Required.
	Issuer string
	// Audiences are the resource identifiers a token's aud must name one of (RFC 8707, RFC
	// 9068 §4), compared exactly: normally just the canonical resource URL (a
	// [ResourceServer] accepts its origin too, see [Config.OmitRootMetadata]). Required.
	Audiences []string
	// JWKS is the issuer's key set and its cache. Required (JWKS.URL).
	JWKS JWKSConfig
	// Algorithms is the allowlist of signature algorithms (the header's alg); nil means
	// [DefaultAlgorithms](). Only asymmetric ones are allowed: HMAC with a published key would
	// let anyone sign, and none signs nothing.
	Algorithms []string
	// AllowAnyType accepts tokens whatever their typ header. By default (false) typ must be
	// at+jwt or application/at+jwt, as RFC 9068 §4 requires of a resource server; set it for
	// authorization servers that issue access tokens typed JWT or untyped.
	AllowAnyType bool
	// Leeway is the clock skew tolerated on exp (required), nbf and iat (optional; iat must
	// not be in the future). Zero means [DefaultLeeway], 30 s. Negative values are invalid.
	Leeway time.Duration
}

// JWTVerifier verifies JWT access tokens (RFC 9068) signed by one issuer with a key of its
// published key set. It is safe for concurrent use. Its checks, all refused with an error
// wrapping [ErrInvalidToken]: the compact JWS form with one signature; alg in the
// allowlist; typ at+jwt (unless AllowAnyType); a key of the set with the token's kid (or
// the set's only key when the token names none) whose type fits alg, whose own alg, if
// any, is alg, and whose use, if any, is sig; the signature; iss; aud; exp, nbf and iat
// with Leeway; a sub; a cnf, if any, that is an object whose jkt, if any, is a non-empty
// string. The scopes come from scope (a space-separated string, RFC 9068) or scp (a string
// or an array, as some providers issue); cnf.jkt becomes [TokenInfo.DPoPThumbprint].
type JWTVerifier struct {
	cfg  JWTConfig
	algs []jose.SignatureAlgorithm
	keys *keySet
	now  func() time.Time
}

// NewJWTVerifier checks cfg and builds the verifier. It fetches nothing yet: the key set is
// fetched on the first token.
func NewJWTVerifier(cfg JWTConfig) (*JWTVerifier, error) {
	if cfg.Issuer == "" {
		return nil, fmt.Errorf("%w: JWT Issuer is empty", ErrInvalidConfig)
	}
	if len(cfg.Audiences) == 0 || slices.Contains(cfg.Audiences, "") {
		return nil, fmt.Errorf("%w: JWT Audiences must list the resource", ErrInvalidConfig)
	}
	if err := defaults.Resolve(&cfg.Leeway, DefaultLeeway, "JWT Leeway", ErrInvalidConfig); err != nil {
		return nil, err
	}
	if cfg.Algorithms == nil {
		cfg.Algorithms = DefaultAlgorithms()
	}
	if len(cfg.Algorithms) == 0 {
		return nil, fmt.Errorf("%w: JWT Algorithms is empty", ErrInvalidConfig)
	}
	v := &JWTVerifier{cfg: cfg, now: time.Now}
	for _, a := range cfg.Algorithms {
		if !slices.Contains(asymmetric, a) {
			return nil, fmt.Errorf("%w: JWT algorithm %q is not an asymmetric signature algorithm fastmcp accepts", ErrInvalidConfig, a)
		}
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	var err error
	if v.keys, err = newKeySet(cfg.JWKS, func() time.Time { return v.now() }); err != nil {
		return nil, err
	}
	v.cfg.Audiences = slices.Clone(cfg.Audiences)
	return v, nil
}

// alsoFor returns a verifier that accepts aud besides the Audiences, sharing v's key set.
func (v *JWTVerifier) alsoFor(aud string) *JWTVerifier {
	if slices.Contains(v.cfg.Audiences, aud) {
		return v
	}
	also := *v
	also.cfg.Audiences = append(slices.Clone(v.cfg.Audiences), aud)
	return &also
}

// accessClaims are the claims read beside the registered ones.
type accessClaims struct {
	Scope    json.RawMessage `json:"scope"`
	Scp      json.RawMessage `json:"scp"`
	ClientID string          `json:"client_id"`
	Cnf      json.RawMessage `json:"cnf"`
}

func invalid(reason string) error { return fmt.Errorf("%w: %s", ErrInvalidToken, reason) }

// Verify implements [Verifier]. The claims are checked before the key is looked up, on the
// token as sent, and again once its signature verified: a token bad on its face (expired,
// of another audience or issuer) is refused without fetching the key set, so that junk
// tokens cost the issuer nothing and an outage of the key set does not turn them into
// "could not check". A token whose key cannot be had (the set cannot be fetched, or its
// last fetch failed and the kid is unknown) gets an error that does not wrap
// [ErrInvalidToken].
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		var alg *jose.ErrUnexpectedSignatureAlgorithm
		if errors.As(err, &alg) {
			return nil, invalid("signature algorithm not allowed")
		}
		return nil, invalid("not a compact JWS")
	}
	if len(tok.Headers) != 1 {
		return nil, invalid("not exactly one signature")
	}
	h := tok.Headers[0]
	if !v.cfg.AllowAnyType {
		typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
		if !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
			return nil, invalid("typ is not at+jwt")
		}
	}
	var unverified jwt.Claims
	var unverifiedExtra accessClaims
	if tok.UnsafeClaimsWithoutVerification(&unverified, &unverifiedExtra) != nil {
		return nil, invalid("claims are not a JSON object of the registered types")
	}
	if err := v.check(unverified, unverifiedExtra); err != nil {
		return nil, err
	}
	keys, err := v.keys.lookup(ctx, h.KeyID)
	switch {
	case errors.Is(err, errUnknownKey):
		return nil, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %w", errUnavailable, err)
	}
	var claims jwt.Claims
	var extra accessClaims
	verified := false
	for _, k := range keys {
		if !keyFits(k, h.Algorithm) {
			continue
		}
		if tok.Claims(k.Key, &claims, &extra) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, invalid("signature does not verify with a key of the issuer")
	}
	if err := v.check(claims, extra); err != nil {
		return nil, err
	}
	scopes, _ := extra.scopes()       // checked
	jkt, _ := confirmation(extra.Cnf) // checked
	return &TokenInfo{
		Subject: claims.Subject, ClientID: extra.ClientID, Issuer: claims.Issuer,
		Audience: claims.Audience, Scopes: scopes, DPoPThumbprint: jkt,
		// The gate re-checks expiry against Expiry: it carries the leeway.
		Expiry: claims.Expiry.Time().Add(v.cfg.Leeway),
	}, nil
}

// check applies the claim rules of [JWTVerifier]: iss, aud, exp (required), nbf and iat
// with Leeway, sub, and the form of the scopes and of cnf.
func (v *JWTVerifier) check(claims jwt.Claims, extra accessClaims) error {
	if claims.Issuer != v.cfg.Issuer {
		return invalid("iss is not the issuer")
	}
	if !slices.ContainsFunc(claims.Audience, func(a string) bool { return slices.Contains(v.cfg.Audiences, a) }) {
		return invalid("aud does not name this resource")
	}
	now := v.now()
	switch {
	case claims.Expiry == nil:
		return invalid("no exp")
	case !now.Before(claims.Expiry.Time().Add(v.cfg.Leeway)):
		return invalid("expired")
	case claims.NotBefore != nil && now.Add(v.cfg.Leeway).Before(claims.NotBefore.Time()):
		return invalid("not yet valid (nbf)")
	case claims.IssuedAt != nil && now.Add(v.cfg.Leeway).Before(claims.IssuedAt.Time()):
		return invalid("issued in the future (iat)")
	case claims.Subject == "":
		return invalid("no sub")
	}
	if _, err := confirmation(extra.Cnf); err != nil {
		return err
	}
	_, err := extra.scopes()
	return err
}

// confirmation reads the key a token is bound to from its cnf claim (RFC 7800 §3.1, RFC
// 9449 §6): its jkt, "" when there is no cnf or it has no jkt (another confirmation
// method, which this package does not check). A cnf that is not an object, or a jkt that
// is not a non-empty string, makes the token invalid.
func confirmation(cnf json.RawMessage) (string, error) {
	if cnf == nil {
		return "", nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(cnf, &members) != nil || members == nil {
		return "", invalid("cnf is not a JSON object")
	}
	raw, ok := members["jkt"]
	if !ok {
		return "", nil
	}
	var jkt string
	if json.Unmarshal(raw, &jkt) != nil || jkt == "" {
		return "", invalid("cnf.jkt is not a thumbprint")
	}
	return jkt, nil
}

func (c accessClaims) scopes() ([]string, error) {
	raw := c.Scope
	if raw == nil {
		raw = c.Scp
	}
	if raw == nil {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return splitScope(s), nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && !slices.ContainsFunc(list, func(s string) bool { return !validScope(s) }) {
		return list, nil
	}
	return nil, invalid("scope is neither a space-separated string nor an array of scopes")
}

// keyFits reports whether key k may verify a signature of alg (RFC 8725 §3.1: the key's
// type and curve fit the algorithm; the key's own alg, if any, is alg).
func keyFits(k jose.JSONWebKey, alg string) bool {
	if k.Algorithm != "" && k.Algorithm != alg {
		return false
	}
	switch pub := k.Key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		switch alg {
		case "ES256":
			return pub.Curve == elliptic.P256()
		case "ES384":
			return pub.Curve == elliptic.P384()
		case "ES512":
			return pub.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}
