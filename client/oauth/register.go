package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// Token endpoint client authentication methods (RFC 7591 §2, RFC 7523).
const (
	authBasic         = "client_secret_basic"
	authPost          = "client_secret_post"
	authNone          = "none"
	authPrivateKeyJWT = "private_key_jwt"
)

// registration is the client's identity at one authorization server.
type registration struct {
	issuer   string // the server that issued it; "" for a metadata document URL, valid anywhere
	clientID string
	secret   string
	method   string // how the client authenticates at the token endpoint
	pre      bool   // pre-registered (Config.ClientID)
}

// clientFor returns the client's registration at the authorization server as, in the MCP
// spec's order: the pre-registered client, a client ID metadata document where as supports
// them, dynamic registration (RFC 7591) where it offers it. p.mu must be held.
func (p *Provider) clientFor(ctx context.Context, as *serverMetadata) (*registration, error) {
	if r := p.reg; r != nil && (r.issuer == "" || r.issuer == as.Issuer) {
		return r, nil
	}
	switch {
	case p.cfg.ClientID != "":
		want := p.cfg.Issuer
		if want == "" {
			want = p.preIssuer
		}
		if want != "" && want != as.Issuer {
			return nil, fmt.Errorf("%w: the pre-registered client belongs to %q, the resource names %q", ErrIssuerChanged, want, as.Issuer)
		}
		p.preIssuer = as.Issuer
		p.reg = &registration{issuer: as.Issuer, clientID: p.cfg.ClientID, secret: p.cfg.ClientSecret, method: p.preRegisteredMethod(as), pre: true}
	case p.cfg.ClientMetadataURL != "" && as.CIMDSupported && p.cfg.Grant == GrantAuthorizationCode:
		p.reg = &registration{clientID: p.cfg.ClientMetadataURL, method: authNone}
	case as.RegistrationEndpoint != "":
		r, err := p.register(ctx, as)
		if err != nil {
			return nil, err
		}
		p.reg = r
		p.stats.registrations.Add(1)
	default:
		return nil, fmt.Errorf("%w: %s supports neither client ID metadata documents nor dynamic registration, and no ClientID is configured", ErrUnsupported, as.Issuer)
	}
	return p.reg, nil
}

// preRegisteredMethod is how the pre-registered client authenticates: as configured, else
// as its credentials allow, preferring client_secret_basic (RFC 8414's default) to post.
func (p *Provider) preRegisteredMethod(as *serverMetadata) string {
	switch {
	case p.cfg.TokenEndpointAuthMethod != "":
		return p.cfg.TokenEndpointAuthMethod
	case p.cfg.PrivateKey != nil:
		return authPrivateKeyJWT
	case p.cfg.ClientSecret == "":
		return authNone
	case len(as.AuthMethods) == 0 || slices.Contains(as.AuthMethods, authBasic):
		return authBasic
	case slices.Contains(as.AuthMethods, authPost):
		return authPost
	}
	return authBasic
}

// registrationRequest is an RFC 7591 client metadata document, also the client ID metadata
// document's shape (with client_id).
type registrationRequest struct {
	ClientID        string   `json:"client_id,omitempty"`
	ClientName      string   `json:"client_name"`
	RedirectURIs    []string `json:"redirect_uris,omitempty"`
	GrantTypes      []string `json:"grant_types"`
	ResponseTypes   []string `json:"response_types,omitempty"`
	AuthMethod      string   `json:"token_endpoint_auth_method"`
	ApplicationType string   `json:"application_type,omitempty"`
}

type registrationResponse struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	AuthMethod       string `json:"token_endpoint_auth_method"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// metadata is the client's metadata: for a registration (clientID "") or its metadata
// document.
func (p *Provider) metadata(clientID, method string) registrationRequest {
	m := registrationRequest{ClientID: clientID, ClientName: p.cfg.ClientName, AuthMethod: method, ApplicationType: p.cfg.ApplicationType}
	if p.cfg.Grant == GrantClientCredentials {
		m.GrantTypes = []string{"client_credentials"}
		return m
	}
	m.RedirectURIs = []string{p.cfg.RedirectURL}
	m.GrantTypes = []string{"authorization_code", "refresh_token"}
	m.ResponseTypes = []string{"code"}
	return m
}

// ClientMetadataDocument is the client ID metadata document to serve at ClientMetadataURL
// (JSON): client_id, client_name, redirect_uris, the grant types, and
// token_endpoint_auth_method none.
func (p *Provider) ClientMetadataDocument() ([]byte, error) {
	if p.cfg.ClientMetadataURL == "" {
		return nil, fmt.Errorf("%w: no ClientMetadataURL", ErrInvalidConfig)
	}
	md := p.metadata(p.cfg.ClientMetadataURL, authNone)
	md.ApplicationType = ""
	return json.Marshal(md)
}

// register registers the client dynamically (RFC 7591): a public client (none) where the
// server allows it, else one with a secret.
func (p *Provider) register(ctx context.Context, as *serverMetadata) (*registration, error) {
	method := authNone
	switch {
	case p.cfg.Grant == GrantAuthorizationCode && (len(as.AuthMethods) == 0 || slices.Contains(as.AuthMethods, authNone)):
	case len(as.AuthMethods) == 0 || slices.Contains(as.AuthMethods, authBasic):
		method = authBasic
	case slices.Contains(as.AuthMethods, authPost):
		method = authPost
	default:
		return nil, fmt.Errorf("%w: %s offers no client authentication a registered client can use (%v)", ErrUnsupported, as.Issuer, as.AuthMethods)
	}
	body, err := json.Marshal(p.metadata("", method))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := p.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: client registration: %w", err)
	}
	defer resp.Body.Close()
	var rr registrationResponse
	derr := p.decode(resp.Body, &rr, "client registration")
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		if rr.Error != "" {
			return nil, fmt.Errorf("oauth: client registration refused: HTTP %d %s: %q", resp.StatusCode, rr.Error, rr.ErrorDescription)
		}
		return nil, fmt.Errorf("oauth: client registration refused: HTTP %d", resp.StatusCode)
	}
	if derr != nil {
		return nil, derr
	}
	if rr.ClientID == "" {
		return nil, fmt.Errorf("oauth: client registration: the response has no client_id")
	}
	r := &registration{issuer: as.Issuer, clientID: rr.ClientID, secret: rr.ClientSecret, method: method}
	if rr.AuthMethod != "" {
		r.method = rr.AuthMethod
	}
	switch r.method {
	case authNone:
	case authBasic, authPost:
		if r.secret == "" {
			return nil, fmt.Errorf("oauth: client registration: %s without a client_secret", r.method)
		}
	default:
		return nil, fmt.Errorf("%w: the server registered the client for %q", ErrUnsupported, r.method)
	}
	return r, nil
}
