package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Defaults of [IntrospectionConfig].
const (
	DefaultIntrospectionTimeout  = 5 * time.Second
	DefaultMaxIntrospectionBytes = 64 << 10
)

// IntrospectionConfig configures an [IntrospectionVerifier].
type IntrospectionConfig struct {
	// Endpoint is the authorization server's introspection_endpoint: https, or http on a
	// loopback host. Required.
	Endpoint string
	// ClientID and ClientSecret authenticate the resource server to the endpoint
	// (client_secret_basic, RFC 6749 §2.3.1). Required: an unauthenticated introspection
	// endpoint would answer anyone's token scanning.
	ClientID, ClientSecret string
	// Issuer, if set, must equal the response's iss when it has one.
	Issuer string
	// Audiences are the resource identifiers the response's aud must name one of; a response
	// without aud is refused (the MCP rule: only tokens issued for this resource). Required.
	Audiences []string
	// Leeway is the clock skew tolerated on exp and nbf. Zero means [DefaultLeeway], 30 s.
	Leeway time.Duration
	// Timeout bounds one introspection request. Zero means [DefaultIntrospectionTimeout],
	// 5 s.
	Timeout time.Duration
	// MaxBytes bounds the response; a larger one is a failure to decide (500). Zero means
	// [DefaultMaxIntrospectionBytes], 64 KiB.
	MaxBytes int64
	// HTTPClient makes the requests; nil means a client of its own. Redirects are never
	// followed.
	HTTPClient *http.Client
}

// IntrospectionVerifier verifies opaque tokens by asking the authorization server (RFC 7662):
// POST token=…&token_type_hint=access_token with the resource server's credentials. An
// inactive token, or an active one with another issuer or audience, an exp in the past, an
// nbf in the future or neither sub nor client_id, is refused with an error wrapping
// [ErrInvalidToken]; an endpoint that does not answer 200 with JSON within Timeout is a
// failure to decide (the gate answers 500). It is safe for concurrent use.
type IntrospectionVerifier struct {
	cfg IntrospectionConfig
	now func() time.Time
}

// NewIntrospectionVerifier checks cfg and builds the verifier.
func NewIntrospectionVerifier(cfg IntrospectionConfig) (*IntrospectionVerifier, error) {
	if err := fetchURL("introspection Endpoint", cfg.Endpoint); err != nil {
		return nil, err
	}
	switch {
	case cfg.ClientID == "" || cfg.ClientSecret == "":
		return nil, fmt.Errorf("%w: introspection needs ClientID and ClientSecret", ErrInvalidConfig)
	case len(cfg.Audiences) == 0 || slices.Contains(cfg.Audiences, ""):
		return nil, fmt.Errorf("%w: introspection Audiences must list the resource", ErrInvalidConfig)
	case cfg.Leeway < 0 || cfg.Timeout < 0 || cfg.MaxBytes < 0:
		return nil, fmt.Errorf("%w: introspection Leeway, Timeout and MaxBytes must not be negative", ErrInvalidConfig)
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultIntrospectionTimeout
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxIntrospectionBytes
	}
	client := http.Client{}
	if cfg.HTTPClient != nil {
		client = *cfg.HTTPClient
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	cfg.HTTPClient = &client
	cfg.Audiences = slices.Clone(cfg.Audiences)
	return &IntrospectionVerifier{cfg: cfg, now: time.Now}, nil
}

// introspection is the RFC 7662 §2.2 response, the members the verifier reads.
type introspection struct {
	Active    bool            `json:"active"`
	Scope     string          `json:"scope"`
	ClientID  string          `json:"client_id"`
	Subject   string          `json:"sub"`
	Issuer    string          `json:"iss"`
	Audience  json.RawMessage `json:"aud"`
	Expiry    *float64        `json:"exp"`
	NotBefore *float64        `json:"nbf"`
}

// Verify implements [Verifier].
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, v.cfg.Timeout)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.cfg.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("%w: cannot build the introspection request", errUnavailable)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(v.cfg.ClientID), url.QueryEscape(v.cfg.ClientSecret))
	resp, err := v.cfg.HTTPClient.Do(req)
	if err != nil {
		// A *url.Error names the endpoint, never the form: safe to wrap.
		return nil, fmt.Errorf("%w: introspection: %w", errUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: introspection endpoint answered %d", errUnavailable, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, v.cfg.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: introspection: %w", errUnavailable, err)
	}
	if int64(len(body)) > v.cfg.MaxBytes {
		return nil, fmt.Errorf("%w: introspection response over MaxBytes (%d)", errUnavailable, v.cfg.MaxBytes)
	}
	var r introspection
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%w: introspection response is not JSON", errUnavailable)
	}
	return v.check(r)
}

func (v *IntrospectionVerifier) check(r introspection) (*TokenInfo, error) {
	if !r.Active {
		return nil, invalid("inactive")
	}
	if v.cfg.Issuer != "" && r.Issuer != "" && r.Issuer != v.cfg.Issuer {
		return nil, invalid("iss is not the issuer")
	}
	var aud []string
	var one string
	if json.Unmarshal(r.Audience, &one) == nil {
		aud = []string{one}
	} else if json.Unmarshal(r.Audience, &aud) != nil {
		aud = nil
	}
	if !slices.ContainsFunc(aud, func(a string) bool { return slices.Contains(v.cfg.Audiences, a) }) {
		return nil, invalid("aud does not name this resource")
	}
	now := v.now()
	info := &TokenInfo{Subject: r.Subject, ClientID: r.ClientID, Issuer: r.Issuer, Audience: aud, Scopes: splitScope(r.Scope)}
	if r.Expiry != nil {
		info.Expiry = unixTime(*r.Expiry).Add(v.cfg.Leeway)
		if !now.Before(info.Expiry) {
			return nil, invalid("expired")
		}
	}
	if r.NotBefore != nil && now.Add(v.cfg.Leeway).Before(unixTime(*r.NotBefore)) {
		return nil, invalid("not yet valid (nbf)")
	}
	if info.Subject == "" {
		info.Subject = r.ClientID
	}
	if info.Subject == "" {
		return nil, invalid("neither sub nor client_id")
	}
	return info, nil
}

func unixTime(sec float64) time.Time {
	return time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second)))
}
