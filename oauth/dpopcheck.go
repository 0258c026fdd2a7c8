package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// HeaderDPoP is the request header of a DPoP proof, and HeaderDPoPNonce the response header
// of a server nonce (RFC 9449 §4.1, §8.1).
const (
	HeaderDPoP      = "DPoP"
	HeaderDPoPNonce = "DPoP-Nonce"
)

// dpopChecker checks the DPoP proofs of one resource server.
type dpopChecker struct {
	cfg  DPoPConfig
	algs []jose.SignatureAlgorithm
	// scheme and host are the Resource's, lowercase, the host without the scheme's default
	// port: the origin every htu must name.
	scheme, host string
	replay       *replayCache
	nonces       *nonces // nil without RequireNonce
	refusals     *proofRefusals
}

func newDPoPChecker(cfg DPoPConfig, resource *url.URL, c *challenger, retryAfter time.Duration) *dpopChecker {
	d := &dpopChecker{
		cfg: cfg, algs: signatureAlgorithms(cfg.Algorithms),
		scheme: resource.Scheme, host: normalHost(resource.Scheme, resource.Host),
		replay:   newReplayCache(cfg.ProofWindow, cfg.MaxProofs),
		refusals: newProofRefusals(c, retryAfter),
	}
	if cfg.RequireNonce {
		d.nonces = newNonces(cfg.NonceKey, cfg.NonceLifetime, c.nonceRefusal)
	}
	return d
}

// check applies RFC 9449 §4.3 to the request's DPoP header, presented with the access token
// tok: one header within MaxProofBytes, [parseProof], htm, htu, the nonce when required, iat
// within ProofWindow of now, and ath. It returns the proof, or what is wrong with it.
// Replay is checked last, by remember, once the token is known to be bound to the proof's
// key.
func (d *dpopChecker) check(r streamable.GateRequest, tok []byte, now time.Time) (dpopProof, proofFault) {
	values := r.Header.Values(HeaderDPoP)
	switch {
	case len(values) == 0:
		return dpopProof{}, proofMissing
	case len(values) > 1:
		return dpopProof{}, proofRepeated
	}
	raw := trimSpace(values[0])
	if len(raw) > d.cfg.MaxProofBytes {
		return dpopProof{}, proofMalformed
	}
	p, ok := parseProof(string(raw), d.algs)
	switch {
	case !ok:
		return p, proofMalformed
	case p.htm != string(r.Method):
		return p, proofMethod
	case !d.sameURI(p.htu, r.Path):
		return p, proofURI
	case d.nonces != nil && !d.nonces.at(now).accepts(p.nonce):
		return p, proofNonce
	}
	if age := float64(now.UnixNano())/1e9 - p.iat; age > d.cfg.ProofWindow.Seconds() || -age > d.cfg.ProofWindow.Seconds() {
		return p, proofTime
	}
	sum := sha256.Sum256(tok)
	var ath [43]byte // base64url of 32 bytes, unpadded
	base64.RawURLEncoding.Encode(ath[:], sum[:])
	if p.ath != string(ath[:]) {
		return p, proofHash
	}
	return p, proofOK
}

// refusal is the answer to a proof with fault f at now: 401 invalid_dpop_proof, or
// use_dpop_nonce with the current nonce.
func (d *dpopChecker) refusal(f proofFault, now time.Time) *streamable.GateResponse {
	if f == proofNonce {
		return d.nonces.at(now).challenge
	}
	return d.refusals.proof[f]
}

// remember records an accepted proof against replay (see [replayCache]). A proof is
// remembered until its iat plus ProofWindow, when it would be refused as stale anyway.
func (d *dpopChecker) remember(p dpopProof, now time.Time) replayVerdict {
	expires := time.Unix(0, int64(p.iat*1e9)).Add(d.cfg.ProofWindow) // iat is within the window: no overflow
	return d.replay.remember(newReplayKey(p.jkt, p.jti), expires, now)
}

// sameURI reports whether htu names the request's URI (RFC 9449 §4.3 check 9): the
// Resource's origin, since the public URL of the endpoint is configuration and never the
// request's Host, followed by the request's path. The query and fragment are ignored; the
// scheme and host compare case-insensitively, a default port is the same as none, and the
// path compares decoded (as the endpoint routes it), an empty one as "/" (RFC 3986 §6.2.2,
// §6.2.3).
func (d *dpopChecker) sameURI(htu string, path []byte) bool {
	u, err := url.Parse(htu)
	if err != nil || u.Opaque != "" || u.User != nil || !strings.EqualFold(u.Scheme, d.scheme) ||
		normalHost(d.scheme, u.Host) != d.host {
		return false
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	return p == string(path)
}

// normalHost lowercases host and drops the default port of scheme (http or https).
func normalHost(scheme, host string) string {
	host = strings.ToLower(host)
	switch {
	case scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	case scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	}
	return strings.TrimSuffix(host, ":") // an empty port is the default too
}
