// Package oauth makes an MCP endpoint an OAuth 2.1 resource server (MCP authorization,
// revisions 2025-06-18, 2025-11-25 and 2026-07-28): it publishes the protected resource
// metadata (RFC 9728), checks the bearer token of every request before its body is read
// (RFC 6750), verifies JWT access tokens against the issuer's key set (RFC 9068, RFC 8725)
// or opaque tokens by introspection (RFC 7662), accepts or requires tokens bound to a client
// key with DPoP (RFC 9449), and enforces per-tool scopes at the component boundary.
//
//	verifier, _ := oauth.NewJWTVerifier(oauth.JWTConfig{
//		Issuer:    "https://auth.example.com",
//		Audiences: []string{"https://mcp.example.com/mcp"},
//		JWKS:      oauth.JWKSConfig{URL: "https://auth.example.com/.well-known/jwks.json"},
//	})
//	policy := &oauth.ScopePolicy{Tools: map[string][]string{"deploy": {"deploy:write"}}}
//	rs, _ := oauth.New(oauth.Config{
//		Resource:             "https://mcp.example.com/mcp",
//		AuthorizationServers: []string{"https://auth.example.com"},
//		ScopesSupported:      []string{"mcp:tools", "deploy:write"},
//		RequiredScopes:       []string{"mcp:tools"},
//		Policy:               policy,
//		Verifier:             verifier,
//	})
//	core, _ := fastmcp.NewServer(impl, &fastmcp.Config{Authorizer: policy})
//	gated := streamable.Config{RequestGate: rs.Gate, RequestGateQuick: rs.GateQuick}
//	srv, _ := streamable.New(core, streamable.ListenerConfig{Config: gated})
//
// The gate is a [streamable.RequestGate], so the native listener, streamable.NewHandler
// (net/http, chi, echo, gin) and streamable.NewRequestHandler (a fasthttp server, Fiber)
// all serve the metadata and refuse alike. [ResourceServer.GateQuick], its
// [streamable.QuickGate], answers inline all that needs no verifier (a cached token above
// all), so that only a token to verify pays for the gate's goroutine and timeout. Stdio
// takes no tokens (MCP: credentials come from the environment there).
//
// # What a client sees
//
// [ResourceServer.Gate] lists the answers: the metadata documents at
// /.well-known/oauth-protected-resource followed by the endpoint's path (resource: the
// endpoint URL) and at /.well-known/oauth-protected-resource (resource: the origin), both
// public and CORS-open; 401 with WWW-Authenticate: Bearer resource_metadata="…", scope="…"
// and no error code when no Bearer token was sent; 400 error="invalid_request" for a
// malformed or repeated Authorization header; 401 error="invalid_token" for a token that
// is bad; 403 error="insufficient_scope" with every scope the request needs; 503 with
// Retry-After for a token the server could not check (below). The canonical resource URL
// is configuration, never the request's Host. [Config.PublicPaths] (a health check behind
// the gate) pass without a token; [ResourceServer.Stats] counts every decision by kind, for
// metrics.
//
// Tokens must name Resource as their audience, or the origin: the root metadata document
// names the origin as its resource (RFC 9728 §3.3), so a client that discovered it asks for
// tokens for the origin, and the verifiers of this package accept them under a resource
// server. [Config.OmitRootMetadata] drops the root document and the origin audience
// together, for an origin that serves several protected resources.
//
// # Bad tokens and outages
//
// One rule for every verifier: "the token is bad" is 401 invalid_token, and the client
// must get another (RFC 6750); "the server could not check the token" is 503 with
// Retry-After ([Config.RetryAfter], 5 s), body
// {"error":"temporarily_unavailable","error_description":"The access token could not be
// checked now; retry later"}, Cache-Control: no-store and no WWW-Authenticate, so the
// client keeps its token and retries instead of authorizing again (an outage of the
// authorization server must not become a storm of authorizations). Bad: a malformed
// token, a signature that does not verify, iss, aud, exp, nbf, iat, no sub, a kid unknown
// to a key set fetched successfully, a token introspection calls inactive. Could not
// check: a key set that cannot be fetched (unreachable, non-200, not a key set, over
// MaxKeys or MaxBytes, a redirect, past FetchTimeout) when the token needs it, a kid unknown
// while the last refresh failed, an introspection endpoint that is unreachable, answers
// non-200 or no JSON object, or past its Timeout; any error of a [Verifier] of your own
// that does not wrap [ErrInvalidToken]. Neither is ever admitted, and a 503 is never
// remembered against the token.
//
// Verification runs with the gate's context, its deadline moved a tenth of the time left
// earlier (9 s of streamable's default RequestGateTimeout of 10 s): a verifier that runs out
// answers 503 before the transport's 504, whatever its own timeouts.
//
// A token the gate admits becomes the request's [fastmcp.Identity]: Principal is the
// subject (MRTR requestState and cancellation are bound to it), Claims the *[TokenInfo]
// ([TokenInfoFrom] reads it in a handler or a policy), Expires the token's expiry: a
// subscriptions/listen stream opened with the token completes then, as at a drain, so the
// client opens it again with a fresh token instead of receiving events on an expired one.
// The token is never logged (logs name
// it by [TokenHash]), never put in an error or a response, never passed on: a handler that
// calls another service needs a token of its own.
//
// # Scopes
//
// [Config.RequiredScopes] apply to every request. A [ScopePolicy] maps tools, prompts and
// resources to the scopes they need; as the core's [fastmcp.Config.Authorizer] it hides what
// a token's scopes do not reach from the lists (which the core then caches "private") and
// refuses an invocation with -32003 "Insufficient scope for tool NAME", data
// {"error":"insufficient_scope","scope":"…"}. As [Config.Policy] it also lets the gate answer
// a 2026-07-28 tools/call or prompts/get that lacks the scopes with the 403 step-up
// challenge before the body is read, from the Mcp-Method and Mcp-Name headers (which the
// endpoint then checks against the body: 400 -32020 if they differ). Initialize-era
// requests, resources (whose Mcp-Name is a URI) and names sent base64-encoded get the
// component-boundary refusal instead; with [ResourceServer.StepUp] as the endpoint's
// streamable.Config.StepUp, an initialize-era request's refusal becomes that same 403
// challenge after the body, which initialize-era clients step up on (the official
// TypeScript client does, in oauth/clientinterop). [Implies] declares scope hierarchies.
//
// # JWT access tokens
//
// [JWTVerifier] uses github.com/go-jose/go-jose/v4 for JOSE parsing and signatures (chosen
// over lestrrat-go/jwx/v3 for having no dependency beyond the standard library and an
// allowlist argument on every parse; the key set cache, whose limits MCP servers need
// bounded, is this package's own). Its checks are listed on the type: an asymmetric
// algorithm allowlist (never none, never HMAC), typ at+jwt unless AllowAnyType, the key by
// kid fitting the algorithm, exact iss, aud naming the resource, exp required, nbf and iat
// with Leeway, a sub. The claims are checked before the key is looked up, so a token bad
// on its face costs no key set fetch. [ByIssuer] serves several authorization servers,
// each with its own verifier (the principal is then the issuer and the subject).
//
// # DPoP
//
// [Config.DPoP] accepts access tokens bound to a client's key (RFC 9449): the token's
// cnf.jkt (read by [JWTVerifier] and [IntrospectionVerifier] into
// [TokenInfo.DPoPThumbprint]) names the key, and each request proves possession of it with
// a DPoP header, a JWT signed by the key. [DPoPConfig.Mode] is one of:
//
//   - off (the default): Bearer only. Authorization: DPoP is another scheme (401 with the
//     Bearer challenge, no error code). A DPoP-bound token sent as Bearer is refused, 401
//     invalid_token "The access token is bound to a key, and this resource accepts bearer
//     tokens only": its issuer bound it to a key this resource would not check, and RFC
//     9449 §7.2 forbids that downgrade (it says so of a resource that takes both schemes;
//     off takes it as the safe reading for one that takes Bearer alone).
//   - allowed: unbound tokens as Bearer, bound ones with the DPoP scheme and a proof. A
//     bound token sent as Bearer: 401 invalid_token "The access token is bound to a key:
//     send it with the DPoP scheme and a proof". A 401 or 400 names both schemes, the
//     request's first and with the error code: WWW-Authenticate: Bearer
//     resource_metadata="…", scope="…", DPoP algs="ES256 …", resource_metadata="…",
//     scope="…". A 403 names the request's scheme; [ResourceServer.StepUp]'s 403, which
//     cannot tell it, names both with the error.
//   - required: the DPoP scheme only; a Bearer request is answered as one without
//     credentials, 401 WWW-Authenticate: DPoP algs="…", resource_metadata="…", scope="…".
//
// With allowed or required the metadata lists dpop_signing_alg_values_supported
// ([DPoPConfig.Algorithms], by default every asymmetric one), and with required
// dpop_bound_access_tokens_required: true.
//
// The proof is checked in the gate, before the body, in the order of RFC 9449 §4.3; each
// refusal is 401 WWW-Authenticate: DPoP error="invalid_dpop_proof", error_description="…"
// with the JSON body of the same error:
//
//   - no DPoP header: "The request has no DPoP header"; several: "The request has more
//     than one DPoP header";
//   - over MaxProofBytes, not a compact JWS, typ not dpop+jwt, alg not in Algorithms
//     (never none or HMAC), no public jwk in the header that fits alg (RSA under MinRSABits
//     neither), a signature that does not verify with it, a crit header, no jti, htm,
//     htu or numeric iat: "The DPoP proof is not a dpop+jwt signed with an accepted
//     algorithm by the public key in its header";
//   - htm not the request's method: "The htm of the DPoP proof is not the request's
//     method";
//   - htu not the request's URI: "The htu of the DPoP proof is not the request's URI". The
//     endpoint's public URL is configuration, never the Host header (which a proxy rewrites
//     and an attacker chooses): the origin of [Config.Resource] followed by the request's
//     path. The query and fragment are ignored, the scheme and host compare
//     case-insensitively, a default port is the same as none, and the path compares
//     percent-decoded, as the endpoint routes it. Behind a proxy that changes the path,
//     Resource must be the URL clients call;
//   - with RequireNonce, no nonce or one the server did not issue in this period or the
//     last: 401 DPoP error="use_dpop_nonce", error_description="Resource server requires
//     nonce in DPoP proof" and a DPoP-Nonce header with the current nonce, which the
//     client puts in a new proof (RFC 9449 §9). The gate cannot add a header to an
//     admitted response, so a client learns a new nonce this way, at most once a
//     NonceLifetime. A nonce is an HMAC of the time period under NonceKey: nothing is
//     stored, and replicas that share the key accept each other's;
//   - iat further than ProofWindow from the server's clock, either way: "The iat of the
//     DPoP proof is outside the accepted window";
//   - ath missing or not base64url(SHA-256(access token)): "The ath of the DPoP proof is
//     not the hash of the access token".
//
// The token is then verified as any (the token cache applies), and its cnf.jkt must equal
// the RFC 7638 SHA-256 thumbprint of the proof's key: otherwise, an unbound token included,
// 401 DPoP error="invalid_token", error_description="The access token is not bound to the
// key of the DPoP proof". Last, the proof is remembered against replay: one accepted before
// gets 401 invalid_dpop_proof "The DPoP proof has been used before". The replay cache is
// the process's own: a proof replayed to another replica within its window is not
// detected there, which the short window bounds. A cnf of another confirmation method
// (x5t#S256, mTLS) is not checked.
//
// # Opaque tokens
//
// [IntrospectionVerifier] asks the authorization server (RFC 7662). A flood of junk tokens
// is not amplified onto it: requests with the same token share one call in flight, and a
// refusal is remembered by the token's SHA-256, so the same junk repeated costs one call
// per RefusalCacheTTL; N distinct junk tokens cost N calls (a token never seen cannot be
// judged without asking), and the memory of them is bounded by MaxCachedRefusals. A
// resource server that accepts only JWTs should use [JWTVerifier], which refuses junk
// without any call.
//
// # Limits
//
// Every limit has a default and the answer a client sees past it:
//
//   - Config.MaxTokenBytes (16 KiB): a longer bearer token gets 401 invalid_token unparsed.
//   - Config.MaxCachedTokens (10,000) and TokenCacheTTL (1 min): verified tokens are
//     remembered by SHA-256 for at most the TTL and never past their expiry; a revoked token
//     may be admitted for up to the TTL. Nothing a client sees, beyond that.
//   - JWTConfig.Leeway (30 s): exp, nbf and iat beyond it: 401 invalid_token.
//   - JWKSConfig.TTL (1 h, shortened by Cache-Control max-age down to MinRefreshInterval):
//     the key set is refetched after it; while the issuer is unreachable the cached keys
//     work until the TTL ends, then every token that needs a key gets 503 with Retry-After.
//   - JWKSConfig.MinRefreshInterval (1 min): an unknown kid refetches the set at most this
//     often; in between it gets 401 invalid_token at once if the last fetch succeeded, 503
//     if it failed.
//   - JWKSConfig.MaxKeys (32), MaxBytes (256 KiB): a larger set is a failed fetch (the
//     previous one stays); FetchTimeout (5 s) bounds a fetch, which outlives the requests
//     waiting for it. https only, except loopback; redirects are not followed.
//   - IntrospectionConfig.Timeout (5 s), MaxBytes (64 KiB): past either the token could not
//     be checked: 503 with Retry-After, as for an endpoint that does not answer 200.
//   - IntrospectionConfig.MaxCachedRefusals (10,000) and RefusalCacheTTL (1 min): refused
//     opaque tokens are remembered by SHA-256 and refused again (401 invalid_token) without
//     a call; a full cache forgets one at random. An outage (503) and a token not yet valid
//     are never remembered; a token introspection called inactive that becomes active is
//     refused for up to the TTL.
//   - DPoPConfig.ProofWindow (1 min): a proof whose iat is further from now gets 401
//     invalid_dpop_proof.
//   - DPoPConfig.MaxProofBytes (8 KiB): a longer DPoP header gets 401 invalid_dpop_proof
//     unparsed.
//   - DPoPConfig.MaxProofs (1,000,000, about 30 MB): the proofs remembered against replay,
//     each until its iat plus ProofWindow and at most half a window more, so the defaults
//     sustain some 11,000 DPoP requests a second. Full, it does not forget one (that one
//     could be replayed): a valid request gets 503 with Retry-After, no WWW-Authenticate,
//     body {"error":"temporarily_unavailable","error_description":"The DPoP proof could
//     not be checked now; retry later"}.
//   - DPoPConfig.NonceLifetime (5 min): a nonce is accepted for one to two lifetimes.
//   - Config.RetryAfter (5 s): the Retry-After of the 503, in whole seconds rounded up.
//   - The verification budget: a tenth of the time left to the gate's deadline before it;
//     past it, 503 with Retry-After.
//   - streamable.Config.RequestGateTimeout (10 s) bounds the whole gate: 504 (only for a
//     Verifier of your own that ignores its context).
package oauth
