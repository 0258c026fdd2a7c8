package oauth

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// DPoPMode is whether the resource server accepts DPoP-bound access tokens (RFC 9449).
type DPoPMode uint8

const (
	// DPoPOff accepts Bearer tokens only (the default). A request with the DPoP scheme is
	// challenged like one of any other scheme; a DPoP-bound token (cnf.jkt) sent as Bearer
	// is refused with 401 invalid_token, since its issuer bound it to a key (RFC 9449 §7.2).
	DPoPOff DPoPMode = iota
	// DPoPAllowed accepts both schemes: Bearer for unbound tokens, DPoP with a valid proof
	// for bound ones. A bound token sent as Bearer is refused (RFC 9449 §7.2 MUST).
	DPoPAllowed
	// DPoPRequired accepts only the DPoP scheme with a valid proof and a bound token; a
	// Bearer request is challenged as one without credentials. The metadata says
	// dpop_bound_access_tokens_required.
	DPoPRequired
)

var dpopModeNames = []string{"off", "allowed", "required"}

func (m DPoPMode) String() string {
	if int(m) < len(dpopModeNames) {
		return dpopModeNames[m]
	}
	return fmt.Sprintf("DPoPMode(%d)", m)
}

// ParseDPoPMode reads "off", "allowed" or "required".
func ParseDPoPMode(s string) (DPoPMode, error) {
	if i := slices.Index(dpopModeNames, s); i >= 0 {
		return DPoPMode(i), nil
	}
	return 0, fmt.Errorf("%w: DPoP mode %q is not off, allowed or required", ErrInvalidConfig, s)
}

// Defaults of [DPoPConfig].
const (
	// DefaultDPoPProofWindow is how far a proof's iat may be from the server's clock, either
	// way.
	DefaultDPoPProofWindow = time.Minute
	// DefaultMaxDPoPProofBytes bounds a DPoP header.
	DefaultMaxDPoPProofBytes = 8 << 10
	// DefaultMaxDPoPProofs bounds the proofs remembered against replay.
	DefaultMaxDPoPProofs = 1_000_000
	// DefaultDPoPNonceLifetime is how often the server's nonce changes; a nonce is accepted
	// for one to two lifetimes.
	DefaultDPoPNonceLifetime = 5 * time.Minute
)

// DPoPConfig configures DPoP (RFC 9449) at a [ResourceServer]. The zero value is DPoPOff.
type DPoPConfig struct {
	// Mode is off (the default), allowed or required.
	Mode DPoPMode
	// Algorithms are the proof signature algorithms accepted, advertised as
	// dpop_signing_alg_values_supported and in the algs of the DPoP challenge. Nil means
	// [DefaultAlgorithms]() (every asymmetric one); only asymmetric ones are allowed.
	Algorithms []string
	// ProofWindow is how far a proof's iat may be from now, before or after. Zero means
	// [DefaultDPoPProofWindow], 1 min. Negative values are invalid.
	ProofWindow time.Duration
	// MaxProofBytes bounds the DPoP header (401 invalid_dpop_proof past it, unparsed). Zero
	// means [DefaultMaxDPoPProofBytes], 8 KiB. Negative values are invalid.
	MaxProofBytes int
	// MaxProofs bounds the proofs remembered (by a hash of their key and jti) so that a
	// replayed one is refused; each is remembered until its iat plus ProofWindow, and at
	// most ProofWindow/2 longer. When it is full, a valid request gets 503 with Retry-After
	// rather than be admitted unchecked: it bounds the DPoP requests per second to about
	// MaxProofs / (1.5 ProofWindow), 11,000 with the defaults. Zero means
	// [DefaultMaxDPoPProofs], 1,000,000 (about 30 MB when full). Negative values are invalid.
	MaxProofs int
	// RequireNonce makes the server issue nonces (RFC 9449 §9): a proof without the current
	// nonce, or the one before it, gets 401 use_dpop_nonce with the nonce in a DPoP-Nonce
	// header, and the client retries with it.
	RequireNonce bool
	// NonceLifetime is how often the nonce changes (it is an HMAC of the time divided by
	// it). Zero means [DefaultDPoPNonceLifetime], 5 min. Negative values are invalid.
	NonceLifetime time.Duration
	// NonceKey is the HMAC key of the nonces, at least 32 bytes; replicas that share it
	// accept each other's nonces. Nil means a random key of the process.
	NonceKey []byte
}

// dpopOn reports whether the DPoP scheme is accepted.
func (c DPoPConfig) dpopOn() bool { return c.Mode != DPoPOff }

func (c DPoPConfig) resolve() (DPoPConfig, error) {
	if c.Mode > DPoPRequired {
		return c, fmt.Errorf("%w: DPoP Mode %d is not off, allowed or required", ErrInvalidConfig, c.Mode)
	}
	if c.Mode == DPoPOff && (c.RequireNonce || c.NonceKey != nil) {
		return c, fmt.Errorf("%w: DPoP nonces need DPoP Mode allowed or required", ErrInvalidConfig)
	}
	if c.Algorithms == nil {
		c.Algorithms = DefaultAlgorithms()
	}
	if len(c.Algorithms) == 0 {
		return c, fmt.Errorf("%w: DPoP Algorithms is empty", ErrInvalidConfig)
	}
	for _, a := range c.Algorithms {
		if !slices.Contains(asymmetric, a) {
			return c, fmt.Errorf("%w: DPoP algorithm %q is not an asymmetric signature algorithm fastmcp accepts", ErrInvalidConfig, a)
		}
	}
	if c.NonceKey != nil && len(c.NonceKey) < 32 {
		return c, fmt.Errorf("%w: DPoP NonceKey has %d bytes, fewer than 32", ErrInvalidConfig, len(c.NonceKey))
	}
	if err := cmp.Or(
		defaults.Resolve(&c.ProofWindow, DefaultDPoPProofWindow, "DPoP ProofWindow", ErrInvalidConfig),
		defaults.Resolve(&c.MaxProofBytes, DefaultMaxDPoPProofBytes, "DPoP MaxProofBytes", ErrInvalidConfig),
		defaults.Resolve(&c.MaxProofs, DefaultMaxDPoPProofs, "DPoP MaxProofs", ErrInvalidConfig),
		defaults.Resolve(&c.NonceLifetime, DefaultDPoPNonceLifetime, "DPoP NonceLifetime", ErrInvalidConfig),
	); err != nil {
		return c, err
	}
	c.Algorithms = slices.Clone(c.Algorithms)
	c.NonceKey = slices.Clone(c.NonceKey)
	return c, nil
}

// signatureAlgorithms converts checked algorithm names for go-jose.
func signatureAlgorithms(names []string) []jose.SignatureAlgorithm {
	algs := make([]jose.SignatureAlgorithm, len(names))
	for i, n := range names {
		algs[i] = jose.SignatureAlgorithm(n)
	}
	return algs
}

// algsParam is the algs of a DPoP challenge: the algorithms, space-separated.
func algsParam(names []string) string { return strings.Join(names, " ") }
