package oauth

import "errors"

// ErrInvalidToken is wrapped by every error a [Verifier] returns for a token it refuses
// (malformed, badly signed, expired, not yet valid, of another issuer or audience, inactive,
// revoked, its key unknown). The gate answers it with 401 error="invalid_token". The reason
// after the colon is for logs; it never contains the token, a claim value or a key id.
var ErrInvalidToken = errors.New("oauth: invalid token")

// ErrInvalidConfig is wrapped by the errors the constructors return for an invalid config.
var ErrInvalidConfig = errors.New("oauth: invalid config")

// errUnavailable is wrapped by the verifiers of this package when they could not check a
// token (the key set or the introspection endpoint is unreachable, slow or answers
// garbage): the gate answers 503 with Retry-After, never admits, and never says
// invalid_token, which would make the client drop a token that may be good.
var errUnavailable = errors.New("oauth: the token could not be checked")
