package oauth

// alsoAccepting returns v accepting tokens for aud besides its own audiences, when v is a
// verifier of this package (a ByIssuer of them included); any other Verifier is returned as
// it is. The resource server uses it so that the resource its root metadata document names
// (the origin, RFC 9728 §3.3) is an audience it accepts: a client that discovered that
// document asks for tokens for it.
func alsoAccepting(v Verifier, aud string) Verifier {
	switch v := v.(type) {
	case *JWTVerifier:
		return v.alsoFor(aud)
	case *IntrospectionVerifier:
		return v.alsoFor(aud)
	case ByIssuer:
		also := make(ByIssuer, len(v))
		for iss, each := range v {
			also[iss] = alsoAccepting(each, aud)
		}
		return also
	}
	return v
}
