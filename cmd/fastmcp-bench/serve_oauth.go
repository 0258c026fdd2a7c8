package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/oauth"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// envOAuthClientSecret names the environment variable of the introspection client secret
// (a flag would show it in the process list).
const envOAuthClientSecret = "FASTMCP_OAUTH_CLIENT_SECRET"

// oauthOptions are the --oauth-* flags of serve: with --oauth-resource the endpoint is an
// OAuth 2.1 resource server.
type oauthOptions struct {
	resource, issuer, jwks, scopes, introspect, clientID string
	audiences                                            string
	toolScopes                                           []string
	allowAnyType                                         bool
	leeway                                               time.Duration
	dpop                                                 oauth.DPoPMode
	dpopNonce                                            bool

	rs     *oauth.ResourceServer // built by build
	policy *oauth.ScopePolicy
}

func (o *oauthOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.resource, "oauth-resource", "", "canonical `URL` of the endpoint as clients reach it (https://host/mcp): makes it an OAuth 2.1 resource server; tokens must name it as their audience")
	fs.StringVar(&o.issuer, "oauth-issuer", "", "issuer `identifier` of the authorization server, exactly as it publishes it (required with --oauth-resource)")
	fs.StringVar(&o.jwks, "oauth-jwks", "", "`URL` of the issuer's JSON Web Key Set (default: the jwks_uri of its RFC 8414 or OpenID metadata)")
	fs.StringVar(&o.introspect, "oauth-introspect", "", "RFC 7662 introspection endpoint `URL`: verify opaque tokens there instead of JWTs (client secret in $"+envOAuthClientSecret+")")
	fs.StringVar(&o.clientID, "oauth-client-id", "", "client `id` of this server at the introspection endpoint")
	fs.StringVar(&o.scopes, "oauth-scopes", "", "comma-separated `scopes` every request needs (also advertised as scopes_supported)")
	fs.Func("oauth-tool-scopes", "`tool=scope[,scope]` a tool needs beyond --oauth-scopes (repeatable): hidden from tools/list and refused with -32003 without them, 403 before the body on 2026-07-28", func(v string) error {
		if tool, scopes, ok := strings.Cut(v, "="); !ok || tool == "" || scopes == "" {
			return fmt.Errorf("want tool=scope[,scope], got %q", v)
		}
		o.toolScopes = append(o.toolScopes, v)
		return nil
	})
	fs.StringVar(&o.audiences, "oauth-audiences", "", "comma-separated further `audiences` tokens may name besides --oauth-resource and its origin (the resource of the root metadata, accepted without this flag)")
	fs.BoolVar(&o.allowAnyType, "oauth-allow-any-typ", false, "accept JWT access tokens whatever their typ header (default: at+jwt, RFC 9068)")
	fs.DurationVar(&o.leeway, "oauth-leeway", oauth.DefaultLeeway, "clock skew tolerated on exp, nbf and iat")
	fs.Func("oauth-dpop", "`mode` of DPoP (RFC 9449): off (Bearer tokens only; the default), allowed (Bearer, and DPoP-bound tokens with a proof), required (DPoP-bound tokens with a proof only); a proof's htu must be --oauth-resource", func(v string) error {
		m, err := oauth.ParseDPoPMode(v)
		if err != nil {
			return fmt.Errorf("want off, allowed or required, got %q", v)
		}
		o.dpop = m
		return nil
	})
	fs.BoolVar(&o.dpopNonce, "oauth-dpop-nonce", false, "with --oauth-dpop: require server nonces in DPoP proofs (401 use_dpop_nonce with a DPoP-Nonce header; a new one every "+oauth.DefaultDPoPNonceLifetime.String()+")")
}

// enabled reports whether any --oauth-* flag was given.
func (o *oauthOptions) enabled() bool {
	return o.resource != "" || o.issuer != "" || o.jwks != "" || o.introspect != "" || o.scopes != "" || len(o.toolScopes) > 0 ||
		o.dpop != oauth.DPoPOff || o.dpopNonce
}

