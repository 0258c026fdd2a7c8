package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
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
	// without aud is refused (the MCP rule: only tokens issued for this resource). A
	// [ResourceServer] accepts its origin too (see [Config.OmitRootMetadata]). Required.
	Audiences []string
	// Leeway is the clock skew tolerated on exp and nbf. Zero means [DefaultLeeway], 30 s.
	Leeway time.Duration
	// Timeout bounds one introspection request (and the gate's verification budget may end
	// it sooner, see [ResourceServer.Gate]); past it the token could not be checked (503).
	// Zero means [DefaultIntrospectionTimeout], 5 s.
	Timeout time.Duration
	// MaxBytes bounds the response; a larger one means the token could not be checked
	// (503). Zero means [DefaultMaxIntrospectionBytes], 64 KiB.
	MaxBytes int64
	// MaxCachedRefusals bounds the refused tokens remembered (by their SHA-256, never the
	// token) so that the same junk token sent again is refused (401 invalid_token) without
	// asking the endpoint; a full cache forgets one at random to admit another. Only answers
	// of the endpoint are remembered, never a failure to get one. Zero means
	// [DefaultMaxCachedRefusals], 10,000; [NoRefusalCache] asks about every token. Other
	// negative values are invalid.
	MaxCachedRefusals int
	// RefusalCacheTTL bounds how long a refusal is remembered: a token the endpoint called
	// inactive that becomes active (an authorization server whose replicas lag) is refused
	// for at most this long. A token refused as not yet valid (nbf) is not remembered. Zero
	// means [DefaultRefusalCacheTTL], 1 min. Negative values are invalid.
	RefusalCacheTTL time.Duration
	// HTTPClient makes the requests; nil means a client of its own. Redirects are never
	// followed.
	HTTPClient *http.Client
}

// IntrospectionVerifier verifies opaque tokens by asking the authorization server (RFC 7662):
// POST token=…&token_type_hint=access_token with the resource server's credentials. An
// inactive token, or an active one with another issuer or audience, an exp in the past, an
// nbf in the future, neither sub nor client_id, or a malformed cnf, is refused with an
// error wrapping [ErrInvalidToken] (cnf.jkt becomes [TokenInfo.DPoPThumbprint]); an endpoint that is unreachable or does not answer 200 with a JSON
// object within Timeout means the token could not be checked (the gate answers 503).
//
// Each unknown token costs one call: requests with the same token share the call in flight,
// and its refusal is remembered (MaxCachedRefusals, RefusalCacheTTL), so the same junk token
// repeated costs one call per RefusalCacheTTL, and N distinct junk tokens N calls, with the
// memory of them bounded. It is safe for concurrent use.
type IntrospectionVerifier struct {
	cfg     IntrospectionConfig
	now     func() time.Time
	refused *refusalCache // nil with NoRefusalCache
	flights flights
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
	case cfg.Leeway < 0 || cfg.Timeout < 0 || cfg.MaxBytes < 0 || cfg.RefusalCacheTTL < 0:
		return nil, fmt.Errorf("%w: introspection Leeway, Timeout, MaxBytes and RefusalCacheTTL must not be negative", ErrInvalidConfig)
	case cfg.MaxCachedRefusals < NoRefusalCache:
		return nil, fmt.Errorf("%w: introspection MaxCachedRefusals %d is negative", ErrInvalidConfig, cfg.MaxCachedRefusals)
	}
	if cfg.MaxCachedRefusals == 0 {
		cfg.MaxCachedRefusals = DefaultMaxCachedRefusals
	}
	if cfg.RefusalCacheTTL == 0 {
		cfg.RefusalCacheTTL = DefaultRefusalCacheTTL
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
	return newIntrospectionVerifier(cfg, time.Now), nil
}

// newIntrospectionVerifier builds the verifier of a checked cfg.
func newIntrospectionVerifier(cfg IntrospectionConfig, now func() time.Time) *IntrospectionVerifier {
	v := &IntrospectionVerifier{cfg: cfg, now: now}
	if cfg.MaxCachedRefusals != NoRefusalCache {
		v.refused = newRefusalCache(cfg.MaxCachedRefusals, cfg.RefusalCacheTTL)
	}
	return v
}

// alsoFor returns a verifier that accepts aud besides the Audiences. It remembers refusals
// of its own: they depend on the audiences.
func (v *IntrospectionVerifier) alsoFor(aud string) *IntrospectionVerifier {
	if slices.Contains(v.cfg.Audiences, aud) {
		return v
	}
	cfg := v.cfg
	cfg.Audiences = append(slices.Clone(v.cfg.Audiences), aud)
	return newIntrospectionVerifier(cfg, v.now)
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
	Cnf       json.RawMessage `json:"cnf"`
}

// errRemembered refuses a token the endpoint refused within RefusalCacheTTL.
var errRemembered = invalid("refused by the introspection endpoint within RefusalCacheTTL")

// errNotYetValid is why a token that may become valid is refused: such a refusal is not
// remembered.
var errNotYetValid = errors.New("not yet valid (nbf)")

// Verify implements [Verifier].
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	key := sha256.Sum256([]byte(token))
	if v.refused != nil && v.refused.refused(&key, v.now()) {
		return nil, errRemembered
	}
	f, leader := v.flights.join(&key)
	if !leader {
		select {
		case <-f.done:
			return f.info, f.err
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: introspection: %w", errUnavailable, ctx.Err())
		}
	}
	defer v.flights.land(&key, f)
	f.info, f.err = v.introspect(ctx, token)
	if v.refused != nil && errors.Is(f.err, ErrInvalidToken) && !errors.Is(f.err, errNotYetValid) {
		v.refused.put(&key, v.now())
	}
	return f.info, f.err
}

// introspect asks the endpoint about token.
func (v *IntrospectionVerifier) introspect(ctx context.Context, token string) (*TokenInfo, error) {
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
		return nil, fmt.Errorf("%w: %w", ErrInvalidToken, errNotYetValid)
	}
	jkt, err := confirmation(r.Cnf)
	if err != nil {
		return nil, err
	}
	info.DPoPThumbprint = jkt
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
