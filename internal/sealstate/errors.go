package sealstate

import "errors"

// Sentinel errors. Every error that [Sealer.Open] returns wraps exactly one
// of ErrTooLarge, ErrMalformed, ErrTampered, ErrExpired and ErrMismatch, so
// the caller can log the reason with [errors.Is] while answering every one of
// them the same way on the wire (JSON-RPC -32602, "Invalid or expired request
// state", no data).
var (
	// ErrInvalidConfig: [New] was given bad keys or a bad TTL.
	ErrInvalidConfig = errors.New("sealstate: invalid config")
	// ErrInvalidTTL: [State.TTL] is below 1ms (but not zero) or above [MaxTTL].
	ErrInvalidTTL = errors.New("sealstate: invalid TTL")
	// ErrTooLarge: the token would exceed, or exceeds, [MaxTokenBytes].
	ErrTooLarge = errors.New("sealstate: token too large")
	// ErrMalformed: the token is not something Seal could have produced
	// (not unpadded base64url, too short, unknown format version).
	ErrMalformed = errors.New("sealstate: malformed token")
	// ErrTampered: the token does not authenticate under any of the keys:
	// it was modified, forged, or sealed with a key no longer configured.
	ErrTampered = errors.New("sealstate: token failed authentication")
	// ErrExpired: the token is authentic but its expiry has passed.
	ErrExpired = errors.New("sealstate: token expired")
	// ErrMismatch: the token is authentic and current but was sealed for a
	// different method, request digest or principal.
	ErrMismatch = errors.New("sealstate: token does not match the request")
)

// Details wrapped around the sentinels. They are allocated once so that
// refusing a token allocates nothing beyond the decode buffer.
var (
	errOpenTooLarge   = wrap(ErrTooLarge, "longer than MaxTokenBytes")
	errShort          = wrap(ErrMalformed, "too short")
	errAlphabet       = wrap(ErrMalformed, "not unpadded base64url")
	errVersion        = wrap(ErrMalformed, "unknown format version")
	errPlaintext      = wrap(ErrMalformed, "bad sealed layout")
	errUnknownKey     = wrap(ErrTampered, "unknown key id")
	errAuth           = wrap(ErrTampered, "authentication failed")
	errMismatchMethod = wrap(ErrMismatch, "method")
	errMismatchDigest = wrap(ErrMismatch, "request digest")
	errMismatchPrinc  = wrap(ErrMismatch, "principal")
)

type detailError struct {
	err    error
	detail string
}

func wrap(err error, detail string) error { return &detailError{err, detail} }

func (e *detailError) Error() string { return e.err.Error() + ": " + e.detail }
func (e *detailError) Unwrap() error { return e.err }
