package oauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// ResourceServer makes an MCP endpoint an OAuth 2.1 resource server. Its [ResourceServer.Gate]
// is a [streamable.RequestGate]: it serves the protected resource metadata and checks the
// bearer token of every other request, before the body is read. It is safe for concurrent
// use.
type ResourceServer struct {
	cfg         Config
	verifier    Verifier // cfg.Verifier, accepting the root document's resource too
	metadataURL string
	// routes are the metadata documents by path: the path-based one, and the root one.
	routes map[string]metadataRoute
	// bearer and dpop are the refusals of each scheme, nil for a scheme the mode does not
	// accept; unavailable is the 503 of a token that could not be checked.
	bearer, dpop *refusals
	unavailable  *streamable.GateResponse
	challenger   *challenger
	proofs       *dpopChecker // nil with DPoPOff
	cache        *tokenCache  // nil with NoTokenCache
	public       map[string]bool
	counters     counters
	now          func() time.Time
}

// New checks cfg and builds the resource server.
func New(cfg Config) (*ResourceServer, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	u, _ := canonicalResource(cfg.Resource)
	origin := u.Scheme + "://" + u.Host
	rs := &ResourceServer{cfg: cfg, routes: map[string]metadataRoute{}, public: map[string]bool{}, now: time.Now}
	for _, p := range cfg.PublicPaths {
		rs.public[p] = true
	}
	rs.metadataURL = origin + WellKnownPath + u.EscapedPath()
	doc := rs.Metadata()
	path, err := url.PathUnescape(WellKnownPath + u.EscapedPath())
	if err != nil {
		return nil, err
	}
	if rs.routes[path], err = newMetadataRoute(doc); err != nil {
		return nil, err
	}
	rs.verifier = cfg.Verifier
	if path != WellKnownPath && !cfg.OmitRootMetadata {
		// The root document describes the origin (RFC 9728 §3.3: resource is the identifier
		// the well-known URL was derived from), so a client that discovered it holds tokens
		// for the origin: they are ours too.
		doc.Resource = origin
		if rs.routes[WellKnownPath], err = newMetadataRoute(doc); err != nil {
			return nil, err
		}
		rs.verifier = alsoAccepting(cfg.Verifier, origin)
	}
	rs.challenger = &challenger{metadataURL: rs.metadataURL, required: cfg.RequiredScopes, mode: cfg.DPoP.Mode, algs: algsParam(cfg.DPoP.Algorithms)}
	rs.unavailable = unavailableResponse(cfg.RetryAfter, describeUnavailable)
	if cfg.DPoP.Mode != DPoPRequired {
		rs.bearer = newRefusals(rs.challenger, schemeBearer)
	}
	if cfg.DPoP.dpopOn() {
		rs.dpop = newRefusals(rs.challenger, schemeDPoP)
		rs.proofs = newDPoPChecker(cfg.DPoP, u, rs.challenger, cfg.RetryAfter)
	}
	if cfg.MaxCachedTokens != NoTokenCache {
		rs.cache = newTokenCache(cfg.MaxCachedTokens, cfg.TokenCacheTTL)
	}
	return rs, nil
}

// Metadata returns the protected resource metadata of the endpoint (the path-based document).
func (rs *ResourceServer) Metadata() ProtectedResourceMetadata {
	md := ProtectedResourceMetadata{
		Resource:               rs.cfg.Resource,
		AuthorizationServers:   rs.cfg.AuthorizationServers,
		ScopesSupported:        rs.cfg.ScopesSupported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           rs.cfg.ResourceName,
		ResourceDocumentation:  rs.cfg.ResourceDocumentation,
	}
	if rs.cfg.DPoP.dpopOn() {
		md.DPoPSigningAlgValuesSupported = rs.cfg.DPoP.Algorithms
		md.DPoPBoundAccessTokensRequired = rs.cfg.DPoP.Mode == DPoPRequired
	}
	return md
}

// MetadataURL is the URL of the path-based metadata document, the resource_metadata of every
// challenge: the resource's origin, [WellKnownPath], then the resource's path.
func (rs *ResourceServer) MetadataURL() string { return rs.metadataURL }

