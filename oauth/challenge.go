package oauth

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// The error_description of each refusal: fixed sentences, never a token, claim or key id.
const (
	describeMalformed = "The Authorization header is not a Bearer token"
	describeRepeated  = "The request has more than one Authorization header"
	describeInvalid   = "The access token is invalid, expired or not issued for this resource"
	describeScope     = "The access token lacks scopes this request needs"
	// describeUnavailable says what a 503 means: nothing about the token.
	describeUnavailable = "The access token could not be checked now; retry later"

	describeMalformedDPoP = "The Authorization header is not a DPoP token"
	// describeBoundOff and describeBoundBearer refuse a DPoP-bound token sent as Bearer.
	describeBoundOff    = "The access token is bound to a key, and this resource accepts bearer tokens only"
	describeBoundBearer = "The access token is bound to a key: send it with the DPoP scheme and a proof"
	describeKeyBinding  = "The access token is not bound to the key of the DPoP proof"
	describeNonce       = "Resource server requires nonce in DPoP proof"
	describeProofsFull  = "The DPoP proof could not be checked now; retry later"
)

// describeProof is the error_description of each invalid_dpop_proof refusal.
var describeProof = [numProofFaults]string{
	proofMissing:   "The request has no DPoP header",
	proofRepeated:  "The request has more than one DPoP header",
	proofMalformed: "The DPoP proof is not a dpop+jwt signed with an accepted algorithm by the public key in its header",
	proofMethod:    "The htm of the DPoP proof is not the request's method",
	proofURI:       "The htu of the DPoP proof is not the request's URI",
	proofTime:      "The iat of the DPoP proof is outside the accepted window",
	proofHash:      "The ath of the DPoP proof is not the hash of the access token",
	proofReplayed:  "The DPoP proof has been used before",
}

// challenger writes the WWW-Authenticate challenges of one resource server (RFC 6750 §3,
// RFC 9728 §5.1, RFC 9449 §7.1): each challenge has the error code first when there is one,
// then its description, the algs of DPoP, resource_metadata and scope. Every value is
// quoted; none can hold a quote or backslash (the config is checked).
type challenger struct {
	metadataURL string
	required    []string
	mode        DPoPMode
	algs        string
}