// build makes the resource server of the flags, if any. It may fetch the issuer's metadata.
func (o *oauthOptions) build(ctx context.Context, logger *slog.Logger) error {
	if !o.enabled() {
		return nil
	}
	if o.resource == "" || o.issuer == "" {
		return usageError("--oauth-resource and --oauth-issuer go together")
	}
	if o.dpopNonce && o.dpop == oauth.DPoPOff {
		return usageError("--oauth-dpop-nonce needs --oauth-dpop allowed or required")
	}
	required := splitList(o.scopes)
	supported := required
	if len(o.toolScopes) > 0 {
		o.policy = &oauth.ScopePolicy{Tools: map[string][]string{}}
		for _, ts := range o.toolScopes {
			tool, scopes, _ := strings.Cut(ts, "=")
			o.policy.Tools[tool] = splitList(scopes)
			supported = appendNew(supported, o.policy.Tools[tool]...)
		}
	}
	audiences := append([]string{o.resource}, splitList(o.audiences)...)
	var verifier oauth.Verifier
	var err error
	if o.introspect != "" {
		verifier, err = oauth.NewIntrospectionVerifier(oauth.IntrospectionConfig{
			Endpoint: o.introspect, ClientID: o.clientID, ClientSecret: os.Getenv(envOAuthClientSecret),
			Issuer: o.issuer, Audiences: audiences, Leeway: o.leeway,
		})
	} else {
		jwks := o.jwks
		if jwks == "" {
			dctx, cancel := context.WithTimeout(ctx, oauth.DefaultFetchTimeout)
			md, derr := oauth.DiscoverAuthorizationServer(dctx, o.issuer, nil)
			cancel()
			if derr != nil {
				return fmt.Errorf("--oauth-jwks not given, and discovery failed: %w", derr)
			}
			if jwks = md.JWKSURI; jwks == "" {
				return fmt.Errorf("--oauth-jwks not given, and the issuer's metadata has no jwks_uri")
			}
			logger.Info("oauth: discovered the key set", "issuer", o.issuer, "jwks", jwks)
		}
		verifier, err = oauth.NewJWTVerifier(oauth.JWTConfig{
			Issuer: o.issuer, Audiences: audiences, JWKS: oauth.JWKSConfig{URL: jwks},
			AllowAnyType: o.allowAnyType, Leeway: o.leeway,
		})
	}
	if err != nil {
		return err
	}
	o.rs, err = oauth.New(oauth.Config{
		Resource: o.resource, AuthorizationServers: []string{o.issuer},
		ScopesSupported: supported, RequiredScopes: required, Policy: o.policy,
		Verifier: verifier, Logger: logger,
		DPoP: oauth.DPoPConfig{Mode: o.dpop, RequireNonce: o.dpopNonce},
	})
	if err != nil {
		return err
	}
	logger.Info("oauth: resource server", "resource", o.resource, "metadata", o.rs.MetadataURL(), "dpop", o.dpop, "dpop_nonce", o.dpopNonce)
	return nil
}

// gate is the request gate of the flags, nil without --oauth-resource.
func (o *oauthOptions) gate() streamable.RequestGate {
	if o.rs == nil {
		return nil
	}
	return o.rs.Gate
}

// gateQuick answers inline what the resource server can (a cached token, metadata, a
// refusal), nil without --oauth-resource.
func (o *oauthOptions) gateQuick() streamable.QuickGate {
	if o.rs == nil {
		return nil
	}
	return o.rs.GateQuick
}

// stepUp answers initialize-era scope refusals with the 403 challenge, nil without
// --oauth-resource.
func (o *oauthOptions) stepUp() func(*fastmcp.Error) *streamable.GateResponse {
	if o.rs == nil {
		return nil
	}
	return o.rs.StepUp
}

// authorizer is the core's authorization policy of the flags, nil without
// --oauth-tool-scopes.
func (o *oauthOptions) authorizer() fastmcp.Authorizer {
	if o.policy == nil {
		return nil
	}
	return o.policy
}

func appendNew(list []string, items ...string) []string {
	out := append([]string(nil), list...)
	for _, it := range items {
		if !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out
}

// buildOAuth builds the resource server of the --oauth-* flags; it returns the exit status
// of a failure, 0 otherwise.
func (o *serveOptions) buildOAuth(ctx context.Context, logger *slog.Logger) int {
	if o.stdio && o.oauth.enabled() {
		fmt.Fprintln(os.Stderr, "serve: --oauth-* flags are for HTTP: over stdio credentials come from the environment (MCP authorization)")
		return 2
	}
	if err := o.oauth.build(ctx, logger); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		var ue usageError
		if errors.As(err, &ue) || errors.Is(err, oauth.ErrInvalidConfig) {
			return 2
		}
		return 1
	}
	return 0
}