// Gate is the [streamable.RequestGate] of the resource server, for [streamable.Config]
// (which the native listener, NewHandler and NewRequestHandler all apply). In order:
//
//   - the metadata paths (WellKnownPath followed by the resource's path, and WellKnownPath
//     alone, whose document names the origin, unless OmitRootMetadata): GET or HEAD 200 with
//     the JSON document, OPTIONS 204, other methods 405; with Access-Control-Allow-Origin: *
//     and no token needed;
//   - PublicPaths: admitted without a token and without an identity (for the endpoint's
//     own public routes, such as a health check);
//   - no Authorization header, or one of a scheme the DPoP mode does not accept: 401 with
//     WWW-Authenticate: Bearer resource_metadata="…"[, scope="…"] (RequiredScopes), no
//     error code, no body (with DPoP allowed, a DPoP challenge follows; with DPoP
//     required, only the DPoP one, algs="…" first);
//   - more than one Authorization header, or a Bearer (or DPoP) header that is not the
//     scheme and a b64token: 400 error="invalid_request";
//   - a token over MaxTokenBytes, or one the verifier refuses: 401 error="invalid_token";
//   - with the DPoP scheme (DPoP allowed or required), a proof that is missing or fails a
//     check: 401 DPoP error="invalid_dpop_proof", or error="use_dpop_nonce" with a
//     DPoP-Nonce header (the package doc lists them);
//   - a DPoP-bound token sent as Bearer, or a token with the DPoP scheme not bound to the
//     proof's key: 401 error="invalid_token"; a proof seen before: 401
//     error="invalid_dpop_proof"; a full replay cache: 503 with Retry-After;
//   - a token lacking RequiredScopes (plus the policy's scopes of the tool or prompt the
//     Mcp-Method and Mcp-Name headers name): 403 error="insufficient_scope" with scope
//     listing all of them;
//   - a token the verifier could not check (its authorization server is down, slow or
//     answers garbage; any verifier error not wrapping [ErrInvalidToken]): 503 with
//     Retry-After (RetryAfter) and no WWW-Authenticate, the body
//     {"error":"temporarily_unavailable",…}: the client keeps its token and retries;
//   - a verifier that returns neither an error nor a subject: the gate fails, and the
//     endpoint answers 500 "Request gate failed".
//
// Verification gets the gate's context with a deadline a tenth of the time left before the
// gate's own (9 s of streamable's default 10 s RequestGateTimeout), so a slow authorization
// server is always answered with the 503, never with the transport's 504. A token is
// accepted for Resource and, unless OmitRootMetadata, for the origin that the root document
// names (see [Config.OmitRootMetadata]).
//
// Refusals with an error code carry a JSON body {"error":"…","error_description":"…"} and
// Cache-Control: no-store. An admitted request carries a [fastmcp.Identity] whose Principal
// is the token's subject and whose Claims is its *[TokenInfo]. The token itself is never
// logged, passed on or put in a response. With several AuthorizationServers the Principal is
// the token's issuer, a space and its subject.
func (rs *ResourceServer) Gate(ctx context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
	return rs.gate(ctx, r, false)
}

// GateQuick is the [streamable.QuickGate] of the resource server, for
// [streamable.Config.RequestGateQuick] beside Gate: it answers, as Gate does, every request
// it can without the verifier (the metadata, PublicPaths, a missing or malformed credential,
// and a token the cache remembers, its DPoP proof and scopes checked), and leaves a token
// to verify undecided (ok false), for Gate, with its deadline.
func (rs *ResourceServer) GateQuick(r streamable.GateRequest) (d streamable.GateDecision, ok bool) {
	d, err := rs.gate(context.Background(), r, true)
	return d, err == nil
}

// errNotCached is what gate returns with cachedOnly for a token it would have to verify.
var errNotCached = errors.New("oauth: token not cached")