// one appends the challenge of scheme s to b.
func (c *challenger) one(b *strings.Builder, s authScheme, errCode, description string, scopes []string) {
	name := "Bearer"
	if s == schemeDPoP {
		name = "DPoP"
	}
	b.WriteString(name)
	b.WriteByte(' ')
	first := b.Len()
	param := func(name, value string) {
		if b.Len() > first {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(value)
		b.WriteByte('"')
	}
	if errCode != "" {
		param("error", errCode)
		param("error_description", description)
	}
	if s == schemeDPoP {
		param("algs", c.algs)
	}
	param("resource_metadata", c.metadataURL)
	if len(scopes) > 0 {
		param("scope", strings.Join(scopes, " "))
	}
}

// header is the WWW-Authenticate value of a refusal of a request of scheme s (schemeNone
// for one without credentials: the mode's main scheme). With DPoPAllowed, a 401 or 400 also
// names the other scheme, without an error code, so that the client learns both.
func (c *challenger) header(s authScheme, status int, errCode, description string, scopes []string) string {
	if s == schemeNone {
		s = c.mainScheme()
	}
	var b strings.Builder
	c.one(&b, s, errCode, description, scopes)
	if c.mode == DPoPAllowed && status != http.StatusForbidden {
		b.WriteString(", ")
		other := schemeDPoP
		if s == schemeDPoP {
			other = schemeBearer
		}
		c.one(&b, other, "", "", c.required)
	}
	return b.String()
}

// mainScheme is the scheme challenged first when a request names none.
func (c *challenger) mainScheme() authScheme {
	if c.mode == DPoPRequired {
		return schemeDPoP
	}
	return schemeBearer
}

// refusal is a gate response with a challenge.
func (c *challenger) refusal(s authScheme, status int, errCode, description string, scopes []string) *streamable.GateResponse {
	return challengeResponse(status, c.header(s, status, errCode, description, scopes), errCode, description)
}

// challengeResponse is a response with the challenge header and, with an error code, the
// OAuth error body.
func challengeResponse(status int, header, errCode, description string) *streamable.GateResponse {
	r := &streamable.GateResponse{Status: status, Header: map[string]string{
		"WWW-Authenticate": header,
		"Cache-Control":    "no-store",
	}}
	if errCode != "" {
		r.ContentType = "application/json"
		r.Body = oauthErrorBody(errCode, description)
	}
	return r
}

// stepUp is the 403 insufficient_scope of [ResourceServer.StepUp], which cannot tell the
// request's scheme: with DPoPAllowed it names both, each with the error and the scopes.
func (c *challenger) stepUp(scopes []string) *streamable.GateResponse {
	if c.mode != DPoPAllowed {
		return c.refusal(schemeNone, http.StatusForbidden, "insufficient_scope", describeScope, scopes)
	}
	var b strings.Builder
	c.one(&b, schemeBearer, "insufficient_scope", describeScope, scopes)
	b.WriteString(", ")
	c.one(&b, schemeDPoP, "insufficient_scope", describeScope, scopes)
	return challengeResponse(http.StatusForbidden, b.String(), "insufficient_scope", describeScope)
}

// oauthErrorBody is the JSON body of a refusal with an error code, as RFC 6750 servers and
// the official TypeScript SDK send it; clients read the header, people read this.
func oauthErrorBody(errCode, description string) []byte {
	return []byte(`{"error":"` + errCode + `","error_description":"` + description + `"}`)
}

// unavailableResponse is the answer when a token or proof could not be checked: 503 with
// Retry-After (whole seconds, rounded up) and the OAuth error temporarily_unavailable in
// the body. It carries no WWW-Authenticate: it is no challenge, and nothing in it says the
// credentials are bad.
func unavailableResponse(retryAfter time.Duration, description string) *streamable.GateResponse {
	seconds := max(1, int64((retryAfter+time.Second-1)/time.Second))
	return &streamable.GateResponse{Status: http.StatusServiceUnavailable, ContentType: "application/json",
		Header: map[string]string{"Retry-After": strconv.FormatInt(seconds, 10), "Cache-Control": "no-store"},
		Body:   oauthErrorBody("temporarily_unavailable", description)}
}

// refusals are the responses to requests of one scheme that do not depend on the request,
// made once.
type refusals struct {
	missing, malformed, repeated, invalid, scope *streamable.GateResponse
	// bound refuses a DPoP-bound token sent as Bearer (Bearer's refusals only).
	bound *streamable.GateResponse
}

func newRefusals(c *challenger, s authScheme) *refusals {
	malformed, bound := describeMalformed, describeBoundBearer
	if s == schemeDPoP {
		malformed = describeMalformedDPoP
	}
	if c.mode == DPoPOff {
		bound = describeBoundOff
	}
	return &refusals{
		missing:   c.refusal(schemeNone, http.StatusUnauthorized, "", "", c.required),
		malformed: c.refusal(s, http.StatusBadRequest, "invalid_request", malformed, c.required),
		repeated:  c.refusal(schemeNone, http.StatusBadRequest, "invalid_request", describeRepeated, c.required),
		invalid:   c.refusal(s, http.StatusUnauthorized, "invalid_token", describeInvalid, c.required),
		scope:     c.refusal(s, http.StatusForbidden, "insufficient_scope", describeScope, c.required),
		bound:     c.refusal(s, http.StatusUnauthorized, "invalid_token", bound, c.required),
	}
}

// proofRefusals are the refusals of DPoP requests for their proof or its key, made once;
// use_dpop_nonce, which names the current nonce, is made once per nonce period.
type proofRefusals struct {
	proof      [numProofFaults]*streamable.GateResponse // invalid_dpop_proof, by fault
	keyBinding *streamable.GateResponse                 // invalid_token: cnf.jkt is not the proof's key
	full       *streamable.GateResponse                 // 503: the replay cache is full
}

func newProofRefusals(c *challenger, retryAfter time.Duration) *proofRefusals {
	p := &proofRefusals{
		keyBinding: c.refusal(schemeDPoP, http.StatusUnauthorized, "invalid_token", describeKeyBinding, c.required),
		full:       unavailableResponse(retryAfter, describeProofsFull),
	}
	for f, d := range describeProof {
		if d != "" {
			p.proof[f] = c.refusal(schemeDPoP, http.StatusUnauthorized, "invalid_dpop_proof", d, c.required)
		}
	}
	return p
}

// nonceRefusal is the 401 use_dpop_nonce naming nonce in its DPoP-Nonce header (RFC 9449
// §9).
func (c *challenger) nonceRefusal(nonce string) *streamable.GateResponse {
	r := c.refusal(schemeDPoP, http.StatusUnauthorized, "use_dpop_nonce", describeNonce, c.required)
	r.Header["DPoP-Nonce"] = nonce
	return r
}
