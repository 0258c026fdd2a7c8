package oauth

import "sync/atomic"

// Stats counts the gate's decisions since the resource server was made, for metrics.
type Stats struct {
	// Admitted counts requests admitted with a verified token; CacheHits those of them
	// whose token the cache remembered.
	Admitted, CacheHits int64
	// Metadata counts answers of the metadata routes; Public requests admitted on a
	// PublicPaths path without a token.
	Metadata, Public int64
	// Missing (401, no token), Malformed (400, malformed or repeated header), Invalid (401
	// invalid_token, MaxTokenBytes included) and InsufficientScope (403) count refusals.
	Missing, Malformed, Invalid, InsufficientScope int64
	// Unavailable counts requests whose token the verifier could not check (503 with
	// Retry-After: the authorization server down, slow or answering garbage).
	Unavailable int64
	// Failed counts requests the verifier answered without an error or a subject (500).
	Failed int64
	// StepUps counts the initialize-era refusals [ResourceServer.StepUp] answered with 403
	// (requests the gate admitted, so also counted in Admitted).
	StepUps int64
	// DPoPAdmitted counts the admitted requests that came with the DPoP scheme and a proof
	// (also counted in Admitted). InvalidProof counts the 401 invalid_dpop_proof refusals
	// (replays included), NonceRequired the 401 use_dpop_nonce. A DPoP-bound token sent as
	// Bearer, or one not bound to the proof's key, counts in Invalid; a full replay cache in
	// Unavailable.
	DPoPAdmitted, InvalidProof, NonceRequired int64
}

type counters struct {
	admitted, cacheHits, metadata, public          atomic.Int64
	missing, malformed, invalid, insufficientScope atomic.Int64
	unavailable, failed, stepUps                   atomic.Int64
	dpopAdmitted, invalidProof, nonceRequired      atomic.Int64
}

// Stats returns the counts so far. It is safe to call concurrently with the gate.
func (rs *ResourceServer) Stats() Stats {
	c := &rs.counters
	return Stats{
		Admitted: c.admitted.Load(), CacheHits: c.cacheHits.Load(), Metadata: c.metadata.Load(), Public: c.public.Load(),
		Missing: c.missing.Load(), Malformed: c.malformed.Load(), Invalid: c.invalid.Load(),
		InsufficientScope: c.insufficientScope.Load(), Unavailable: c.unavailable.Load(), Failed: c.failed.Load(),
		StepUps: c.stepUps.Load(), DPoPAdmitted: c.dpopAdmitted.Load(), InvalidProof: c.invalidProof.Load(),
		NonceRequired: c.nonceRequired.Load(),
	}
}