// gate is Gate; with cachedOnly it returns errNotCached for a token not in the cache,
// before any other check of it.
func (rs *ResourceServer) gate(ctx context.Context, r streamable.GateRequest, cachedOnly bool) (streamable.GateDecision, error) {
	if route, ok := rs.routes[string(r.Path)]; ok {
		rs.counters.metadata.Add(1)
		return streamable.GateDecision{Response: route.answer(r.Method)}, nil
	}
	if len(rs.public) > 0 && rs.public[string(r.Path)] {
		rs.counters.public.Add(1)
		return streamable.GateDecision{}, nil
	}
	scheme, tok, fault := credential(r.Header.Values("Authorization"), rs.cfg.MaxTokenBytes)
	ref := rs.refusalsOf(scheme)
	if ref == nil { // a scheme the mode does not accept: as if there were no credentials
		scheme, fault, ref = schemeNone, credentialMissing, rs.refusalsOf(schemeNone)
	}
	switch fault {
	case credentialMissing:
		rs.counters.missing.Add(1)
		return refuse(ref.missing)
	case credentialMalformed:
		rs.counters.malformed.Add(1)
		return refuse(ref.malformed)
	case credentialRepeated:
		rs.counters.malformed.Add(1)
		return refuse(ref.repeated)
	case credentialTooLarge:
		rs.counters.invalid.Add(1)
		rs.cfg.Logger.Debug("oauth: token refused", "reason", "larger than MaxTokenBytes")
		return refuse(ref.invalid)
	}
	now := rs.now()
	// The cache is read before the DPoP proof's check, which Gate would repeat after a
	// GateQuick that leaves the token undecided.
	id, key := rs.remembered(tok, now)
	if id == nil && cachedOnly {
		return streamable.GateDecision{}, errNotCached
	}
	var proof dpopProof
	if scheme == schemeDPoP {
		var f proofFault
		if proof, f = rs.proofs.check(r, tok, now); f != proofOK {
			return rs.refuseProof(f, tok, now)
		}
	}
	if id != nil {
		rs.counters.cacheHits.Add(1)
	} else {
		var d streamable.GateDecision
		var err error
		if id, d, err = rs.verify(ctx, tok, &key, ref, now); id == nil {
			return d, err
		}
	}
	info := id.Claims.(*TokenInfo)
	switch {
	case scheme == schemeBearer && info.DPoPThumbprint != "":
		rs.counters.invalid.Add(1) // RFC 9449 §7.2: no downgrade of a bound token to Bearer
		rs.cfg.Logger.Debug("oauth: token refused", "token", TokenHash(string(tok)), "reason", "DPoP-bound token sent as Bearer")
		return refuse(ref.bound)
	case scheme == schemeDPoP && info.DPoPThumbprint != proof.jkt:
		rs.counters.invalid.Add(1)
		rs.cfg.Logger.Debug("oauth: token refused", "token", TokenHash(string(tok)), "reason", "not bound to the DPoP proof's key")
		return refuse(rs.proofs.refusals.keyBinding)
	case scheme == schemeDPoP:
		switch rs.proofs.remember(proof, now) {
		case replaySeen:
			return rs.refuseProof(proofReplayed, tok, now)
		case replayFull:
			rs.counters.unavailable.Add(1)
			rs.cfg.Logger.Warn("oauth: DPoP proof not checked: the replay cache is full (DPoPConfig.MaxProofs)", "token", TokenHash(string(tok)))
			return refuse(rs.proofs.refusals.full)
		}
	}
	if needed := rs.needed(r.Header); !rs.implies().satisfies(info.Scopes, needed) {
		rs.counters.insufficientScope.Add(1)
		rs.cfg.Logger.Debug("oauth: insufficient scope", "token", TokenHash(string(tok)), "needed", needed)
		if len(needed) == len(rs.cfg.RequiredScopes) {
			return refuse(ref.scope)
		}
		return refuse(rs.challenger.refusal(scheme, http.StatusForbidden, "insufficient_scope", describeScope, needed))
	}
	rs.counters.admitted.Add(1)
	if scheme == schemeDPoP {
		rs.counters.dpopAdmitted.Add(1)
	}
	return streamable.GateDecision{Identity: id}, nil
}

// refusalsOf returns the refusals of a request of scheme s, nil when the mode does not
// accept s; schemeNone gets the mode's main scheme's.
func (rs *ResourceServer) refusalsOf(s authScheme) *refusals {
	switch s {
	case schemeBearer:
		return rs.bearer
	case schemeDPoP:
		return rs.dpop
	}
	if rs.bearer != nil {
		return rs.bearer
	}
	return rs.dpop
}

// proofReasons name the proof faults in logs.
var proofReasons = [numProofFaults]string{
	proofMissing: "no DPoP header", proofRepeated: "more than one DPoP header", proofMalformed: "malformed or badly signed",
	proofMethod: "htm", proofURI: "htu", proofNonce: "nonce", proofTime: "iat", proofHash: "ath", proofReplayed: "replayed",
}

