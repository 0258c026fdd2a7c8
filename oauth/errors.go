package oauth

import "errors"

// ErrInvalidToken is wrapped by every error a [Verifier] returns for a token it refuses
// (malformed, badly signed, expired, not yet valid, of another issuer or audience, inactive,
// revoked, its key unknown). The gate answers it with 401 error="invalid_token". The reason
// after the colon is for logs; it never contains the token, a claim value or a key id.
var ErrInvalidToken = errors.New("oauth: invalid token")

// ErrInvalidConfig is wrapped by the errors the constructors return for an invalid config.
var ErrInvalidConfig = errors.New("oauth: invalid config")

// errUnavailable is wrapped by a verifier that could not decide (its authorization server
// did not answer): the gate fails closed with 500, never admits.
var errUnavailable = errors.New("oauth: verification unavailable")
