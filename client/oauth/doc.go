// Package oauth is an OAuth 2.1 client for MCP servers, as the MCP authorization spec
// (2025-11-25, 2026-07-28) asks of clients: a [Provider] is a client.Authorizer, set as
// client.Config.Authorizer, that authorizes when the server first refuses a request and
// then gives every request its token.
//
//	loop, err := oauth.ListenLoopback(nil) // prints the URL; pass a func to open a browser
//	if err != nil { … }
//	defer loop.Close()
//	p, err := oauth.New(oauth.Config{
//		ServerURL:     "https://mcp.example.com/mcp",
//		RedirectURL:   loop.RedirectURL(),
//		AuthorizeUser: loop.AuthorizeUser,
//	})
//	if err != nil { … }
//	c, err := client.Connect(ctx, "https://mcp.example.com/mcp", client.Config{Authorizer: p})
//
// # What happens on a refusal
//
// A 401 starts discovery: the protected resource metadata (RFC 9728) at the challenge's
// resource_metadata URL, else at the path-based then the root well-known URL; its resource
// must name the server (ErrResourceMismatch). Then the first authorization server it lists
// (or Config.Issuer among them): its metadata from the RFC 8414 and OpenID discovery URLs in
// the spec's order, whose issuer must be the one asked for, byte for byte (ErrIssuerMismatch).
// The client is the pre-registered one (Config.ClientID), else its client ID metadata
// document URL where the server supports them, else a dynamic registration (RFC 7591, with
// application_type). Scopes: the challenge's, else the metadata's scopes_supported, else
// none; united with those asked for before, and offline_access where the server lists it.
// The grant is the authorization code flow (PKCE S256, refused when the server does not
// list it; state; the resource indicator of RFC 8707 on every authorization and token
// request; the RFC 9207 iss check before the code goes anywhere), whose user step is
// Config.AuthorizeUser ([Loopback] for command-line programs, RFC 8252; [FetchRedirect] for
// a server that consents at once), or client credentials with a secret or a
// private_key_jwt assertion. The token endpoint authentication is client_secret_basic,
// client_secret_post or none as registered. A token with a refresh token is refreshed
// before it expires and on a 401; a refreshed token refused again authorizes afresh. When
// the resource names another authorization server, the old one's tokens and dynamic
// registration are dropped (a pre-registered client then fails: ErrIssuerChanged).
//
// A 403 insufficient_scope re-authorizes with the union of the scopes asked for and the
// challenge's (step-up), at most MaxStepUps times per scope set. Concurrent refusals of one
// token share one authorization.
//
// # DPoP
//
// With DPoPAuto (the default) tokens are DPoP-bound (RFC 9449) when the resource asks (a
// DPoP challenge, or DPoP in its metadata) and the authorization server signs ES256 proofs:
// each token request and each request to the server carries a fresh proof (htm, htu, iat,
// jti; ath with a token) signed by the Provider's P-256 key, and a server's DPoP-Nonce
// (use_dpop_nonce, at the token endpoint and the resource) is kept per server and sent in
// later proofs. A nonce a resource rotates in a successful response is not seen (the client
// hands the Authorizer refusals only): its next refusal carries the new one.
//
// # Secrets
//
// Tokens, refresh tokens, client secrets and authorization codes are kept in memory only,
// never logged, and never put in an error: a token endpoint's refusal is a [TokenError] with
// its error code and description alone. An access token that is not an RFC 6750 token is
// refused (ErrBadToken), so nothing the server sends can inject a header.
//
// # Limits
//
// Each has a default (Config's zero value) and fails as said:
//
//   - RequestTimeout (10 s) per metadata, registration or token request: an error wrapping
//     context.DeadlineExceeded.
//   - AuthorizeTimeout (5 min) for the user step: an error wrapping context.DeadlineExceeded.
//   - MaxDocumentBytes (256 KiB) per metadata document or registration response: the
//     document is not used ("exceeds N bytes (MaxDocumentBytes)"); token responses are
//     bounded at 1 MiB by golang.org/x/oauth2.
//   - MaxStepUps (2) re-authorizations per challenged scope set: ErrStepUpLimit.
//   - Redirects are never followed; every authorization URL must be https or loopback http
//     (ErrInsecureURL); at most 8 challenges of 16 parameters are read from a response, and
//     the DPoP nonces of 64 servers are kept.
//
// The client side bounds the challenges of one request at client.MaxAuthChallenges (4).
package oauth