// refuseProof answers a DPoP proof with fault f, counting it.
func (rs *ResourceServer) refuseProof(f proofFault, tok []byte, now time.Time) (streamable.GateDecision, error) {
	if f == proofNonce {
		rs.counters.nonceRequired.Add(1)
	} else {
		rs.counters.invalidProof.Add(1)
		rs.cfg.Logger.Debug("oauth: DPoP proof refused", "token", TokenHash(string(tok)), "reason", proofReasons[f])
	}
	return refuse(rs.proofs.refusal(f, now))
}

// remembered returns the identity the cache holds for tok at now (nil if none, or without
// a cache), and tok's key in the cache. A cached identity is shared by the token's
// requests: nothing may modify it.
func (rs *ResourceServer) remembered(tok []byte, now time.Time) (*fastmcp.Identity, [sha256.Size]byte) {
	if rs.cache == nil {
		return nil, [sha256.Size]byte{}
	}
	key := sha256.Sum256(tok)
	return rs.cache.get(&key, now), key
}

// verify returns the identity of the token (Claims its *TokenInfo) from the verifier,
// remembering it under key in the cache; when it returns none, the decision and error are
// the gate's answer.
func (rs *ResourceServer) verify(ctx context.Context, tok []byte, key *[sha256.Size]byte, ref *refusals, now time.Time) (*fastmcp.Identity, streamable.GateDecision, error) {
	token := string(tok)
	vctx, cancel := verifyContext(ctx)
	info, err := rs.verifier.Verify(vctx, token)
	cancel()
	switch {
	case errors.Is(err, ErrInvalidToken):
		rs.counters.invalid.Add(1)
		rs.cfg.Logger.Debug("oauth: token refused", "token", TokenHash(token), "reason", err)
		d, err := refuse(ref.invalid)
		return nil, d, err
	case err != nil:
		rs.counters.unavailable.Add(1)
		rs.cfg.Logger.Warn("oauth: the token could not be checked", "token", TokenHash(token), "err", err)
		d, err := refuse(rs.unavailable)
		return nil, d, err
	case info == nil || info.Subject == "":
		rs.counters.failed.Add(1)
		rs.cfg.Logger.Error("oauth: the verifier returned no subject", "token", TokenHash(token))
		return nil, streamable.GateDecision{}, errors.New("oauth: verifier returned no subject")
	case !info.Expiry.IsZero() && !now.Before(info.Expiry):
		rs.counters.invalid.Add(1)
		d, err := refuse(ref.invalid) // a verifier's own cache outlived the token
		return nil, d, err
	}
	principal := info.Subject
	if len(rs.cfg.AuthorizationServers) > 1 {
		principal = info.Issuer + " " + info.Subject // equal subjects of two issuers are two callers
	}
	id := &fastmcp.Identity{Principal: principal, Claims: info, Expires: info.Expiry} // listen streams end then
	if rs.cache != nil {
		rs.cache.put(key, id, info, now)
	}
	return id, streamable.GateDecision{}, nil
}

func refuse(r *streamable.GateResponse) (streamable.GateDecision, error) {
	return streamable.GateDecision{Response: r}, nil
}

// needed returns the scopes the request needs: RequiredScopes, and the policy's for the tool
// or prompt its mirrored headers name.
func (rs *ResourceServer) needed(h streamable.Headers) []string {
	if rs.cfg.Policy == nil {
		return rs.cfg.RequiredScopes
	}
	method, ok := oneHeader(h, streamable.HeaderMethod)
	if !ok {
		return rs.cfg.RequiredScopes
	}
	name, ok := oneHeader(h, streamable.HeaderName)
	if !ok {
		return rs.cfg.RequiredScopes
	}
	return union(rs.cfg.RequiredScopes, rs.cfg.Policy.forHeaders(method, name))
}

func (rs *ResourceServer) implies() Implies {
	if rs.cfg.Policy == nil {
		return nil
	}
	return rs.cfg.Policy.Implies
}

// oneHeader returns the single value of a header, trimmed; ok is false when it is absent or
// repeated (the endpoint refuses such a request itself, after the gate).
func oneHeader(h streamable.Headers, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) != 1 {
		return "", false
	}
	return string(trimSpace(vs[0])), true
}
